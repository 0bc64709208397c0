// Child of benchmark/cases/plugin-turn.mjs, run by the Node OpenClaw needs (>= 24.16: it loads the plugin's
// TypeScript sources as they ship). Registers the plugin's real handlers on a recording API (the calls
// OpenClaw's loader makes: api.on, registerTool, registerAgentToolResultMiddleware, registerCompactionProvider,
// session.state.registerSessionExtension), then replays a long transcript turn by turn, timing the plugin's own
// work per turn: `before_prompt_build` with the conversation so far, the tool-result middleware on each tool
// result of the turn, and `agent_end` at its end (with the turn's one write of its captures, timed apart).
//
//   node plugin-turn.mjs <plugin dir (with node_modules)> <transcript.jsonl> <state dir>
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { report } from '../lib/child.mjs'

const [pluginDir, transcript, stateDir] = process.argv.slice(2)
const messages = readFileSync(transcript, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .filter((e) => e.type === 'message' && e.message?.role)
  .map((e) => e.message)

const hooks = {}
const middleware = []
const api = {
  id: 'context-native',
  pluginConfig: { stateDir },
  config: { agents: { defaults: { model: { primary: 'bench/m200' } } }, models: { providers: { bench: { models: [{ id: 'm200', contextWindow: 200_000 }] } } } },
  logger: { debug() {}, info() {}, warn: (m) => process.stderr.write(`${m}\n`), error: (m) => process.stderr.write(`${m}\n`) },
  runtime: { state: { resolveStateDir: () => stateDir } },
  session: { state: { registerSessionExtension() {} }, workflow: {} },
  on: (name, fn) => (hooks[name] = fn),
  registerTool() {},
  registerAgentToolResultMiddleware: (fn) => middleware.push(fn),
  registerCompactionProvider() {},
}
const { registerContextNative } = await import(pathToFileURL(join(pluginDir, 'index.ts')).href)
registerContextNative(api)
// The turn's captures are written once per turn, after it (agent_end, which OpenClaw does not await): the
// bench waits for that write to time it apart (on the libuv pool, off the turn's path).
const capture = await import(pathToFileURL(join(pluginDir, 'capture.ts')).href).catch(() => undefined)

const ctx = { sessionKey: 'agent:main:bench:plugin-turn', sessionId: 'bench-plugin-turn', agentId: 'main', modelProviderId: 'bench', modelId: 'm200' }
const prompt = []
const tools = []
const ends = []
const writes = []
/** The end of a turn as OpenClaw runs it: agent_end (not awaited by OpenClaw), then the background write. */
async function endTurn() {
  if (!hooks.agent_end) return
  const t = performance.now()
  await hooks.agent_end({ messages: history, success: true }, ctx)
  ends.push(performance.now() - t)
  if (capture?.flushCaptures) {
    const w = performance.now()
    await capture.flushCaptures(stateDir, ctx.sessionKey)
    writes.push(performance.now() - w)
  }
}
// Turns: each user message starts one; the tool results up to the next user message belong to it.
let history = []
let turnStarted = false
for (let i = 0; i < messages.length; i++) {
  const m = messages[i]
  if (m.role === 'user') {
    if (turnStarted) await endTurn()
    turnStarted = true
    const t = performance.now()
    await hooks.before_prompt_build({ prompt: m.content, messages: history }, ctx)
    prompt.push(performance.now() - t)
  }
  if (m.role === 'toolResult') {
    const t = performance.now()
    for (const fn of middleware) {
      await fn({ toolName: m.toolName ?? 'read', toolCallId: m.toolCallId ?? `c${i}`, args: {}, result: { content: Array.isArray(m.content) ? m.content : [{ type: 'text', text: String(m.content ?? '') }] }, isError: m.isError === true }, ctx)
    }
    tools.push(performance.now() - t)
  }
  history = [...history, m]
}
if (turnStarted) await endTurn()
report({ messages: messages.length, prompt, tools, ends, writes })
