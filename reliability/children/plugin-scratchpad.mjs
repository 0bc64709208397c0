// The plugin's own scratchpad code path in a process of its own (issue 28): dist/plugin/tools.js's tool factory,
// as OpenClaw calls it, and its scratchpad store's resume. argv: mode pluginDir stateDir sessionKey index [n]
//   append   `n` session_scratchpad append_notes calls (after the parent's go on stdin); prints { ok, failed }
//   maxima   set_plan and set_notes at the schema's maxima (100,000 characters each); prints their lengths
//   resume   a new process: the store resumes the session from disk; prints the rendered block's spaces
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [mode, pluginDir, stateDir, sessionKey, indexArg, nArg] = process.argv.slice(2)
const { registerTools, scratchpadStore } = await import(pathToFileURL(join(pluginDir, 'tools.js')).href)
const { resolveSettings } = await import(pathToFileURL(join(pluginDir, 'settings.js')).href)
const native = (await import(pathToFileURL(join(pluginDir, 'node_modules/@openclaw/context-native/index.js')).href)).default

// The schema's maxima (openclaw.plugin.json): what an operator may set.
const settings = resolveSettings({ scratchpad: { notesMaxChars: 100_000, planMaxChars: 100_000, maxTokens: 50_000, refsMax: 1000 } })
const limits = {
  notesMaxChars: settings.scratchpad.notesMaxChars,
  planMaxChars: settings.scratchpad.planMaxChars,
  refsMax: settings.scratchpad.refsMax,
  maxTokens: settings.scratchpad.maxTokens,
}
const store = scratchpadStore(stateDir, limits)
let factory
const api = {
  registerTool: (f) => (factory = f),
  registerAgentToolResultMiddleware: () => undefined,
  logger: { warn: (m) => console.error(m), info: () => undefined },
}
registerTools(api, { stateDir, limits, scratchpad: true, offload: settings.offload }, store)
const tool = factory({ sessionKey }).find((t) => t.name === 'session_scratchpad')

if (mode === 'append') {
  await new Promise((res) => process.stdin.once('data', res))
  let ok = 0
  const failed = []
  for (let i = 0; i < Number(nArg); i++) {
    const r = await tool.execute(`call-${indexArg}-${i}`, { action: 'append_notes', content: `p${indexArg} append ${i}` })
    if (r.details.ok) ok++
    else failed.push(r.content[0].text.slice(0, 200))
  }
  console.log(JSON.stringify({ ok, failed: failed.slice(0, 3) }))
} else if (mode === 'maxima') {
  const plan = Array.from({ length: 20_000 }, (_, i) => (i % 100 === 0 ? `step${i / 100}` : 'plan')).join(' ').padEnd(100_000, '.').slice(0, 100_000)
  const notes = 'note '.repeat(20_000)
  const a = await tool.execute('call-plan', { action: 'set_plan', content: plan })
  const b = await tool.execute('call-notes', { action: 'set_notes', content: notes })
  console.log(JSON.stringify({ plan: { ok: a.details.ok, truncated: a.details.truncated, chars: a.details.usage.planChars }, notes: { ok: b.details.ok, chars: b.details.usage.notesChars }, tokens: b.details.usage.tokens, planText: plan, notesText: notes }))
} else if (mode === 'resume') {
  await store.ensureCurrent(sessionKey, { fromDisk: true })
  const usage = native.getScratchpadUsage(sessionKey)
  const block = native.getScratchpadContent(sessionKey) ?? ''
  console.log(JSON.stringify({ usage, block }))
}
