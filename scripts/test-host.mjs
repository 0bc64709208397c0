#!/usr/bin/env node
// `npm run test:host`: the plugin in plugin/ under the real OpenClaw host.
//
// The pinned `openclaw` release is installed from the npm registry into .cache/openclaw-host/ (once; see
// scripts/host.mjs), the plugin folder is copied as a user would install it (with this package's built
// binding beside it), and then, in a Node that OpenClaw accepts (>= 24.16; .tools/node24 on Node 20):
//   - OpenClaw's own loader (`loadOpenClawPlugins`) discovers, validates and registers the plugin;
//   - OpenClaw's tool resolution (`resolvePluginTools`) calls the tool factory with a session context, and the
//     tools run as the agent loop runs them: execute(toolCallId, params, signal, onUpdate);
//   - OpenClaw's embedded-runner code fires the hooks with its own event and context shapes: the prompt-hook
//     composition with the next-turn injection drain (`resolvePromptBuildHookResult`), the tool-result
//     middleware runner, and the before/after compaction hook runners.
// Nothing of OpenClaw is mocked. Internal functions are found by name in the pinned release's dist files.
//
// Prints `test:host: N passed, N failed` and how long it took. Exit 1 on any failure.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureOpenClaw, hostNode, openclawDir, OPENCLAW_VERSION, root } from './host.mjs'
import { copyPluginSources, createChecks, stopwatch } from './lib/harness.mjs'

const secs = stopwatch()

if (process.env.CONTEXT_NATIVE_HOST_CHILD !== '1') {
  ensureOpenClaw()
  const node = hostNode()
  const work = mkdtempSync(join(tmpdir(), 'context-native-host-'))
  // The plugin as a user installs it: its folder, and @openclaw/context-native in its node_modules.
  const pluginDir = join(work, 'extensions/context-native')
  try {
    copyPluginSources(root, pluginDir)
  } catch (e) {
    console.error(`test:host: ${e.message}`)
    process.exit(1)
  }
  for (const d of ['home', 'state', 'workspace']) mkdirSync(join(work, d))
  const r = spawnSync(node, [join(root, 'scripts/test-host.mjs')], {
    stdio: 'inherit',
    env: {
      ...process.env,
      CONTEXT_NATIVE_HOST_CHILD: '1',
      CONTEXT_NATIVE_HOST_WORK: work,
      HOME: join(work, 'home'),
      OPENCLAW_STATE_DIR: join(work, 'state'),
      NO_COLOR: '1',
    },
  })
  if (process.env.TEST_HOST_KEEP !== '1') rmSync(work, { recursive: true, force: true })
  else console.log(`kept ${work}`)
  console.log(`test:host: done in ${secs()} s (openclaw@${OPENCLAW_VERSION}, Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()})`)
  process.exit(r.status ?? 1)
}

// ---------------------------------------------------------------------------------------------------
// The child: runs under the host's Node with HOME / OPENCLAW_STATE_DIR in a temporary folder.
const { readFileSync, existsSync } = await import('node:fs')
const { createRequire } = await import('node:module')
const { pathToFileURL } = await import('node:url')
const assert = (await import('node:assert/strict')).default

const work = process.env.CONTEXT_NATIVE_HOST_WORK
const pluginDir = join(work, 'extensions/context-native')
const workspaceDir = join(work, 'workspace')
const stateDir = process.env.OPENCLAW_STATE_DIR
const dist = join(openclawDir, 'dist')

/** OpenClaw internals by the name they have in its source: the dist file defining it, and its export alias. */
async function internals(names) {
  const found = {}
  const wanted = new Map(names.map((n) => [n.name, n]))
  const pattern = new RegExp(`^(?:async )?function (${names.map((n) => n.name).join('|')})\\(`, 'gm')
  for (const file of readdirSync(dist)) {
    if (!file.endsWith('.mjs') || wanted.size === 0) continue
    const text = readFileSync(join(dist, file), 'utf8')
    for (const [, name] of text.matchAll(pattern)) {
      const spec = wanted.get(name)
      if (!spec) continue
      const exported = spec.via ?? name
      const m = text.match(new RegExp(`export \\{[^}]*\\b${exported} as (\\w+)`))
      if (!m) continue
      const mod = await import(pathToFileURL(join(dist, file)).href)
      found[name] = spec.via ? mod[m[1]][name] : mod[m[1]]
      wanted.delete(name)
    }
  }
  if (wanted.size) throw new Error(`not found in openclaw@${OPENCLAW_VERSION}'s dist: ${[...wanted.keys()].join(', ')}`)
  return found
}

const { check, results } = createChecks({ unit: 'ms', stackLines: 6 })

const oc = await internals([
  { name: 'loadOpenClawPlugins' },
  { name: 'resolvePluginTools' },
  { name: 'inspectRuntimeToolInputSchemas' },
  { name: 'createHookRunner' },
  { name: 'resolvePromptBuildHookResult' },
  { name: 'createAgentToolResultMiddlewareRunner' },
  { name: 'asCompactionHookRunner' },
  { name: 'runBeforeCompactionHooks', via: 'testing' },
  { name: 'runAfterCompactionHooks', via: 'testing' },
  { name: 'buildBeforeCompactionHookMetrics', via: 'testing' },
  { name: 'buildInboundUserContextPrefix' },
])
const { upsertSessionEntry } = await import(pathToFileURL(join(dist, 'plugin-sdk/session-store-runtime.js')).href)
// The binding, to read what the plugin wrote (checkpoints are files; its scratchpad registry lives in the
// plugin's own copy of the binding, which OpenClaw stages per load).
const native = createRequire(join(pluginDir, 'index.ts'))('@openclaw/context-native')
console.log(`openclaw@${OPENCLAW_VERSION} internals resolved (${secs()} s)`)

const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const agentId = 'main'
const sessionKey = 'agent:main:telegram:direct:4242'
const sessionId = 'host-test-session-1'
// What a user puts in openclaw.json: the plugin's folder, allowed, enabled, with conversation access for
// before_prompt_build / llm_output (non-bundled plugins need it), and its settings.
const config = {
  plugins: {
    allow: ['context-native'],
    load: { paths: [pluginDir] },
    entries: {
      'context-native': {
        enabled: true,
        hooks: { allowConversationAccess: true },
        config: { scratchpad: { nudgeAfterCompaction: 1 }, offload: { thresholdBytes: 4096 } },
      },
    },
  },
}
const logs = []
const logger = {
  debug: () => {},
  info: (m) => logs.push({ level: 'info', m }),
  warn: (m) => logs.push({ level: 'warn', m }),
  error: (m) => logs.push({ level: 'error', m }),
}

let registry
let hookRunner
let tools = []
const tool = (name) => tools.find((t) => t.name === name)
const text = (r) => r.content.map((c) => c.text).join('')
const userMessage = (t) => ({ role: 'user', content: [{ type: 'text', text: t }], timestamp: Date.now() })
const assistantMessage = (t) => ({ role: 'assistant', content: [{ type: 'text', text: t }], timestamp: Date.now() })
const hookCtx = (runId) => ({ runId, agentId, sessionKey, sessionId, workspaceDir, trigger: 'user', messageProvider: 'telegram', channel: 'telegram' })
const promptBuilds = []
async function buildPrompt(runId, prompt, messages) {
  const r = await oc.resolvePromptBuildHookResult({ config, prompt, messages, hookCtx: hookCtx(runId), hookRunner })
  promptBuilds.push(r)
  return r
}

console.log(`loading the plugin with OpenClaw's loader from ${pluginDir}`)
await check('loadOpenClawPlugins loads the plugin with no diagnostics or warnings', async () => {
  const t = Date.now()
  registry = oc.loadOpenClawPlugins({ config, workspaceDir, logger, cache: false })
  console.log(`       (loader: ${((Date.now() - t) / 1000).toFixed(1)} s)`)
  const record = registry.plugins.find((p) => p.id === 'context-native')
  assert.ok(record, 'the plugin is discovered')
  assert.equal(record.status, 'loaded', `status ${record.status}: ${record.error ?? ''}`)
  assert.deepEqual(registry.diagnostics, [], 'no loader diagnostics')
  assert.deepEqual(logs.filter((l) => l.level !== 'info'), [], 'no warnings or errors logged')
  const hooks = registry.typedHooks.filter((h) => h.pluginId === 'context-native').map((h) => h.hookName).sort()
  assert.deepEqual(hooks, ['after_compaction', 'after_tool_call', 'agent_end', 'before_compaction', 'before_prompt_build', 'before_reset', 'before_tool_call', 'llm_input', 'llm_output'])
  assert.equal(registry.sessionExtensions.filter((e) => e.pluginId === 'context-native').length, 1, 'the session extension')
  const middleware = registry.agentToolResultMiddlewares.filter((m) => m.pluginId === 'context-native')
  assert.deepEqual(middleware.map((m) => m.runtimes), [['openclaw', 'codex']], 'the tool-result middleware, for the openclaw runtime and the Codex harness')
  hookRunner = oc.createHookRunner(registry, { logger })
})

await check('resolvePluginTools builds the tools from the factory under provider-valid names and schemas', async () => {
  assert.ok(registry)
  // The session the tools belong to: OpenClaw's session store entry (the next-turn queue lives in it).
  await upsertSessionEntry({ agentId, sessionKey, entry: { sessionId, updatedAt: Date.now() } })
  tools = oc.resolvePluginTools({
    context: { config, workspaceDir, agentId, sessionKey, sessionId, messageChannel: 'telegram' },
    runtimeRegistry: registry,
  })
  const names = tools.map((t) => t.name).sort()
  assert.deepEqual(names, ['scratchpad_delete', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_read', 'scratchpad_write', 'session_scratchpad'])
  for (const t of tools) {
    assert.match(t.name, PROVIDER_TOOL_NAME)
    assert.equal(typeof t.execute, 'function')
    assert.equal(t.parameters.type, 'object')
  }
  // The input schemas pass the runtime's own projection (what it hands the providers).
  assert.deepEqual(oc.inspectRuntimeToolInputSchemas(tools), [])
  assert.equal(oc.inspectRuntimeToolInputSchemas([{ name: 'broken', parameters: 'nope' }]).length, 1, 'the inspector does reject a bad schema')
  const manifest = JSON.parse(readFileSync(join(pluginDir, 'openclaw.plugin.json'), 'utf8'))
  assert.deepEqual([...manifest.contracts.tools].sort(), names, 'contracts.tools names exactly the registered tools')
  // The built-in coding and messaging profiles send them (issue 28): toolMetadata as OpenClaw's manifest reader keeps it.
  for (const n of names) assert.deepEqual(manifest.toolMetadata?.[n]?.profiles, ['coding', 'messaging', 'full'], `${n}: its profiles`)
  // The scratchpad guidance is in the tool's own description (sent exactly when the tool is).
  assert.match(tool('session_scratchpad').description, /When to write:[\s\S]*Don't write:/, 'the guidance travels with the tool')
  // No session key, no tools: the factory never hands out a scratchpad shared between sessions.
  const none = oc.resolvePluginTools({ context: { config, workspaceDir, agentId }, runtimeRegistry: registry })
  assert.equal(none.filter((t) => names.includes(t.name)).length, 0)
})

await check('a scratchpad call reaches the next prompt through before_prompt_build prependContext', async () => {
  const r = await tool('session_scratchpad').execute('call-1', { action: 'set_plan', content: '1. Reproduce the auth bug\n2. Fix token refresh' }, undefined, undefined)
  assert.match(text(r), /plan/i)
  assert.equal(r.details.ok, true)
  // Two calls of one batch at once: both reach the registry and the persisted entry.
  const both = await Promise.all([
    tool('session_scratchpad').execute('call-1b', { action: 'append_notes', content: 'refresh token dropped on 401' }, undefined, undefined),
    tool('session_scratchpad').execute('call-1c', { action: 'refs.add', ref: 'docs/auth.md' }, undefined, undefined),
  ])
  assert.deepEqual(both.map((r) => r.details.ok), [true, true])
  assert.equal(tool('session_scratchpad').executionMode, 'sequential')
  const bad = await tool('session_scratchpad').execute('call-2', { action: 'nope' }, undefined, undefined)
  assert.equal(bad.details.ok, false, 'a malformed call is graded failed')
  const p = await buildPrompt('run-1', 'continue', [userMessage('fix the auth bug'), assistantMessage('on it')])
  assert.ok(p.prependContext?.includes('[Session Scratchpad - your persistent working memory]'), p.prependContext)
  assert.ok(p.prependContext.includes('2. Fix token refresh'))
  assert.equal(p.appendSystemContext, undefined, 'no guidance in the system prompt: it is in the tool description, sent only with the tool')
  assert.equal(p.systemPrompt, undefined, 'the system prompt is not replaced')
})

await check('the scratchpad survives a restart: a fresh load of the plugin restores it from disk', async () => {
  // A second load with OpenClaw's loader is a new plugin instance with a new copy of the binding (OpenClaw
  // stages each load), i.e. an empty scratchpad registry, as after a Gateway restart.
  const before = registry
  registry = oc.loadOpenClawPlugins({ config, workspaceDir, logger, cache: false })
  assert.notEqual(registry, before)
  assert.equal(registry.plugins.find((p) => p.id === 'context-native')?.status, 'loaded')
  hookRunner = oc.createHookRunner(registry, { logger })
  tools = oc.resolvePluginTools({ context: { config, workspaceDir, agentId, sessionKey, sessionId, messageChannel: 'telegram' }, runtimeRegistry: registry })
  const p = await buildPrompt('run-2', 'go on', [userMessage('fix the auth bug')])
  for (const part of ['2. Fix token refresh', 'refresh token dropped on 401', 'docs/auth.md']) assert.ok(p.prependContext?.includes(part), `restored from disk: ${part} in ${p.prependContext}`)
  const r = await tool('session_scratchpad').execute('call-2b', { action: 'refs.add', ref: 'src/auth.ts' }, undefined, undefined)
  assert.equal(r.details.ok, true)
  assert.equal(r.details.usage.planChars, '1. Reproduce the auth bug\n2. Fix token refresh'.length, 'the plan was restored before the call applied')
})

let observation
const big = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: ${'x'.repeat(20)} build log entry ${i + 1}`).join('\n')
await check('a tool result over 4 KB comes back from the middleware as the synthetic observation', async () => {
  assert.ok(Buffer.byteLength(big) > 4096)
  // A run whose model is not sent scratchpad_read (a profile, a deny) keeps its results whole (issue 28).
  await hookRunner.runLlmInput({ runId: 'run-2-denied', sessionId, provider: 'anthropic', model: 'claude-test', prompt: 'x', historyMessages: [], imagesCount: 0, tools: tools.filter((t) => t.name !== 'scratchpad_read') }, hookCtx('run-2-denied'))
  const denied = oc.createAgentToolResultMiddlewareRunner({ runtime: 'openclaw', agentId, sessionId, sessionKey, runId: 'run-2-denied' })
  const whole = await denied.applyToolResultMiddleware({ toolCallId: 'call-3d', toolName: 'exec', args: { command: 'npm run build' }, isError: false, result: { content: [{ type: 'text', text: big }], details: {} } })
  assert.equal(whole.content[0].text, big, 'not parked where scratchpad_read is not sent')
  // The run's tools as OpenClaw's llm_input hands them to the plugin, after its tool policy.
  await hookRunner.runLlmInput({ runId: 'run-2', sessionId, provider: 'anthropic', model: 'claude-test', prompt: 'x', historyMessages: [], imagesCount: 0, tools }, hookCtx('run-2'))
  const runner = oc.createAgentToolResultMiddlewareRunner({ runtime: 'openclaw', agentId, sessionId, sessionKey, runId: 'run-2' })
  const out = await runner.applyToolResultMiddleware({
    toolCallId: 'call-3',
    toolName: 'exec',
    args: { command: 'npm run build' },
    isError: false,
    result: { content: [{ type: 'text', text: big }], details: { exitCode: 0 } },
  })
  assert.equal(out.content.length, 1)
  observation = JSON.parse(out.content[0].text)
  assert.match(observation.scratchpad_id, /\S/)
  assert.equal(observation.size_bytes, Buffer.byteLength(big))
  assert.ok(out.content[0].text.length < 4096, 'what the model sees is small')
  const small = await runner.applyToolResultMiddleware({
    toolCallId: 'call-4',
    toolName: 'exec',
    args: { command: 'ls' },
    isError: false,
    result: { content: [{ type: 'text', text: 'a.txt\nb.txt' }], details: {} },
  })
  assert.equal(small.content[0].text, 'a.txt\nb.txt', 'a small result passes unchanged')
})

await check("under the Codex harness: a dynamic tool's large result is parked; Codex's PostToolUse relay (no isError, its result ignored by Codex) never parks", async () => {
  await hookRunner.runLlmInput({ runId: 'run-codex', sessionId, provider: 'openai', model: 'gpt-test', prompt: 'x', historyMessages: [], imagesCount: 0, tools }, hookCtx('run-codex'))
  const runner = oc.createAgentToolResultMiddlewareRunner({ runtime: 'codex', agentId, sessionId, sessionKey, runId: 'run-codex' })
  // OpenClaw's dynamic-tool bridge in @openclaw/codex: threadId, turnId and isError are set.
  const bridged = await runner.applyToolResultMiddleware({ threadId: 'th-1', turnId: 'tu-1', toolCallId: 'call-c1', toolName: 'ls', args: { path: 'logs' }, isError: false, result: { content: [{ type: 'text', text: big }], details: {} } })
  assert.match(JSON.parse(bridged.content[0].text).scratchpad_id, /\S/, 'parked')
  // The native hook relay's PostToolUse (runNativeHookRelayPostToolUse): no isError; a native tool, then a dynamic one.
  const native = await runner.applyToolResultMiddleware({ turnId: 'tu-1', toolCallId: 'call-c2', toolName: 'exec', args: { cmd: 'cat build.log' }, result: { content: [{ type: 'text', text: big }], details: {} } })
  assert.equal(native.content[0].text, big, 'a relayed native result is not parked')
  const dynamic = await runner.applyToolResultMiddleware({ turnId: 'tu-1', toolCallId: 'call-c1', toolName: 'openclaw_directls', args: { path: 'logs' }, result: { content: [{ type: 'text', text: big }], details: {} } })
  assert.equal(dynamic.content[0].text, big, 'nor the relay of a dynamic tool')
})

await check('scratchpad_read reads the parked result back by slice', async () => {
  assert.ok(observation)
  const range = await tool('scratchpad_read').execute('call-5', { scratchpad_id: observation.scratchpad_id, mode: 'range', start: 1000, end: 1100 }, undefined, undefined)
  // The slice, then where it sits in the entry (so the model can page on).
  assert.ok(text(range).startsWith(`${big.slice(1000, 1100)}\n\n[`), text(range).slice(0, 200))
  assert.match(text(range).slice(100), new RegExp(`^\\n\\n\\[characters 1000-1100 of ${big.length} in "[^"]+"; read on with offset=1100\\]$`))
  const lines = await tool('scratchpad_read').execute('call-6', { scratchpad_id: observation.scratchpad_id, mode: 'lines', start: 200, end: 201 }, undefined, undefined)
  assert.equal(text(lines).split('\n\n[lines ')[0].trimEnd(), big.split('\n').slice(199, 201).join('\n'))
  await assert.rejects(tool('scratchpad_read').execute('call-7', { scratchpad_id: 'obs_missing', mode: 'head' }, undefined, undefined), /no observation entry "obs_missing"/)
})

await check('a compaction leaves a checkpoint (before_compaction) and the restore reaches the next turn (after_compaction), in every prompt build of that run', async () => {
  const history = [userMessage('fix the auth bug in src/auth.ts'), assistantMessage('Reading src/auth.ts'), userMessage('continue'), assistantMessage('The refresh token is dropped on 401.')]
  await buildPrompt('run-3', 'continue', history) // the plugin's view of the context before the compaction
  const compactionHooks = oc.asCompactionHookRunner(hookRunner)
  const metrics = oc.buildBeforeCompactionHookMetrics({ originalMessages: history, currentMessages: history, estimateTokensFn: (m) => Math.ceil(JSON.stringify(m).length / 4) })
  const { hookSessionKey, missingSessionKey } = await oc.runBeforeCompactionHooks({ hookRunner: compactionHooks, sessionId, sessionKey, sessionAgentId: agentId, workspaceDir, messageProvider: 'telegram', metrics })
  const checkpointDirs = join(stateDir, 'context/checkpoints')
  assert.ok(existsSync(checkpointDirs), 'checkpoints under the OpenClaw state dir')
  const cp = native.readCheckpoint({ stateDir, sessionKey })
  assert.ok(cp, 'a checkpoint for the session')
  assert.equal(cp.meta?.trigger ?? cp.trigger, 'compaction')
  await oc.runAfterCompactionHooks({
    hookRunner: compactionHooks,
    sessionId,
    hookSessionKey,
    missingSessionKey,
    sessionAgentId: agentId,
    workspaceDir,
    messageProvider: 'telegram',
    messageCountAfter: 2,
    tokensAfter: 300,
    compactedCount: 2,
    sessionFile: join(work, 'session.jsonl'),
  })
  const next = await buildPrompt('run-4', 'where were we?', [userMessage('summary of earlier turns')])
  const restore = native.renderCheckpoint({ stateDir, sessionKey }, { mode: 'post-compaction', maxTokens: 800 })
  assert.ok(restore)
  assert.ok(next.prependContext?.includes(restore), 'the restore text is in the next prompt')
  assert.ok(next.prependContext.includes('2. Fix token refresh'), 'with the scratchpad')
  assert.match(next.prependContext, /\[Hint: Context was just compacted/, 'and the after-compaction nudge')
  // The Codex harness builds a turn's prompt again (same run id, OpenClaw's projection as the prompt) when it moves
  // the turn to a fresh native thread, and sends the last build: it still carries the restore and the nudge.
  const rebuilt = await buildPrompt('run-4', 'OpenClaw assembled context for this turn:\n<conversation_context>\n</conversation_context>\n\nCurrent user request:\nwhere were we?', [userMessage('summary of earlier turns')])
  assert.ok(rebuilt.prependContext?.includes(restore), "the restore in the same run's later build")
  assert.equal(rebuilt.prependContext.split('[Hint: Context was just compacted').length, 2, 'the nudge once in it')
  const after = await buildPrompt('run-5', 'ok', [userMessage('summary of earlier turns')])
  assert.ok(!after.prependContext?.includes(restore), 'the restore is injected once')
})

await check("a restore rendered for replace mode passes OpenClaw's own compaction summary audit (auditSummaryQuality)", async () => {
  // OpenClaw's compaction-safeguard quality helpers (REQUIRED_SUMMARY_SECTIONS, extractOpaqueIdentifiers,
  // auditSummaryQuality) are exposed only on a global its tests read: the chunk defining them is loaded once more
  // with VITEST set for the import, then the flag is put back.
  const file = readdirSync(dist).find((f) => f.endsWith('.mjs') && readFileSync(join(dist, f), 'utf8').includes('function auditSummaryQuality('))
  assert.ok(file, `auditSummaryQuality in openclaw@${OPENCLAW_VERSION}'s dist`)
  const had = process.env.VITEST
  process.env.VITEST = '1'
  try {
    await import(`${pathToFileURL(join(dist, file)).href}?summary-audit`)
  } finally {
    if (had === undefined) delete process.env.VITEST
    else process.env.VITEST = had
  }
  const api = globalThis[Symbol.for('openclaw.compactionSafeguardTestApi')]
  assert.equal(typeof api?.auditSummaryQuality, 'function', "OpenClaw's summary audit")
  // A chat as an assistant on a channel has it: a greeting first, the user's rules, a choice between the agent's
  // options, and exact values (a URL, a host:port, an order id, an amount) in the latest messages.
  const say = (role, t) => (role === 'user' ? userMessage(t) : assistantMessage(t))
  const messages = [
    say('user', 'hi'),
    say('assistant', 'Hello! How can I help you today?'),
    say('user', 'Set up a weekly report of our shop sales, sent to me every Monday. Never email the customers directly.'),
    say('assistant', `${'I can build the report from the orders export or from the payments dashboard. '.repeat(8)}\n\n1. Orders export\n2. Payments dashboard\n\nWhich one should I use?`),
    say('user', 'lets do 2'),
    say('assistant', 'Using the payments dashboard at https://pay.example.com/reports/weekly (API on api.shop.internal:8443).'),
    say('user', 'Keep the budget under $20/month for the tooling.'),
    say('assistant', 'Noted. The first report covers order 48213377 to today, total 1299.50 EUR.'),
    say('user', 'Now add the refunds to the report and send me a draft'),
    say('assistant', 'Adding refunds from https://pay.example.com/reports/refunds now.'),
  ]
  const key = 'agent:main:telegram:direct:audit'
  native.writeCheckpointSync({ stateDir, sessionKey: key, trigger: 'compaction', tokenUsage: { inputTokens: 150000, contextWindow: 200000 }, messages })
  const restore = native.renderCheckpoint({ stateDir, sessionKey: key }, { mode: 'post-compaction', maxTokens: 2000, asSummary: true })
  const messageText = (m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('\n')).trim()
  const identifiers = api.extractOpaqueIdentifiers(messages.slice(-10).map(messageText).filter(Boolean).join('\n'))
  assert.ok(identifiers.length >= 4, `identifiers to keep: ${identifiers}`)
  const latestAsk = messageText(messages.findLast((m) => m.role === 'user'))
  const audit = api.auditSummaryQuality({ summary: restore, structuralSummary: restore, identifiers, latestAsk })
  assert.deepEqual(audit, { ok: true, reasons: [] }, restore)
  assert.match(restore, /## Constraints\/Rules\n- Never email the customers directly\.\n- Keep the budget under \$20\/month for the tooling\.\n/, 'the rules the user set')
  assert.match(restore, /Task: Set up a weekly report/, 'the task, not the greeting')
  // the same audit fails a text without the sections: the check can fail
  assert.equal(api.auditSummaryQuality({ summary: 'Task: x', structuralSummary: 'Task: x', identifiers, latestAsk }).ok, false)
})

await check("a channel user's id, as OpenClaw's own inbound metadata gives it, is a value of the restore with the user's name, and the metadata is not", async () => {
  // a Telegram direct chat: each user message as OpenClaw's reply pipeline builds it, its context blocks
  // (buildInboundUserContextPrefix) before the user's words
  const channel = { Provider: 'telegram', Surface: 'telegram', OriginatingChannel: 'telegram', ChatType: 'direct', OriginatingTo: 'telegram:5479949022' }
  const sender = { SenderId: '5479949022', SenderName: 'Henri', SenderUsername: 'henri_p' }
  const wrapped = (words, id) => userMessage(`${oc.buildInboundUserContextPrefix({ ...channel, ...sender, MessageSid: id, Body: words })}\n\n${words}`)
  const first = wrapped('Send me the weekly sales report every Monday.', '42')
  assert.match(JSON.stringify(first), /5479949022/, "the host's block carries the sender's id")
  const messages = [first, assistantMessage('Scheduled: every Monday at 09:00, sent to you here.'), wrapped('Add the refunds to it.', '43'), assistantMessage('Added the refunds to the report.')]
  const key = 'agent:main:telegram:direct:5479949022'
  native.writeCheckpointSync({ stateDir, sessionKey: key, trigger: 'compaction', tokenUsage: { inputTokens: 150000, contextWindow: 200000 }, messages })
  const restore = native.renderCheckpoint({ stateDir, sessionKey: key }, { mode: 'post-compaction', maxTokens: 800 })
  assert.match(restore, /^Values: user Henri: 5479949022$/m, restore)
  assert.match(restore, /Task: Send me the weekly sales report every Monday\./, restore)
  assert.ok(!/openclaw:ctx|Conversation info|henri_p/.test(restore), restore)
})

await check("OpenClaw's memory flush (trigger 'memory', an internal session) is left alone: no prepend, no capture, no checkpoint, nothing on disk", async () => {
  // As OpenClaw 2026.9.6 runs it (src/auto-reply/reply/agent-runner-memory.ts): its own run id, an
  // `agent:<id>:internal-session-effects:<run>` key, `trigger: 'memory'` on the agent hooks only.
  const flushKey = 'agent:main:internal-session-effects:flush-run-0123456789abcdef'
  const flushCtx = { ...hookCtx('flush-run'), sessionKey: flushKey, sessionId: 'internal-session-effects-flush-run', trigger: 'memory' }
  const history = [userMessage('fix the auth bug in src/auth.ts'), assistantMessage('The refresh token is dropped on 401.')]
  const p = await oc.resolvePromptBuildHookResult({ config, prompt: 'Pre-compaction memory flush. Store durable memories now.', messages: history, hookCtx: flushCtx, hookRunner })
  promptBuilds.push(p)
  assert.ok(!p.prependContext, `nothing prepended: ${p.prependContext}`)
  assert.ok(!p.appendSystemContext, `no scratchpad guidance: ${p.appendSystemContext}`)
  const runner = oc.createAgentToolResultMiddlewareRunner({ runtime: 'openclaw', agentId, sessionId: flushCtx.sessionId, sessionKey: flushKey, runId: 'flush-run' })
  const out = await runner.applyToolResultMiddleware({ toolCallId: 'f1', toolName: 'read', args: { path: 'memory/today.md' }, isError: false, result: { content: [{ type: 'text', text: big }], details: {} } })
  assert.equal(out.content[0].text, big, 'its large read is not offloaded')
  const compactionHooks = oc.asCompactionHookRunner(hookRunner)
  const metrics = oc.buildBeforeCompactionHookMetrics({ originalMessages: history, currentMessages: history, estimateTokensFn: (m) => Math.ceil(JSON.stringify(m).length / 4) })
  await oc.runBeforeCompactionHooks({ hookRunner: compactionHooks, sessionId: flushCtx.sessionId, sessionKey: flushKey, sessionAgentId: agentId, workspaceDir, metrics })
  const dir = native.sessionDirName(flushKey)
  const written = ['checkpoints', 'state', 'observations', 'sessions'].flatMap((d) => (existsSync(join(stateDir, 'context', d)) ? readdirSync(join(stateDir, 'context', d)) : []).filter((f) => f.startsWith(dir)))
  assert.deepEqual(written, [], 'nothing under the package store for the flush session')
  // The session's own runs are untouched by it: its next prompt still has its scratchpad.
  const next = await buildPrompt('run-flush-after', 'go on', [userMessage('summary of earlier turns')])
  assert.ok(next.prependContext?.includes('2. Fix token refresh'), 'the session keeps its scratchpad')
})

await check('no hook result replaces the system prompt', async () => {
  assert.ok(promptBuilds.length >= 5, `${promptBuilds.length} prompt builds`)
  for (const p of promptBuilds) assert.equal(p.systemPrompt, undefined)
  const merged = await hookRunner.runBeforePromptBuild({ prompt: 'x', messages: [] }, hookCtx('run-6'))
  assert.equal(merged?.systemPrompt, undefined, 'the hook runner merges no systemPrompt')
  // And the plugin's own handler, called as the runner calls it, never returns the key at all.
  const own = registry.typedHooks.filter((h) => h.pluginId === 'context-native' && h.hookName === 'before_prompt_build')
  assert.equal(own.length, 1)
  const r = await own[0].handler({ prompt: 'x', messages: [userMessage('x')] }, hookCtx('run-7'))
  assert.ok(r && typeof r === 'object' && !('systemPrompt' in r), `handler result keys: ${Object.keys(r ?? {})}`)
  assert.ok(r.prependContext, 'it adds context instead')
})

await check('the gauge: llm_output gives the run\'s budget; over 80% the line says a checkpoint was saved', async () => {
  const ctx = { ...hookCtx('run-8') }
  await hookRunner.runLlmOutput({ runId: 'run-8', sessionId, provider: 'anthropic', model: 'claude-test', contextTokenBudget: 4000, assistantTexts: ['Reading the logs.'], usage: { input: 100, output: 20 } }, ctx)
  const long = Array.from({ length: 14 }, (_, i) => userMessage(`${'context '.repeat(240)} ${i}`)) // ~3.4k tokens of 4k
  const p = await buildPrompt('run-9', 'next', long)
  assert.match(p.prependContext ?? '', /\[Context: \d+% \| [\d.]+k\/4k tokens \| Checkpoint saved\]/, (p.prependContext ?? '').slice(-300))
  assert.equal(native.readCheckpoint({ stateDir, sessionKey })?.meta?.trigger ?? native.readCheckpoint({ stateDir, sessionKey })?.trigger, 'auto-80pct')
})

await check('/reset clears the session\'s scratchpad (before_reset), its persisted entry, checkpoints and observations', async () => {
  assert.ok(native.readCheckpoint({ stateDir, sessionKey }), 'a checkpoint before the reset')
  await hookRunner.runBeforeReset({ reason: 'reset' }, { agentId, sessionKey, sessionId })
  // Everything the package held for the session went with it (deleteSession, issue 23).
  assert.equal(native.readCheckpoint({ stateDir, sessionKey }), undefined, 'the checkpoint still reads after the reset')
  // Only the plugin's session record is written back: the compaction serial, so that a checkpoint after the reset
  // is never taken for an older one (issue 19). No tool result, no scratchpad, nothing of the conversation.
  const left = await native.listObservations({ stateDir, sessionKey, includeExpired: true })
  assert.deepEqual(left.map((o) => o.name), ['context-native-session'], 'observations left')
  const record = JSON.parse((await native.readObservation({ stateDir, sessionKey, name: 'context-native-session', mode: 'full' })).content)
  assert.ok(Object.keys(record).every((k) => ['sessionId', 'compactions', 'compactionSerial'].includes(k)) && record.compactions === 0, `the record holds nothing of the conversation: ${JSON.stringify(record)}`)
  const p = await buildPrompt('run-10', 'hello again', [userMessage('hello again')])
  assert.ok(!(p.prependContext ?? '').includes('Fix token refresh'), 'no scratchpad after the reset')
  const again = oc.loadOpenClawPlugins({ config, workspaceDir, logger, cache: false })
  hookRunner = oc.createHookRunner(again, { logger })
  const q = await buildPrompt('run-11', 'hello again', [userMessage('hello again')])
  assert.ok(!(q.prependContext ?? '').includes('Fix token refresh'), 'nothing restored from disk either')
})

await check('every setting of the manifest has the default the plugin applies (resolveSettings)', async () => {
  // The plugin module itself, imported with Node's type stripping; the SDK entry resolves to the pinned dist.
  const { registerHooks } = await import('node:module')
  const entry = pathToFileURL(join(dist, 'plugin-sdk/plugin-entry.js')).href
  registerHooks({ resolve: (spec, context, next) => (spec === 'openclaw/plugin-sdk/plugin-entry' ? { url: entry, shortCircuit: true } : next(spec, context)) })
  const mod = await import(pathToFileURL(join(pluginDir, 'index.ts')).href)
  const manifest = JSON.parse(readFileSync(join(pluginDir, 'openclaw.plugin.json'), 'utf8'))
  const resolved = mod.resolveSettings({})
  let checked = 0
  for (const [key, prop] of Object.entries(manifest.configSchema.properties)) {
    if (prop.type !== 'object') {
      if ('default' in prop) assert.deepEqual(resolved[key], prop.default, key)
      continue
    }
    assert.deepEqual(Object.keys(resolved[key]).sort(), Object.keys(prop.properties).sort(), `${key}: the same settings`)
    for (const [k, v] of Object.entries(prop.properties)) {
      assert.notEqual(v.default, undefined, `${key}.${k} has a default`)
      assert.deepEqual(resolved[key][k], v.default, `${key}.${k}`)
      checked++
    }
  }
  assert.ok(checked >= 15, `${checked} settings`)
  assert.equal(mod.default.id, manifest.id)
})

await check('with the scratchpad off: no session_scratchpad, no block, still no diagnostics', async () => {
  const off = structuredClone(config)
  off.plugins.entries['context-native'].config = { scratchpad: { enabled: false } }
  logs.length = 0
  const reg = oc.loadOpenClawPlugins({ config: off, workspaceDir, logger, cache: false })
  assert.equal(reg.plugins.find((p) => p.id === 'context-native')?.status, 'loaded')
  assert.deepEqual(reg.diagnostics, [])
  assert.deepEqual(logs.filter((l) => l.level !== 'info'), [])
  const offTools = oc.resolvePluginTools({ context: { config: off, workspaceDir, agentId, sessionKey, sessionId }, runtimeRegistry: reg })
  assert.deepEqual(offTools.map((t) => t.name), ['scratchpad_read', 'scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete'])
  const r = await oc.resolvePromptBuildHookResult({ config: off, prompt: 'x', messages: [userMessage('x')], hookCtx: hookCtx('run-12'), hookRunner: oc.createHookRunner(reg, { logger }) })
  assert.ok(!(r.prependContext ?? '').includes('[Session Scratchpad'))
  assert.equal(r.appendSystemContext, undefined, 'no scratchpad guidance either')
  assert.equal(r.systemPrompt, undefined)
})

await check('a state dir that cannot be written: the hooks log once with the code and the turn goes on', async () => {
  const broken = structuredClone(config)
  const file = join(work, 'not-a-dir')
  ;(await import('node:fs')).writeFileSync(file, 'a file where the state dir should be')
  broken.plugins.entries['context-native'].config = { stateDir: file }
  logs.length = 0
  const reg = oc.loadOpenClawPlugins({ config: broken, workspaceDir, logger, cache: false })
  const runner = oc.createHookRunner(reg, { logger })
  const build = () => oc.resolvePromptBuildHookResult({ config: broken, prompt: 'x', messages: [userMessage('x')], hookCtx: hookCtx('run-13'), hookRunner: runner })
  // Two prompt builds: neither throws (the turn goes on).
  await build()
  await build()
  const warned = logs.filter((l) => l.level === 'warn' && l.m.includes('context-native'))
  assert.ok(warned.length >= 1, 'a warning')
  const prompt = warned.filter((l) => l.m.includes('before_prompt_build'))
  assert.equal(prompt.length, 1, `logged once for two prompt builds: ${warned.map((l) => l.m).join(' | ')}`)
  assert.match(prompt[0].m, /failed \([A-Z]\w+\)/, 'with its code')
  assert.doesNotMatch(prompt[0].m, /failed \(Error\)/, `a stable code, not a bare Error: ${prompt[0].m}`)
})

await check('without hooks.allowConversationAccess OpenClaw blocks the prompt hooks (why setup sets it)', async () => {
  const bare = structuredClone(config)
  delete bare.plugins.entries['context-native'].hooks
  const reg = oc.loadOpenClawPlugins({ config: bare, workspaceDir, logger: { ...logger, warn: () => {} }, cache: false })
  const blocked = reg.diagnostics.filter((d) => d.pluginId === 'context-native').map((d) => d.message)
  assert.equal(blocked.length, 4, blocked.join('\n'))
  for (const hook of ['before_prompt_build', 'agent_end', 'llm_input', 'llm_output']) assert.ok(blocked.some((m) => m.includes(`"${hook}" blocked`) && m.includes('allowConversationAccess')), hook)
})

const failed = results.filter((r) => !r.ok).length
console.log(`test:host: ${results.length - failed} passed, ${failed} failed (${secs()} s in the host process)`)
process.exit(failed ? 1 : 0)
