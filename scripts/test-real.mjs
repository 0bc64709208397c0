#!/usr/bin/env node
// `npm run test:real`: the plugin in real OpenClaw agent runs, asserting on what the model receives.
//
// The pinned openclaw's own CLI (`openclaw agent --local --session-id ... --message ...`, one process per turn
// as users run it, and `openclaw agent` through a gateway started on 127.0.0.1) runs agent turns in a
// temporary OPENCLAW_STATE_DIR / HOME whose openclaw.json points a custom provider at a scripted
// OpenAI-compatible model server on 127.0.0.1 (scripts/lib/model-server.mjs). The server records every
// request body and answers from the scenario below with a realistic `usage`, which is what drives OpenClaw's
// and the plugin's token accounting. Nothing leaves the loopback interface. The plugin is installed by ONE
// function, `installPlugin`, so the way it gets into the state dir can change without touching the rest.
//
// Prints `test:real: N passed, N failed` and how long it took. Exit 1 on any failure.
// TEST_REAL_KEEP=1 keeps the temporary folder; TEST_REAL_VERBOSE=1 prints OpenClaw's output of every turn;
// TEST_REAL_ONLY=<text> runs only the checks whose name contains it; TEST_REAL_PACKED=0 loads the plugin's
// TypeScript sources by path instead of installing the packed tarballs (see installPlugin).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { ensureOpenClaw, hostNode, OPENCLAW_VERSION, root } from './host.mjs'
import { contentText, requestText, startModelServer } from './lib/model-server.mjs'
import { installedCli, installPackedPlugin, openclaw as runOpenClaw, packedTarballs } from './lib/install-plugin.mjs'
import { copyPluginSources, createChecks, freePort, readCheckpoints, startGateway, stopwatch } from './lib/harness.mjs'

/** The package's binding, to locate what the plugin wrote (its directory names). */
const native = createRequire(import.meta.url)('../index.js')
const secs = stopwatch()
const verbose = process.env.TEST_REAL_VERBOSE === '1'
/** One turn's process may not take longer than this (OpenClaw's own start is ~5-15 s on a busy machine). */
const TURN_TIMEOUT_MS = 120_000

const openclawDir = ensureOpenClaw()
const node = hostNode()
const openclawBin = join(openclawDir, 'openclaw.mjs')
const work = mkdtempSync(join(tmpdir(), 'context-native-real-'))
const workspace = join(work, 'workspace')
mkdirSync(workspace, { recursive: true })

// ---------------------------------------------------------------------------------------------------
// The plugin's installation: the packed tarballs (`npm run pack:local -- --host --from-build`; `npm test` packs
// them first) installed by OpenClaw's own `plugins install` from a local registry on 127.0.0.1, so the compiled
// entry in dist/plugin/ runs as a user's install does (the default), or with TEST_REAL_PACKED=0 the sources in a
// folder OpenClaw loads by path (no pack needed while working on plugin/). The install
// writes no `plugins.allow`, so OpenClaw's bundled plugins stay on as in a user's install (their tools too; the
// memory plugin runs its pre-compaction memory flush, an agent run of its own in an internal session before a
// compaction: `turn()` keeps it out of `chat`); the sources run under `plugins.allow: ['context-native',
// 'memory-core']`, so the memory plugin's flush runs there too.
// Returns `{ plugins }`: the `plugins` block openclaw.json needs.

/** The plugin as `openclaw plugins install` puts it into the state dir, from the packed tarballs. */
async function installPackedCopy() {
  const r = await installPackedPlugin({ stateDir, home })
  if (r.status !== 0 || !r.packageDir) throw new Error(`openclaw plugins install exited ${r.status}:\n${r.stderr.split('\n').slice(-12).join('\n')}`)
  const { plugins = {} } = JSON.parse(readFileSync(join(stateDir, 'openclaw.json'), 'utf8'))
  console.log(`  the plugin installed by openclaw plugins install into ${r.packageDir}`)
  return { plugins }
}

async function installPlugin() {
  if (process.env.TEST_REAL_PACKED !== '0') {
    packedTarballs() // throws with the command that makes them
    return installPackedCopy()
  }
  console.log('  the plugin loaded from its TypeScript sources by path (TEST_REAL_PACKED=0)')
  return { plugins: installSourceCopy() }
}

/** The sources in a folder OpenClaw loads by path, with @openclaw/context-native and the built binding. */
function installSourceCopy() {
  const pluginDir = join(work, 'extensions/context-native')
  copyPluginSources(root, pluginDir)
  // memory-core: the bundled memory plugin, whose pre-compaction flush runs the plugin must leave alone.
  return { allow: ['context-native', 'memory-core'], load: { paths: [pluginDir] } }
}

// ---------------------------------------------------------------------------------------------------
// The scripted model. Each user message of the test carries a tag `[tN]`; the scenario gives, per tag, the
// answers of the successive model calls of that turn (the step = tool results since the tagged message).
// A request without tools (OpenClaw's compaction summary) gets a summary.

const SUMMARY_TEXT = 'Summary of the earlier conversation: the user asked to fix the tokenizer in src/lexer.rs; the parser bug is in src/parse.rs.'
const turns = new Map()
const lastTag = (body) => {
  const msgs = body.messages ?? []
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i].role !== 'user') continue
    // The message's last tag: a restore prepended to the turn's message quotes an earlier turn's task and tag.
    const m = [...contentText(msgs[i].content).matchAll(/\[(t\d+)\]/g)].at(-1)
    if (m) return { tag: m[1], index: i }
  }
  return undefined
}
const isSummaryRequest = (body) => !(body.tools?.length > 0)
/**
 * OpenClaw's pre-compaction memory flush (the bundled memory plugin, memory-core, on by default in a user's
 * install and allowed with the sources): an agent run of its own (`trigger: 'memory'`) in an internal session
 * (`agent:main:internal-session-effects:...`), before the compaction, so it is no request of the turn's own
 * conversation.
 */
const isMemoryFlush = (body) => {
  const msgs = body.messages ?? []
  const last = msgs.findLast((m) => m.role === 'user')
  return last !== undefined && /Pre-compaction memory flush/.test(contentText(last.content))
}

/**
 * The heartbeat prompt the gateway heartbeat check configures (agents.defaults.heartbeat.prompt), as users of the
 * channel assistants write theirs: OpenClaw has no template for it, only its current-time block after it.
 */
const HEARTBEAT_PROMPT = 'If working, briefly report progress with time spent. If idle, read HEARTBEAT.md for instructions.'

/**
 * OpenClaw's heartbeat run (agents.defaults.heartbeat): its prompt (2026.9's default or the configured one;
 * `[OpenClaw heartbeat poll]` is what the transcript keeps of it) is a user message of the run's own, after the
 * conversation's last assistant message (before OpenClaw's internal-context block).
 */
const isHeartbeatPoll = (body) => {
  const msgs = body.messages ?? []
  const lastAssistant = msgs.findLastIndex((m) => m.role === 'assistant')
  return msgs.slice(lastAssistant + 1).some((m) => m.role === 'user' && (/^Follow the heartbeat monitor scratch context|\[OpenClaw heartbeat poll\]/.test(contentText(m.content)) || contentText(m.content).includes(HEARTBEAT_PROMPT)))
}

/**
 * OpenClaw's announce of a finished sub-agent (sessions_spawn) to its parent session: a run of the parent's own whose
 * internal-context block, after the conversation's last assistant message, is an `[Internal task completion event]`
 * that quotes the child's task, tag included. OpenClaw appends that block after the run's tool results at every
 * step, so read by its tag it would restart the child's script at step 0 on every call: a run that never ends, that
 * the gateway cannot drain when stopped and that the next gateway on the state dir resumes (restart recovery),
 * keeping the agent busy there (its heartbeat skipped every tick: requests in flight). It gets a final reply.
 */
const isTaskCompletion = (body) => {
  const msgs = body.messages ?? []
  const lastAssistant = msgs.findLastIndex((m) => m.role === 'assistant')
  return msgs.slice(lastAssistant + 1).some((m) => m.role === 'user' && contentText(m.content).includes('[Internal task completion event]'))
}

const server = await startModelServer(({ body }) => {
  if (isSummaryRequest(body)) return { text: SUMMARY_TEXT, usage: { prompt_tokens: 30_000, completion_tokens: 200 } }
  if (isTaskCompletion(body)) return { text: 'The sub-agent finished: the lexer starts with token_0.', usage: { prompt_tokens: 20_000 } }
  // A heartbeat run's poll: the legacy acknowledgement OpenClaw still accepts (heartbeat.md "Response contract").
  if (isHeartbeatPoll(body)) return { text: 'HEARTBEAT_OK', usage: { prompt_tokens: 20_000 } }
  const at = lastTag(body)
  if (!at) return { text: 'ok' }
  const step = (body.messages ?? []).slice(at.index + 1).filter((m) => m.role === 'tool').length
  const script = turns.get(at.tag) ?? []
  const answer = script[Math.min(step, script.length - 1)] ?? { text: 'ok' }
  return typeof answer === 'function' ? answer(body) : answer
})

// ---------------------------------------------------------------------------------------------------
// OpenClaw's config: the scripted provider with a 128k and a 200k model, the plugin, its settings.
const stateDir = join(work, 'state')
const home = join(work, 'home')
mkdirSync(stateDir, { recursive: true })
mkdirSync(home, { recursive: true })
const installed = await installPlugin()
const pluginsBlock = installed.plugins
const model = (id, contextWindow) => ({ id, name: id, reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow, maxTokens: 4096 })
function writeConfig({ toolSearch, pluginConfig = {}, compaction, gatewayPort, tools } = {}) {
  // What `plugins install` wrote besides the plugin (e.g. `meta`) is not carried: the config is the test's own.
  const ours = pluginsBlock.entries?.['context-native'] ?? {}
  const config = {
    agents: { defaults: { model: { primary: 'scripted/m128' }, workspace, ...(compaction ? { compaction } : {}) } },
    models: { mode: 'merge', providers: { scripted: { baseUrl: server.url, apiKey: 'test', api: 'openai-completions', models: [model('m128', 128_000), model('m200', 200_000)] } } },
    plugins: {
      ...pluginsBlock,
      entries: { ...pluginsBlock.entries, 'context-native': { ...ours, enabled: true, hooks: { allowConversationAccess: true }, config: { scratchpad: { nudgeAfterCompaction: 1 }, ...pluginConfig } } },
    },
    ...(toolSearch === false || tools ? { tools: { ...(toolSearch === false ? { toolSearch: false } : {}), ...tools } } : {}),
    ...(gatewayPort ? { gateway: { mode: 'local', bind: 'loopback', port: gatewayPort, auth: { mode: 'none' } } } : {}),
  }
  writeFileSync(join(stateDir, 'openclaw.json'), `${JSON.stringify(config, null, 2)}\n`)
}
const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: stateDir, OPENCLAW_CONFIG_PATH: join(stateDir, 'openclaw.json'), NO_COLOR: '1', OPENCLAW_NO_UPDATE_CHECK: '1' }

/** Runs one `openclaw` CLI process to its end (install-plugin.mjs's runner, in the workspace); `{ code, out, err, ms }`. */
async function openclaw(args, { timeoutMs = TURN_TIMEOUT_MS } = {}) {
  const t = Date.now()
  const r = await runOpenClaw(args, { stateDir, home, cwd: workspace, timeoutMs, env: { OPENCLAW_CONFIG_PATH: env.OPENCLAW_CONFIG_PATH, OPENCLAW_NO_UPDATE_CHECK: '1' } })
  const ms = Date.now() - t
  if (verbose) console.log(`       [openclaw ${args.slice(0, 4).join(' ')}] exit ${r.status} in ${ms} ms\n${r.stderr.split('\n').map((l) => `         ${l}`).join('\n')}`)
  return { code: r.status, out: r.stdout, err: r.stderr, ms }
}

/**
 * `openclaw(args)`, again (every 5 s, 60 s at most) while OpenClaw answers StateDatabaseCoordinatorContentionError: a
 * gateway just started owns its state database's lifecycle for a while (measured: `cron add` refused once in a full run).
 */
/**
 * `cron run <job> --wait`, run once: not retried as the idempotent calls are (openclawUncontended), since a CLI that
 * failed on the store's contention or its device identity after the gateway accepted the run would enqueue a second
 * one (two run sessions, seen under load). On such a failure the job's runs are polled until one succeeded; only when
 * none was enqueued is it run again.
 */
async function cronRunOnce(jobId) {
  const contended = (r) => /StateDatabaseCoordinatorContentionError|device identity required/.test(r.out + r.err)
  for (const t = Date.now(); ; ) {
    const ran = await openclaw(['cron', 'run', jobId, '--wait', '--wait-timeout', '150s', '--poll-interval', '1s'], { timeoutMs: 180_000 })
    if (ran.code === 0 || !contended(ran)) return ran
    let enqueued = false
    for (const w = Date.now(); Date.now() - w < 150_000; ) {
      const runs = await openclawUncontended(['cron', 'runs', jobId, '--json'])
      enqueued ||= runs.code === 0 && /"runId"\s*:/.test(runs.out)
      if (runs.code === 0 && /"completionStatus"\s*:\s*"succeeded"/.test(runs.out)) return { ...runs, code: 0 }
      if (runs.code === 0 && !enqueued) break
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
    if (enqueued || Date.now() - t > 60_000) return ran
  }
}

async function openclawUncontended(args, options) {
  for (const t = Date.now(); ; ) {
    const r = await openclaw(args, options)
    // (the CLI reads its device identity from a SQLite row under a coordinator; one that could not connects without it,
    // and the gateway refuses it: `device identity required`, seen under load with the real-host stages side by side)
    if (r.code === 0 || !/StateDatabaseCoordinatorContentionError|device identity required/.test(r.out + r.err) || Date.now() - t > 60_000) return r
    await new Promise((resolve) => setTimeout(resolve, 5000))
  }
}

/**
 * The task of a session's checkpoint as `openclaw-context replay` reads the session from OpenClaw's store, as a user's
 * replay does (a 2,000-token window, so that it checkpoints); asserts the replay succeeded.
 */
function replayedTask(sessionKey) {
  const dir = mkdtempSync(join(work, 'replay-'))
  const r = spawnSync(node, [join(root, 'bin/openclaw-context.mjs'), 'replay', stateDir, sessionKey, '--window', '2000', '--json', '--state-dir', dir], { encoding: 'utf8' })
  assert.equal(r.status, 0, `replay of ${sessionKey} from OpenClaw's store: ${r.stderr.slice(-400)}`)
  const working = native.readCheckpoint({ stateDir: dir, sessionKey: JSON.parse(r.stdout).sessionKey })?.working
  return working?.task ?? `(no task: ${JSON.stringify(working)})`
}

/** One agent turn; returns the requests the model received during it. */
async function turn(session, message, { local = true, modelRef } = {}) {
  const before = server.requests.length
  // A session id (`--session-id`, key agent:main:explicit:<id>) or a key (`agent:...`, `--session-key`).
  const target = session.startsWith('agent:') ? ['--session-key', session] : ['--session-id', session]
  const args = ['agent', ...(local ? ['--local'] : []), ...target, '--message', message, '--json', '--timeout', '90', ...(modelRef ? ['--model', modelRef] : [])]
  const r = await openclaw(args)
  const requests = server.requests.slice(before)
  if (r.code !== 0) throw new Error(`openclaw agent exited ${r.code} (${r.ms} ms): ${r.err.split('\n').slice(-8).join(' | ')}`)
  const chat = requests.filter((q) => !isSummaryRequest(q.body) && !isMemoryFlush(q.body))
  return { ...r, requests, chat, summaries: requests.filter((q) => isSummaryRequest(q.body)), flushes: requests.filter((q) => isMemoryFlush(q.body)) }
}

/** The request's messages but the system prompt (whose guidance names the scratchpad's markers). */
const conversationText = (body) => requestText({ messages: (body.messages ?? []).filter((m) => m.role !== 'system') })
const toolNames = (req) => (req.body.tools ?? []).map((t) => t.function?.name).sort()
const lastUserText = (req) => {
  const msgs = req.body.messages ?? []
  // The turn's own user content: everything after the last assistant message.
  let i = msgs.length - 1
  while (i > 0 && msgs[i - 1].role !== 'assistant') i--
  return msgs.slice(i).filter((m) => m.role === 'user').map((m) => contentText(m.content)).join('\n')
}
/**
 * What a request after a compaction holds beside the restore: OpenClaw's summary (its message) and the messages it
 * kept after it, up to the turn's own user message (which carries the restore).
 */
const inView = (req) => {
  const msgs = req.body.messages ?? []
  const at = msgs.findIndex((m) => contentText(m.content).includes('compacted into the following summary'))
  let turn = msgs.length - 1
  while (turn > 0 && msgs[turn - 1].role !== 'assistant') turn--
  const kept = msgs.slice(at + 1, turn).map((m) => `${contentText(m.content)}\n${JSON.stringify(m.tool_calls ?? [])}`).join('\n')
  return { summary: at >= 0 ? contentText(msgs[at].content) : '', kept }
}
/** The `## Exact identifiers` section of a restore (its names, files and commands), empty without one. */
const identifiersOf = (restore) => (restore.split('## Exact identifiers')[1] ?? '').split('</checkpoint-data>')[0]
const toolResultText = (req, n = 1) => {
  const tools = (req.body.messages ?? []).filter((m) => m.role === 'tool')
  return contentText(tools[tools.length - n]?.content)
}
/** A slice scratchpad_read returned, without the line saying where it sits in the entry (plugin/entries.ts). */
const readSlice = (text) => text.split('\n\n[characters ')[0]
/** The `scratchpad_id` of the last offloaded result the request carries. */
const observationId = (body) => {
  const tools = (body.messages ?? []).filter((m) => m.role === 'tool')
  const m = contentText(tools[tools.length - 1]?.content).match(/"scratchpad_id":\s*"([^"]+)"/)
  return m ? m[1] : 'missing'
}
/**
 * What the plugin wrote for OpenClaw's internal sessions (the memory flush's): every file or folder under the
 * package's store named after an `agent:<id>:internal-session-effects:` key. Empty when the flush was left alone.
 */
const internalSessionPaths = () => {
  const found = []
  const walk = (dir, depth) => {
    if (depth > 4 || !existsSync(dir)) return
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.includes('internal-session-effects')) found.push(join(dir, e.name).slice(stateDir.length + 1))
      else if (e.isDirectory()) walk(join(dir, e.name), depth + 1)
    }
  }
  walk(join(stateDir, 'context'), 0)
  return found
}
/** The memory flush's requests carry nothing of the plugin: no gauge line, scratchpad, restore or guidance. */
function assertFlushLeftAlone(flushes) {
  for (const f of flushes) {
    const prompt = lastUserText(f)
    assert.doesNotMatch(prompt, /\[Context: \d+%/, `no gauge line in the memory flush's prompt: ${prompt.slice(0, 400)}`)
    assert.ok(!prompt.includes(SCRATCHPAD_MARK), `no scratchpad block in the memory flush's prompt: ${prompt.slice(0, 400)}`)
    assert.ok(!prompt.includes(RESTORE_MARK), 'no restore in the memory flush')
    const system = (f.body.messages ?? []).filter((m) => m.role === 'system').map((m) => contentText(m.content)).join('\n')
    assert.ok(!system.includes('## Session Scratchpad'), "no scratchpad guidance in the memory flush's system prompt")
    assert.ok(!toolNames(f).includes('session_scratchpad'), `no scratchpad tool in the memory flush: ${toolNames(f).join(', ')}`)
  }
  assert.deepEqual(internalSessionPaths(), [], 'nothing written for the internal session of a memory flush (no checkpoint, record or state)')
}
const checkpoints = (sessionKey) => readCheckpoints(native, stateDir, sessionKey)
/**
 * `openclaw-context doctor --json` on the state dir as a user runs it (the installed copy's CLI, OpenClaw's config
 * read through its own CLI): `{ status, report, text }`, `text` the verdicts one per line for a failure's message.
 */
function doctor() {
  const r = installedCli('doctor', ['--json'], { stateDir, home, env: { OPENCLAW_CONFIG_PATH: env.OPENCLAW_CONFIG_PATH } })
  let report
  try {
    report = JSON.parse(r.stdout)
  } catch {
    throw new Error(`doctor printed no JSON (exit ${r.status}): ${r.stdout}${r.stderr}`)
  }
  const text = report.verdicts.map((v) => `${v.status} ${v.capability}: ${v.reason}${v.fix ? ` [fix: ${v.fix}]` : ''}`).join('\n')
  if (verbose) console.log(text.replace(/^/gm, '       '))
  return { status: r.status, report, text }
}
const verdictOf = (report, capability) => report.verdicts.find((v) => v.capability === capability)

// ---------------------------------------------------------------------------------------------------
// The compacted conversation, kept (issue 49): a value only the compacted turns held, searched after the compaction.
/** A small config file (under the 4 KB a result is parked from): its error line is what the model greps for. */
const DEV_ENV = 'config/dev.env'
const ERROR_LINE = 'LAST_ERROR="listen EADDRINUSE: address already in use 127.0.0.1:48213 (pid 7731 still holds it)"'
/** The restore's history line (crates/history restore_line): the entry, and the call that greps all history. */
const HISTORY_LINE = /\[Messages? #\d+(?:-#\d+)? compacted: (history-\d+) \([\d.]+ [KM]?B\)\. Grep all: scratchpad_read (\{"name":"history","pattern":"<regex>"\})\]/
/**
 * The request of a turn (by its tag) that carries the result of its first call: found by the tag and a tool result
 * after it, not by its place, since a gateway may serve another session's run between the two requests.
 */
const requestAfterCall = (chat, tag) => {
  const found = chat.find((q) => {
    const at = lastTag(q.body)
    return at?.tag === tag && (q.body.messages ?? []).slice(at.index + 1).some((m) => m.role === 'tool')
  })
  assert.ok(found, `a request of [${tag}] after its call: ${chat.map((q) => `${lastTag(q.body)?.tag ?? '-'}:${(q.body.messages ?? []).length} messages`).join(', ')}`)
  return found
}
/**
 * The scripted model reading the restore's history line: the call it names, with the regex filled in (a text answer
 * saying so when the request has no such line, which the checks then catch).
 */
const grepFromHistoryLine = (pattern) => (body) => {
  const m = requestText(body).match(HISTORY_LINE)
  if (!m) return { text: 'There is no history line to follow.', usage: { prompt_tokens: 30_000 } }
  return { toolCalls: [{ name: 'scratchpad_read', arguments: { ...JSON.parse(m[2]), pattern } }] }
}
/**
 * Two turns of a session: the first reads DEV_ENV and ends with a long report past the 128k window's threshold, so that
 * OpenClaw compacts (its kept tail short: `keepRecentTokens` 2000 in the config); the second's model follows the
 * restore's history line and greps the history for the error. Asserts the value was compacted out of the context,
 * the line is there, and the tool result holds the line exactly.
 */
async function compactAndGrep(session, tags, what) {
  turns.set(tags[0], [
    { toolCalls: [{ name: 'read', arguments: { path: DEV_ENV } }] },
    { text: `${'The staging API could not start; the port was taken by an older process, which the config notes. '.repeat(60)}\n\nI will restart it next.`, usage: { prompt_tokens: 121_000 } },
  ])
  turns.set(tags[1], [grepFromHistoryLine('EADDRINUSE'), { text: 'The port 48213 is held by pid 7731.', usage: { prompt_tokens: 30_000 } }])
  const a = await turn(session, `[${tags[0]}] Why does the staging API not start?`)
  assert.ok(toolResultText(a.chat[1]).includes(ERROR_LINE), `${what}: the read returned the file whole: ${toolResultText(a.chat[1]).slice(0, 300)}`)
  const b = await turn(session, `[${tags[1]}] Which process holds the port?`)
  assert.ok([...a.requests, ...b.requests].some((q) => isSummaryRequest(q.body)) || requestText(b.chat[0].body).includes(RESTORE_MARK), `${what}: OpenClaw compacted`)
  const prompt = lastUserText(b.chat[0])
  assert.ok(prompt.includes(RESTORE_MARK), `${what}: the restore after the compaction: ${prompt.slice(0, 400)}`)
  assert.ok(!conversationText(b.chat[0].body).includes('pid 7731 still holds it'), `${what}: the error line was compacted out of the context`)
  const line = prompt.match(HISTORY_LINE)
  assert.ok(line, `${what}: the restore ends with the history line: ${prompt.slice(-400)}`)
  assert.ok(prompt.trimEnd().split('\n').some((l) => l === line[0]), `${what}: the history line on a line of its own`)
  assert.equal(native.countTokens(line[0]) <= 40, true, `${what}: the history line costs at most 40 tokens`)
  const result = toolResultText(requestAfterCall(b.chat, tags[1]))
  assert.ok(result.includes(ERROR_LINE), `${what}: the grep's result holds the line exactly: ${result.slice(0, 600)}`)
  assert.match(result, new RegExp(`== ${line[1]} ==\\n(?:.*\\n)*?\\d+:\\[#\\d+ tool read [-\\dT:Z]+\\] ${ERROR_LINE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `${what}: with the entry, the message's index, role and time: ${result.slice(0, 600)}`)
  return { a, b, entry: line[1] }
}

// ---------------------------------------------------------------------------------------------------
// TEST_REAL_ONLY=<text>: only the checks whose name contains it (for working on one scenario; a|b: either).
const { check, results } = createChecks({ only: process.env.TEST_REAL_ONLY })

const RESTORE_MARK = '[Post-compaction checkpoint restore]'
const SCRATCHPAD_MARK = '[Session Scratchpad'
const BIG_FILE = 'src/lexer.rs'
const OTHER_FILE = 'src/other.rs'
const bigText = Array.from({ length: 400 }, (_, i) => `fn token_${i}(input: &str) -> Token { /* line ${i} of the lexer */ Token::Ident(input.to_string()) }`).join('\n')
mkdirSync(join(workspace, 'src'), { recursive: true })
writeFileSync(join(workspace, BIG_FILE), bigText)
writeFileSync(join(workspace, OTHER_FILE), bigText.replaceAll('lexer', 'other'))
mkdirSync(join(workspace, 'config'), { recursive: true })
writeFileSync(join(workspace, DEV_ENV), `# staging API\nAPI_HOST=127.0.0.1\nAPI_PORT=48213\n${ERROR_LINE}\n`)

console.log(`openclaw@${OPENCLAW_VERSION} CLI, Node ${process.versions.node} driving ${node}; model server ${server.url}; work ${work}`)

try {
  // ==== --local, Tool Search default, 128k model ====================================================
  writeConfig()
  const S = 'real-local-1'
  const KEY = `agent:main:explicit:${S}`
  turns.set('t1', [
    { toolCalls: [{ name: 'session_scratchpad', arguments: { action: 'set_plan', content: '1. read src/lexer.rs\n2. fix the tokenizer\n3. run the tests' } }] },
    { toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] },
    (body) => ({ toolCalls: [{ name: 'scratchpad_read', arguments: { scratchpad_id: observationId(body), mode: 'range', start: 0, end: 200 } }] }),
    // Through Tool Search's bridge, as a model does for a cataloged tool: the middleware sees `tool_call`.
    { toolCalls: [{ name: 'tool_call', arguments: { id: 'read', args: { path: OTHER_FILE } } }] },
    { text: 'I read the lexer; the tokenizer is next.', usage: { prompt_tokens: 92_000 } },
  ])
  let t1
  await check('--local turn 1: the tools are direct under Tool Search (default), the plan is set, a large read is offloaded and read back by slices, a read through the tool_call bridge is seen through', async () => {
    t1 = await turn(S, '[t1] Fix the tokenizer in src/lexer.rs: it splits identifiers on digits.')
    const first = t1.chat[0]
    assert.ok(first, 'the model received a request')
    const names = toolNames(first)
    assert.ok(names.includes('tool_search') && names.includes('tool_call'), `Tool Search is on by default: ${names.join(', ')}`)
    assert.ok(names.includes('session_scratchpad'), `session_scratchpad is sent directly: ${names.join(', ')}`)
    assert.ok(names.includes('scratchpad_read'), `scratchpad_read is sent directly: ${names.join(', ')}`)
    assert.match(contentText(first.body.messages[0].content), /session_scratchpad/, 'the guidance in the system prompt names the tool')
    assert.ok(t1.chat.length >= 5, `five model calls in the turn (got ${t1.chat.length})`)
    assert.match(toolResultText(t1.chat[1]), /plan/i, 'the scratchpad tool ran')
    const observation = toolResultText(t1.chat[2])
    assert.match(observation, /scratchpad_id/, `the large read came back as an observation: ${observation.slice(0, 200)}`)
    assert.ok(observation.length < 2000, 'the observation is small')
    assert.equal(toolResultText(t1.chat[3]).split('\n\n[characters ')[0], bigText.slice(0, 200), 'scratchpad_read returns the slice, not a new observation')
    assert.match(toolResultText(t1.chat[3]), /\[characters 0-200 of \d{5} in "read_\d+"; read on with offset=200\]$/, 'and where it sits in the entry')
    const bridged = toolResultText(t1.chat[4])
    assert.match(bridged, /"scratchpad_id"/, `the bridged read came back as an observation: ${bridged.slice(0, 200)}`)
    assert.match(bridged, /"name": "read_\d+"/, 'named after the inner tool, not tool_call')
  })

  await check('--local turn 2 (a new process): the scratchpad is resumed from disk and the gauge line shows 70 %+ of the 128k window', async () => {
    turns.set('t2', [{ text: 'Working on the tokenizer.', usage: { prompt_tokens: 104_000 } }])
    const t = await turn(S, '[t2] Go on.')
    const user = lastUserText(t.chat[0])
    assert.ok(user.includes(SCRATCHPAD_MARK), `the scratchpad block reaches the model: ${user.slice(0, 300)}`)
    assert.match(user, /fix the tokenizer/, 'with the plan set in turn 1')
    assert.match(user, /\[Context: 7\d% \| \d+k\/128k tokens\]/, `the gauge line: ${user.slice(-300)}`)
    assert.equal(checkpoints(KEY).length, 0, 'no checkpoint yet')
  })

  let t3requests = []
  await check('--local turn 3: at 80 % of 128k the checkpoint is written once and the gauge says so', async () => {
    turns.set('t3', [{ text: 'Tokenizer patched in `splitIdentifier`; running the tests next.', usage: { prompt_tokens: 112_000 } }])
    const t = await turn(S, '[t3] Continue.')
    t3requests = t.requests
    const user = lastUserText(t.chat[0])
    assert.match(user, /\[Context: 8\d% \| \d+k\/128k tokens \| Checkpoint saved\]/, `the gauge line: ${user.slice(-300)}`)
    const cps = checkpoints(KEY)
    assert.equal(cps.length, 1, 'one checkpoint')
    assert.match(cps[0], /trigger: "auto-80pct"/)
    assert.match(cps[0], /lexer\.rs/, 'it names the file read')
  })

  await check('--local turn 4: OpenClaw compacts; the first model request after it carries the restore, exactly once', async () => {
    turns.set('t4', [{ text: 'Tests pass.', usage: { prompt_tokens: 40_000 } }])
    // OpenClaw compacts after turn 3 (its usage passed window - 20k) or before this turn's prompt.
    const t = await turn(S, '[t4] Run the tests.')
    const all = [...t3requests, ...t.requests]
    const summaryAt = all.findIndex((q) => isSummaryRequest(q.body))
    assert.ok(summaryAt >= 0, `OpenClaw compacted (a summary request arrived): ${all.length} requests`)
    const after = all.slice(summaryAt + 1).filter((q) => !isSummaryRequest(q.body))
    assert.ok(after.length > 0, 'a model request after the compaction')
    assert.ok(requestText(after[0].body).includes(RESTORE_MARK), `the first request after compaction has the restore: ${lastUserText(after[0]).slice(0, 400)}`)
    assert.match(lastUserText(after[0]), /Fix the tokenizer|tokenizer/, 'with the task')
    assert.match(lastUserText(after[0]), /\[Hint: Context was just compacted/, 'and the scratchpad nudge after compaction')
    // The checkpoint read the whole context (no provider: OpenClaw's before_compaction names no messages), the
    // turns OpenClaw kept too; rendered at this prompt build, a name a kept message states is not said again.
    const { summary, kept } = inView(after[0])
    assert.ok(kept.includes('splitIdentifier') && !summary.includes('splitIdentifier'), `t3's reply is kept, not summarized: ${kept.slice(0, 600)}`)
    assert.doesNotMatch(identifiersOf(lastUserText(after[0])), /splitIdentifier/, `a name a kept message states is not repeated: ${lastUserText(after[0])}`)
    const later = after.slice(1).filter((q) => lastUserText(q).includes(RESTORE_MARK))
    assert.equal(later.length, 0, 'and only once')
    const cps = checkpoints(KEY)
    const c = cps.find((y) => /trigger: "compaction"/.test(y))
    assert.ok(c, 'a compaction checkpoint')
    assert.match(c, /tokenizer/i, 'its task')
    assert.match(c, /lexer\.rs/, 'its files')
    assert.match(c, /\n {2}identifiers:\n(?: {4}- .*\n)*? {4}- "splitIdentifier"\n/, `the name of a kept turn among its identifiers: ${c.slice(c.indexOf('identifiers:'), c.indexOf('identifiers:') + 400)}`)
    assert.match(c, /run the tests/i, 'its plan')
    assert.match(c, /other\.rs/, 'the file read through the tool_call bridge')
    assert.doesNotMatch(c, /- "tool_call"/, 'the bridge is not taken for a tool the agent used')
    assert.match(c, /context_window: 128000/, "the session model's window")
    const flushes = all.filter((q) => isMemoryFlush(q.body))
    assert.ok(flushes.length > 0, 'the memory plugin ran its pre-compaction flush')
    assertFlushLeftAlone(flushes)
  })

  await check('--local turn 4, then openclaw-context doctor: after a turn and a compaction every verdict is ok (exit 0), from the records of the real runs', () => {
    const { status, report, text } = doctor()
    assert.equal(status, 0, text)
    assert.deepEqual(report.verdicts.filter((v) => v.status !== 'ok'), [], text)
    assert.match(verdictOf(report, 'restore').reason, new RegExp(`last restore delivered .*\\(${KEY}, compaction \\d+\\)`), text)
    assert.match(verdictOf(report, 'scratchpad').reason, /last prompt build .*the block was prepended/, text)
    assert.match(verdictOf(report, 'gauge').reason, /128,000-token window/, text)
    assert.match(verdictOf(report, 'offloading').reason, /[1-9]\d* results? parked, [1-9]\d* read back/, text)
    assert.match(verdictOf(report, 'checkpoints').reason, /\(compaction\).*from before_compaction/, text)
    assert.deepEqual(report.warnings, [], 'no warning recorded')
  })

  // ==== --local, Tool Search default: seed 004's named entries and seed 003's references ==============
  // The entry tools are in Tool Search's catalog (called through `tool_call`), scratchpad_read is direct. A named
  // entry is written, searched by regex, edited; a parked read and the entry are passed by reference to `write`;
  // an unknown reference is refused. The turn ends past 108k of the 128k window: OpenClaw compacts, and the next
  // turn (a new process) reads the entry by offset/limit, lists the entries and deletes it.
  writeConfig()
  const SE = 'real-entries'
  const FINDINGS = Array.from({ length: 40 }, (_, i) =>
    i % 10 === 3 ? `ERROR finding ${i}: the lexer drops digits (TODO fix)` : `note ${i}: identifiers are split at position ${i * 7}`,
  ).join('\n')
  const EDITED = FINDINGS.replaceAll('TODO', 'DONE')
  // A line of the parked read that its summary (first and last 500 characters) does not show.
  const MIDDLE = 'fn token_200(input'
  const bridge = (id, args) => ({ toolCalls: [{ name: 'tool_call', arguments: { id, args } }] })
  /** The inner tool's text of a `tool_call` result (its envelope: `{ tool, result: { content } }`), else the text. */
  const innerText = (text) => {
    try {
      return JSON.parse(text).result.content.map((c) => c.text ?? '').join('\n')
    } catch {
      return text
    }
  }
  let e1
  await check('--local entries and references: scratchpad_write / read by regex / edit through Tool Search, a parked read and an entry passed by {{observation:...}} to write hold every byte, an unknown reference refused', async () => {
    turns.set('t40', [
      bridge('scratchpad_write', { name: 'findings', content: FINDINGS }),
      { toolCalls: [{ name: 'scratchpad_read', arguments: { name: 'findings', regex: '^ERROR' } }] },
      bridge('scratchpad_edit', { name: 'findings', old_string: 'TODO', new_string: 'DONE', replace_all: true }),
      { toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] },
      (body) => ({ toolCalls: [{ name: 'write', arguments: { path: 'copy.rs', content: `{{observation:${observationId(body)}}}` } }] }),
      bridge('write', { path: 'findings.txt', content: 'Findings:\n{{observation:findings}}' }),
      { toolCalls: [{ name: 'write', arguments: { path: 'bad.txt', content: '{{observation:no_such_entry}}' } }] },
      { text: 'Copied.', usage: { prompt_tokens: 120_000 } },
    ])
    e1 = await turn(SE, '[t40] Keep the findings and copy the lexer.')
    const names = toolNames(e1.chat[0])
    assert.ok(names.includes('session_scratchpad') && names.includes('scratchpad_read'), `session_scratchpad and scratchpad_read are direct: ${names.join(', ')}`)
    for (const n of ['scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete']) assert.ok(!names.includes(n), `${n} stays in Tool Search's catalog: ${names.join(', ')}`)
    assert.ok(e1.chat.length >= 8, `eight model calls (got ${e1.chat.length})`)
    assert.match(innerText(toolResultText(e1.chat[1])), /^Saved "findings" \(\d+ characters, 40 lines\)/, `written through the bridge: ${toolResultText(e1.chat[1]).slice(0, 300)}`)
    const grep = toolResultText(e1.chat[2])
    assert.match(grep, /^4:ERROR finding 3: the lexer drops digits \(TODO fix\)\n14:ERROR finding 13/, `read by name and regex: ${grep.slice(0, 300)}`)
    assert.match(grep, /\[4 matching line\(s\) of 40 in "findings"\]$/)
    assert.match(innerText(toolResultText(e1.chat[3])), /^Edited "findings": 4 replacements/, toolResultText(e1.chat[3]).slice(0, 300))
    // The parked read is the read tool's whole result (OpenClaw's read caps a file at its own limit and says so).
    const parkedId = observationId(e1.chat[4].body)
    const parked = native.readObservationSync({ stateDir, sessionKey: `agent:main:explicit:${SE}`, id: parkedId, mode: 'full' }).content
    assert.ok(parked.startsWith(bigText.slice(0, 1000)) && parked.length > 20_000, `the parked read of ${BIG_FILE}: ${parked.length} characters`)
    assert.equal(readFileSync(join(workspace, 'copy.rs'), 'utf8'), parked, 'the parked read, passed by reference, written whole')
    assert.equal(readFileSync(join(workspace, 'findings.txt'), 'utf8'), `Findings:\n${EDITED}`, 'the edited entry, by name through the bridge')
    assert.ok(!existsSync(join(workspace, 'bad.txt')), 'no file from an unknown reference')
    assert.match(toolResultText(e1.chat[7]), /\{\{observation:no_such_entry\}\} names no entry of this session's scratchpad/, `refused with the reason: ${toolResultText(e1.chat[7]).slice(0, 300)}`)
    for (const q of e1.chat) assert.ok(!conversationText(q.body).includes(MIDDLE), 'no request carries the expansion')
    const calls = JSON.stringify(e1.chat.at(-1).body.messages.filter((m) => m.role === 'assistant'))
    assert.match(calls, /\{\{observation:[0-9a-f]{16}\}\}/, "the model's own call keeps its reference")
    // The turn's captures, buffered and written once after it (agent_end, or the exit of the turn's process).
    const state = native.readContextStateSync({ stateDir, sessionKey: `agent:main:explicit:${SE}` })
    assert.ok(state.filesRead.includes(BIG_FILE), `the turn's read is in the state files after its process ended: ${JSON.stringify(state.filesRead)}`)
    assert.ok(state.filesModified.includes('copy.rs') && state.filesModified.includes('findings.txt'), `and its writes: ${JSON.stringify(state.filesModified)}`)
    assert.ok(state.toolsUsed.includes('scratchpad_write'), `and its tools, the bridged ones by their own name: ${JSON.stringify(state.toolsUsed)}`)
  })

  await check('--local entries after a compaction, in a new process: the restore names the saved entry; read by name with offset/limit, listed, deleted', async () => {
    turns.set('t41', [
      { toolCalls: [{ name: 'scratchpad_read', arguments: { name: 'findings', offset: 10, limit: 40 } }] },
      bridge('scratchpad_list', {}),
      bridge('scratchpad_delete', { name: 'findings' }),
      { toolCalls: [{ name: 'scratchpad_read', arguments: { name: 'findings' } }] },
      { text: 'Done.', usage: { prompt_tokens: 30_000 } },
    ])
    const t = await turn(SE, '[t41] Check the findings again.')
    assert.ok([...(e1?.requests ?? []), ...t.requests].some((q) => isSummaryRequest(q.body)) || requestText(t.chat[0].body).includes(RESTORE_MARK), 'OpenClaw compacted between the turns')
    assert.ok(requestText(t.chat[0].body).includes(RESTORE_MARK), 'the restore reached the first request after the compaction')
    // it tells the model what it saved, so that it reads the entry back by name (seed 004)
    assert.match(requestText(t.chat[0].body), /Saved entries \(scratchpad_read by name\): findings \(\d+ chars, 40 lines\)/, `the restore names the saved entry: ${requestText(t.chat[0].body).slice(-1500)}`)
    assert.equal(toolResultText(t.chat[1]), `${EDITED.slice(10, 50)}\n\n[characters 10-50 of ${EDITED.length} in "findings"; read on with offset=50]`, 'read by name with offset/limit')
    const list = innerText(toolResultText(t.chat[2]))
    assert.match(list, /- findings \(id [0-9a-f]{16}\): \d+ characters, 40 lines, created /, `listed: ${list.slice(0, 400)}`)
    assert.match(list, /- read_\d+ \(id [0-9a-f]{16}\): [^\n]*from read/, 'with the parked read')
    assert.doesNotMatch(list, /- read_\d+ [^\n]*expires/, 'which has no lifetime of its own (it goes with the session)')
    assert.doesNotMatch(list, /context-native-/, "the plugin's own entries are not listed")
    assert.match(innerText(toolResultText(t.chat[3])), /^Deleted "findings"/)
    assert.match(toolResultText(t.chat[4]), /"status": "error"[\s\S]*no observation entry \\"findings\\"/, `gone: ${toolResultText(t.chat[4]).slice(0, 300)}`)
  })

  // ==== --local: the compacted conversation kept and searched (issue 49) ===============================
  writeConfig({ compaction: { keepRecentTokens: 2000 } })
  await check('--local history: after a compaction the model follows the restore\'s history line and greps the compacted turns; the result holds the error line exactly', async () => {
    const { entry } = await compactAndGrep('real-history', ['t80', 't81'], 'default profile')
    const kept = native.readObservationSync({ stateDir, sessionKey: 'agent:main:explicit:real-history', name: entry, mode: 'head', n: 300 }).content
    assert.match(kept, new RegExp(`^\\[${entry}: the messages #1-#\\d+ a compaction`), `the entry says what it holds: ${kept}`)
  })

  // ==== --local, Tool Search off, 200k model: the gauge at 70 % and the checkpoint at 80 % ===========
  // The compaction provider selected in 'default' mode: the exact messages checkpointed, OpenClaw's LLM summary kept.
  writeConfig({ toolSearch: false, compaction: { provider: 'context-native' } })
  const S2 = 'real-local-200k'
  const KEY2 = `agent:main:explicit:${S2}`
  await check('--local, tools.toolSearch false, 200k model: the tools are sent directly, the gauge shows 70 % then 80 % with its checkpoint; the provider in default mode keeps OpenClaw\'s summary', async () => {
    turns.set('t7', [{ toolCalls: [{ name: 'session_scratchpad', arguments: { action: 'append_notes', content: 'The parser bug is in src/parse.rs line 40.' } }] }, { text: 'Noted: `tokenizeBlock` next.', usage: { prompt_tokens: 145_000 } }])
    turns.set('t8', [{ text: 'Still going.', usage: { prompt_tokens: 165_000 } }])
    turns.set('t9', [{ text: 'ok', usage: { prompt_tokens: 186_000 } }])
    const a = await turn(S2, '[t7] Find the parser bug.', { modelRef: 'scripted/m200' })
    const names = toolNames(a.chat[0])
    assert.ok(!names.includes('tool_search'), `no Tool Search: ${names.join(', ')}`)
    assert.ok(names.includes('session_scratchpad') && names.includes('scratchpad_read'), `the tools: ${names.join(', ')}`)
    const b = await turn(S2, '[t8] Go on.', { modelRef: 'scripted/m200' })
    assert.match(lastUserText(b.chat[0]), /\[Context: 7\d% \| \d+k\/200k tokens\]/, `the gauge at 70 %: ${lastUserText(b.chat[0]).slice(-300)}`)
    assert.match(lastUserText(b.chat[0]), /parse\.rs line 40/, 'the scratchpad notes')
    const c = await turn(S2, '[t9] Go on.', { modelRef: 'scripted/m200' })
    assert.match(lastUserText(c.chat[0]), /\[Context: 8\d% \| \d+k\/200k tokens \| Checkpoint saved\]/, `the gauge at 80 %: ${lastUserText(c.chat[0]).slice(-300)}`)
    const cps = checkpoints(KEY2)
    const auto = cps.filter((y) => /trigger: "auto-80pct"/.test(y))
    assert.equal(auto.length, 1, 'one 80 % checkpoint')
    assert.match(auto[0], /context_window: 200000/)
    // Turn 9 ended past 180k (200k - 20k): OpenClaw compacts (after that turn or before the next one), asking
    // the plugin's provider, which returns nothing in 'default' mode, so OpenClaw makes its own summary call.
    turns.set('t16', [{ text: 'Resumed.', usage: { prompt_tokens: 40_000 } }])
    const d = await turn(S2, '[t16] Go on.', { modelRef: 'scripted/m200' })
    assert.match(c.err + d.err, /Compaction provider "context-native" returned empty result, falling back to LLM/, 'after asking the plugin')
    // OpenClaw's own summary, not the restore, is the compaction summary. Whether making it costs a model call
    // depends on where OpenClaw cuts: measured on the packed copy after another session in the workspace, the
    // cut fell on t8's message and the one turn before it was kept verbatim in a structured summary with no
    // model call; alone (the cut on a custom entry, a split turn) the turn prefix was summarized by a call.
    const summary = (d.chat[0].body.messages ?? []).map((m) => contentText(m.content)).find((t) => t.includes('compacted into the following summary'))
    assert.ok(summary, `the first request after the compaction carries OpenClaw's summary: ${requestText(d.chat[0].body).slice(0, 600)}`)
    assert.ok(!summary.includes(RESTORE_MARK), 'the summary is OpenClaw\'s, not the restore')
    if (d.summaries.length + c.summaries.length === 0) console.log('       (OpenClaw made its summary without a model call)')
    assert.ok(lastUserText(d.chat[0]).includes(RESTORE_MARK), 'the restore follows OpenClaw\'s summary')
    // Rendered again at this prompt build knowing OpenClaw's summary: a name the summary states is not said twice,
    // the others are (the checkpoint holds both).
    const restore = lastUserText(d.chat[0]).split(RESTORE_MARK)[1].split('</checkpoint-data>')[0]
    const held = inView(d.chat[0])
    for (const [name, re] of [['src/parse.rs', /src\/parse\.rs/], ['tokenizeBlock', /tokenizeBlock/]]) {
      if (re.test(held.summary) || re.test(held.kept)) assert.doesNotMatch(identifiersOf(restore), re, `${name}, which OpenClaw's summary or a kept message states, is not repeated: ${restore}`)
      else assert.match(identifiersOf(restore), re, `${name}, which neither the summary nor a kept message states, is in the restore: ${restore}`)
    }
    const compaction = checkpoints(KEY2).find((y) => /trigger: "compaction"/.test(y))
    assert.ok(compaction, 'a compaction checkpoint from the compacted messages')
    assert.match(compaction, /Find the parser bug/, 'its task')
    assert.match(compaction, /src\/parse\.rs[\s\S]*tokenizeBlock|tokenizeBlock[\s\S]*src\/parse\.rs/, 'both names in the checkpoint')
    // The session runs m200 (--model) while the default is m128: the compaction's hooks carry no model, the
    // window is the session's (200k) in the checkpoint.
    assert.match(compaction, /context_window: 200000/, `the session model's window, not the default's: ${compaction.match(/context_window: \d+/)?.[0]}`)
    const flushes = [...c.flushes, ...d.flushes]
    assert.ok(flushes.length > 0, 'the memory plugin ran its pre-compaction flush')
    assertFlushLeftAlone(flushes)
  })

  // ==== --local, compaction.mode 'replace' (the provider selected): the restore is the summary ========
  // Tool Search off: exec is sent directly (its failure is the call's own result, not the bridge's).
  writeConfig({ toolSearch: false, pluginConfig: { compaction: { mode: 'replace' } }, compaction: { provider: 'context-native', keepRecentTokens: 2000 } })
  const S3 = 'real-local-replace'
  // a job id only the listing's output states (the command builds it from its digits reversed), in a table as a CLI
  // prints one (`openclaw cron list`: the id column as wide as the id, then the job's name): 350 lines after it (over a
  // short result's 2,000 characters, under the 4,096 bytes that are parked). The command names a field as code
  // (`tenant_shards`): a name the agent's next command may need (issue 51); the variable it binds to read it
  // (`shardCount`) is the snippet's own
  const JOB_ID = '5f0c2a9e-8d31-4c7b-9a52-3e1f6b0d7c48'
  const LIST_JOBS = `node -e "const h='${[...JOB_ID.replaceAll('-', '')].reverse().join('')}'.split('').reverse().join(''); const shardCount = new Map([['tenant_shards', 1]]).get('tenant_shards'); console.log('ID                                   Name             Schedule   Shards'); console.log([h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join('-') + ' tenant-backfill  0 2 * * *  ' + shardCount); for (let i = 0; i < 350; i++) console.log('row ' + i)"`
  const SENT_REPORT = 'Schema migration drafted for the tenant split; the backfill runs next'
  const COMMIT_BODY = 'Batches of 500 keep each transaction under the lock timeout.'
  const NOTE_LINE = 'The users table keeps its 14 columns and gains the tenant id.'
  const PROGRESS_NOTE = 'The tenant counts wait on the shard map export.'
  const PROGRESS_PLAN = [
    { step: 'Draft the schema migration', status: 'completed' },
    { step: 'Backfill in batches of 500', status: 'in_progress' },
    { step: 'Verify the tenant counts', status: 'pending' },
  ]
  await check("--local, compaction.mode 'replace': no summary model call, the summary is the restore from the compacted messages, not injected twice", async () => {
    turns.set('t10', [
      { toolCalls: [{ name: 'session_scratchpad', arguments: { action: 'set_plan', content: '1. migrate the schema\n2. backfill the rows' } }] },
      // a function the agent's write defines: the restore names it as people do, `backfillUserRows()` (issue 21)
      { toolCalls: [{ name: 'write', arguments: { path: 'backfill.ts', content: 'export function backfillUserRows(batch: string[]) {\n  return batch.length\n}\n' } }] },
      // committed: git's `[branch hash] subject` is progress in the agent's own words (issue 27, "progress"), and the
      // message's body what it did and why (issue 51)
      { toolCalls: [{ name: 'exec', arguments: { command: `git init -q . && git add backfill.ts && git -c user.name=ctx -c user.email=ctx@example.com commit -m 'feat: backfill user rows in batches' -m '${COMMIT_BODY}'` } }] },
      // a note the agent keeps in a prose document: what it wrote of its work, in the Progress (issue 51)
      { toolCalls: [{ name: 'write', arguments: { path: 'NOTES.md', content: `# Backfill\n\n${NOTE_LINE}\n` } }] },
      // a listing longer than a short result (its ids are data, not what a call returned), then the agent naming one
      // of its ids by the first digits, as agents do in a report: the restore gives the full id (issue 27)
      { toolCalls: [{ name: 'exec', arguments: { command: LIST_JOBS } }] },
      { text: `The backfill job is ${JOB_ID.slice(0, 8)}... in that listing.`, toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] },
      // a command that fails, a file written, the command passing: a finding (issue 27, "a failure and what fixed it")
      { toolCalls: [{ name: 'exec', arguments: { command: 'sh check-backfill.sh' } }] },
      { toolCalls: [{ name: 'write', arguments: { path: 'check-backfill.sh', content: 'echo backfill ok\n' } }] },
      { toolCalls: [{ name: 'exec', arguments: { command: 'sh check-backfill.sh' } }] },
      // and one that fails, the turn ending after it: history once the user asks something else (issue 27)
      { toolCalls: [{ name: 'exec', arguments: { command: 'ls old-tenants.mjs' } }] },
      // a report sent with OpenClaw's message tool (a channel assistant's reply): the agent's words, in the Progress
      { toolCalls: [{ name: 'message', arguments: { action: 'send', message: SENT_REPORT } }] },
      // a long report that asks nothing: the user's short reply to it is a decision (seed 001, 7.2; issue 27)
      { text: `${'The users table has 14 columns; the schema keeps them and adds the tenant id. '.repeat(8)}\n\nThe migration is written.`, usage: { prompt_tokens: 60_000 } },
    ])
    turns.set('t19', [{ text: 'Noted.', usage: { prompt_tokens: 62_000 } }])
    turns.set('t20', [
      // the new plan on OpenClaw's own progress card: its open steps are the next action, its done one progress
      { toolCalls: [{ name: 'progress_card', arguments: { plan: PROGRESS_PLAN, markdown: PROGRESS_NOTE } }] },
      // one that fails in the current turn and stays so: OpenClaw's exec reports its exit code, not an error, and
      // it is one all the same
      { toolCalls: [{ name: 'exec', arguments: { command: 'ls verify-tenants.mjs' } }] },
      // a script that throws: the class of its error, in the result only, is an exact identifier (the exact error of
      // what is blocked)
      { toolCalls: [{ name: 'exec', arguments: { command: `node -e "JSON.parse('{tenants')"` } }] },
      // OpenClaw's tools return what they throw as `{status: "error", tool, error}`: what failed is the details'
      // error, not the first and last lines of that JSON (`{ … }`) (crates/state failure_text)
      { toolCalls: [{ name: 'read', arguments: { path: 'tenant-map.json' } }] },
      { toolCalls: [{ name: 'web_fetch', arguments: { url: 'http://127.0.0.1:9/tenants' } }] },
      // at 81 % of 128k: the next prompt build writes the checkpoint at 80 %, which empties the state files
      { text: 'Writing the backfill.', usage: { prompt_tokens: 104_000 } },
    ])
    // a short reply (no request: the failures above are still the turn's): the checkpoint at 80 % is written before
    // it, and the compaction's must still have what failed before that one (seed 001, 7.3)
    turns.set('t21', [{ text: 'Still on it.', usage: { prompt_tokens: 113_000 } }])
    turns.set('t11', [{ text: 'Backfilling.', usage: { prompt_tokens: 30_000 } }])
    // the report and the reply are compacted (a short kept tail): the decision is in the messages the checkpoint reads
    const earlier = [await turn(S3, '[t10] Migrate the users table schema.'), await turn(S3, '[t19] keep the old table for a week')]
    // a change of plan before the compaction: the task is the new one, the first said to be what it changed (issue 51)
    const a = await turn(S3, '[t20] Actually, backfill in batches of 500 instead.')
    const ok = await turn(S3, '[t21] ok')
    for (const e of [...earlier, ok]) a.summaries.push(...e.summaries), a.flushes.push(...e.flushes)
    const b = await turn(S3, '[t11] Continue.')
    const summaries = [...a.summaries, ...b.summaries]
    assert.equal(summaries.length, 0, 'OpenClaw made no summary model call')
    // With the memory plugin on (the packed install), its flush runs before the compaction: no restore in it yet.
    assert.ok(a.flushes.length + b.flushes.length > 0, 'the memory plugin ran its pre-compaction flush')
    assertFlushLeftAlone([...a.flushes, ...b.flushes])
    const first = b.chat[0]
    const text = requestText(first.body)
    assert.equal(text.split(RESTORE_MARK).length - 1, 1, `the restore exactly once in the first request after compaction: ${text.slice(-1500)}`)
    // the summary ends with the one line naming the history of the compacted messages (issue 49)
    const lines = text.match(new RegExp(HISTORY_LINE.source, 'g')) ?? []
    assert.equal(lines.length, 1, `one history line in the replace-mode summary: ${text.slice(-800)}`)
    assert.match(text, /\nTask: \[t20\] Actually, backfill in batches of 500 instead\. \(the user changed the plan\)\nChanged from: \[t10\] Migrate the users table schema\.\n/, `with the task as the user changed it: ${text.slice(text.indexOf('## Goal'), text.indexOf('## Goal') + 400)}`)
    // every path as the agent gave it, whole: the file it read relative to its working directory (issue 51)
    assert.match(text, /\nFiles (?:read|modified|\(relative to the working directory\)): (?:[^\n]*, )?src\/lexer\.rs(?:, |\n)/, `the file read, as given: ${text.slice(text.indexOf('## Exact identifiers'), text.indexOf('## Exact identifiers') + 500)}`)
    assert.doesNotMatch(text.slice(text.indexOf('## Exact identifiers')), /^Files[^\n]*[{}]/m, 'no path folded into braces')
    assert.match(text, /backfill the rows/, 'and the plan')
    // OpenClaw's progress card, the plan after the change: its open steps next, its done step progress (issue 51)
    assert.match(text, /\n- Next action: 1\. Backfill in batches of 500; 2\. Verify the tenant counts\n/, `the progress card's open steps as the next action: ${text.slice(text.indexOf('## Open TODOs'), text.indexOf('## Open TODOs') + 400)}`)
    assert.match(text.slice(text.indexOf('## Progress'), text.indexOf('## Decisions')), /\n- done: Draft the schema migration\n/, `the step it marked done, in the Progress: ${text.slice(text.indexOf('## Progress'), text.indexOf('## Progress') + 800)}`)
    assert.ok(text.slice(text.indexOf('## Progress'), text.indexOf('## Decisions')).includes(`\n- ${PROGRESS_NOTE}\n`), `and the card's note, the agent's own status: ${text.slice(text.indexOf('## Progress'), text.indexOf('## Progress') + 1200)}`)
    assert.match(text, /Identifiers: [^\n]*backfillUserRows\(\)/, 'and the function its write defined')
    // the class of the error the script threw (in its result only) is an identifier of the compaction's checkpoint;
    // the summary says it (here with the failure left open)
    const compacted = checkpoints(`agent:main:explicit:${S3}`).find((y) => /trigger: "compaction"/.test(y)) ?? ''
    assert.match(compacted, /\n  identifiers:\n(?:    - .*\n)*    - "SyntaxError"\n/, `the error's class among the checkpoint's identifiers: ${compacted.match(/\n  identifiers:\n(?:    - .*\n)*/)?.[0]}`)
    assert.match(text, /SyntaxError: Expected property name/, 'and the summary says it')
    assert.match(text, /## Progress\n[^#]*\n- committed [0-9a-f]{7} on [^\s:]+: feat: backfill user rows in batches\n/, `and what the agent committed: ${text.slice(text.indexOf('## Progress'), text.indexOf('## Progress') + 600)}`)
    assert.ok(text.slice(text.indexOf('## Progress'), text.indexOf('## Decisions')).includes(`\n- ${COMMIT_BODY}\n`), `and why, in its commit's message: ${text.slice(text.indexOf('## Progress'), text.indexOf('## Progress') + 1200)}`)
    assert.ok(text.slice(text.indexOf('## Progress'), text.indexOf('## Decisions')).includes(`\n- ${NOTE_LINE}\n`), `and the note it wrote in a prose document: ${text.slice(text.indexOf('## Progress'), text.indexOf('## Progress') + 1600)}`)
    // the full id of the job the agent named by its first digits, with what it is: its name in the listing's row
    assert.match(text, new RegExp(`\\nValues: [^\\n]*tenant-backfill: ${JOB_ID}`), `and the full id of the job the agent named by its first digits, named as the listing names it: ${text.slice(text.indexOf('## Exact identifiers'), text.indexOf('## Exact identifiers') + 900)}`)
    // the parked read's JSON carries its tool call's id (metadata.toolCallId): plumbing, never an identifier
    assert.doesNotMatch(text.match(/Identifiers: [^\n]*/)?.[0] ?? '', /\bcall_\d+_\d+\b/, 'no tool call id among the identifiers')
    // the summary has the sections of OpenClaw's own compaction contract, in its order (issue 27)
    assert.match(text, /## Decisions\n[\s\S]*## Open TODOs\n[\s\S]*## Constraints\/Rules\n[\s\S]*## Pending user asks\n[\s\S]*## Exact identifiers\n/, 'in the sections of OpenClaw\'s summary contract')
    // the user's reply to the report is under `## Decisions`, with what the agent reported last
    assert.match(text, /\n- `sh check-backfill\.sh` failed \([^\n]*Command exited with code \d+\)?\); passed later, after changing check-backfill\.sh\n/, `the finding: ${text.slice(text.indexOf('Learnings'), text.indexOf('Learnings') + 400)}`)
    assert.match(text, /## Open TODOs\n[^#]*- Unresolved tool failure: exec ls verify-tenants\.mjs: [^\n]*Command exited with code 2\)?\n/, `the failed command, open: ${text.slice(text.indexOf('## Goal'), text.indexOf('## Goal') + 1500)}`)
    const todos = text.slice(text.indexOf('## Open TODOs'), text.indexOf('## Constraints/Rules'))
    assert.match(todos, /\n- Unresolved tool failure: read tenant-map\.json: File not found: [^\n]*tenant-map\.json/, `the tool that threw, with what it said: ${todos}`)
    assert.match(todos, /\n- Unresolved tool failure: web_fetch http:\/\/127\.0\.0\.1:9\/tenants: (?!\{ … \})(?!SECURITY NOTICE)[^\n]{12,}/, `the fetch that failed, with what it said, not OpenClaw's notice around it: ${todos}`)
    // OpenClaw wraps what a fetch returned in markers with a random id each (wrapExternalContent): host text, no
    // value of the conversation's
    const markers = [...new Set([...JSON.stringify([...a.chat, ...b.chat].map((q) => q.body)).matchAll(/EXTERNAL_UNTRUSTED_CONTENT id=\\*"([0-9a-f]{16})/g)].map((m) => m[1]))]
    assert.ok(markers.length > 0, 'the fetch result the model was sent has the host\'s markers')
    const summaryText = text.slice(text.indexOf('## Goal'))
    assert.deepEqual(markers.filter((id) => summaryText.slice(0, summaryText.indexOf('</checkpoint-data>')).includes(id)), [], `no marker id in the summary: ${summaryText.slice(summaryText.indexOf('## Exact identifiers'), summaryText.indexOf('## Exact identifiers') + 600)}`)
    assert.doesNotMatch(text, /Unresolved tool failure: exec ls old-tenants/, 'the failure of a turn the user moved on from is no TODO')
    // what the agent sent with the message tool is what it said: in the Progress, as it wrote it
    assert.match(text.slice(text.indexOf('## Progress'), text.indexOf('## Decisions')), new RegExp(`\\n- ${SENT_REPORT.split('; ')[0]}`), `the report the agent sent: ${text.slice(text.indexOf('## Progress'), text.indexOf('## Progress') + 800)}`)
    // made before the user changed the plan (t20): said so (issue 51)
    assert.match(text, /## Decisions\n- \(before the plan changed\) [^\n]*keep the old table for a week \(re: The migration is written\.\)/, `the decision, made before the plan changed: ${text.slice(text.indexOf('## Decisions'), text.indexOf('## Decisions') + 300)}`)
    // a name the listing's command wrote as code is among the names the checkpoint on disk keeps (issue 51)
    const written = checkpoints(`agent:main:explicit:${S3}`)
    const compaction = written.find((y) => /trigger: "compaction"/.test(y))
    assert.ok(compaction, 'a compaction checkpoint')
    // the failures above were bundled by the checkpoint at 80 % before it, and are still open in it
    assert.ok(written.some((y) => /trigger: "auto-80pct"/.test(y) && /Unresolved tool failure: exec ls verify-tenants/.test(y)), `a checkpoint at 80 % with the failures: ${written.map((y) => y.match(/trigger: "[^"]+"/)?.[0]).join(', ')}`)
    assert.match(compaction, /\n {2}identifiers:\n(?: {4}- .*\n)*? {4}- "tenant_shards"\n/, `the command's code name among its identifiers: ${compaction.slice(compaction.indexOf('identifiers:'), compaction.indexOf('identifiers:') + 600)}`)
    assert.doesNotMatch(compaction, /\n {4}- "shardCount"\n/, `not the variable the command's code binds: ${compaction.slice(compaction.indexOf('identifiers:'), compaction.indexOf('identifiers:') + 600)}`)
    // a second compaction, whose messages no longer hold the progress card: its open steps are still the next action
    // and its done step still progress, carried by the checkpoint before it (`working.open_tasks`)
    // (a reply longer than the 2,000 tokens the compaction keeps: the message with the trace before it is compacted)
    turns.set('t12', [{ text: `The backfill is at row 40,000.\n\n${Array.from({ length: 300 }, (_, i) => `Batch ${i + 1} of 300 is written.`).join('\n')}`, usage: { prompt_tokens: 113_000 } }])
    turns.set('t13', [{ text: 'Counting.', usage: { prompt_tokens: 30_000 } }])
    // the user pastes a console's warning with its stack trace, no fence around it: one statement of the briefing, not
    // a sentence per frame (issue 51)
    const frames = ['TenantTable', 'BackfillPanel', 'TabPanel', 'AppContent', 'Routes', 'Router', 'BrowserRouter', 'App'].map((f, i) => `at ${f} (http://localhost:3000/chunk-36jrqfj4.js:${31000 + i}:20)`)
    const c = await turn(S3, `[t12] How far along is it? The console says:\n\nWarning: Encountered two children with the same key, \`tenant-7\`\n${frames.join('\n')}`)
    const d = await turn(S3, '[t13] Continue.')
    assert.equal([...c.summaries, ...d.summaries].length, 0, 'OpenClaw made no summary model call')
    const again = requestText(d.chat[0].body)
    assert.match(again, /\| compactions: 2\n/, `the second compaction's summary: ${again.slice(again.indexOf('Checkpoint cp_'), again.indexOf('Checkpoint cp_') + 200)}`)
    assert.match(again, /\n- Next action: 1\. Backfill in batches of 500; 2\. Verify the tenant counts\n/, `the card's open steps, still the next action: ${again.slice(again.indexOf('## Goal'), again.indexOf('## Goal') + 1200)}`)
    const progress = again.slice(again.indexOf('## Progress'), again.indexOf('## Decisions'))
    assert.match(progress, /\n- done: Draft the schema migration\n/, `and its done step, still progress: ${progress}`)
    assert.equal(progress.split('\n').filter((l) => l.includes('chunk-36jrqfj4.js')).length, 1, `the pasted trace one statement of the Progress: ${progress}`)
  })

  // ==== tool profiles and tool policy (issue 28) ========================================================
  // The manifest's toolMetadata puts both tools in the `coding` and `messaging` profiles; where a profile or a deny
  // still leaves scratchpad_read out, nothing is parked and nothing the model is sent names the tool.
  const SP = 'real-profile-coding'
  const KEYP = `agent:main:explicit:${SP}`
  let parkedId
  /** The turn's scripted steps: the plan set, the big file read (parked), a slice of it read back. */
  const profileTurn = (plan) => [
    { toolCalls: [{ name: 'session_scratchpad', arguments: { action: 'set_plan', content: plan } }] },
    { toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] },
    (body) => ({ toolCalls: [{ name: 'scratchpad_read', arguments: { scratchpad_id: observationId(body), mode: 'range', start: 0, end: 200 } }] }),
    { text: 'Read.', usage: { prompt_tokens: 20_000 } },
  ]
  /** What scratchpad_read returns for the first `n` characters of the parked read: the slice, then where it is. */
  const readBack = (text, n, what) => {
    assert.ok(text.startsWith(`${bigText.slice(0, n)}\n\n`), `${what}: ${text.slice(0, 300)}`)
    assert.match(text.slice(n), /^\n\n\[characters 0-\d+ of \d+ in "read_\d+"; read on with offset=\d+\]$/, `${what}: where the slice is`)
  }
  /** Asserts a profileTurn: the tools sent, the plan set, the read parked and read back; the parked id. */
  const assertProfileTurn = (t, profile, plan) => {
    const names = toolNames(t.chat[0])
    assert.ok(names.includes('session_scratchpad') && names.includes('scratchpad_read'), `${profile}: both tools are sent: ${names.join(', ')}`)
    assert.ok(t.chat.length >= 4, `${profile}: four model calls (got ${t.chat.length})`)
    assert.match(toolResultText(t.chat[1]), /Plan replaced/, `${profile}: the plan is set: ${toolResultText(t.chat[1]).slice(0, 200)}`)
    const observation = toolResultText(t.chat[2])
    assert.match(observation, /"scratchpad_id"/, `${profile}: the large read is parked: ${observation.slice(0, 200)}`)
    readBack(toolResultText(t.chat[3]), 200, `${profile}: scratchpad_read reads it back`)
    return observationId(t.chat[2].body)
  }
  await check("tools.profile 'coding': both tools are sent, the plan is set, a parked read is read back", async () => {
    writeConfig({ tools: { profile: 'coding' } })
    turns.set('t20', profileTurn('1. read the lexer\n2. list its tokens'))
    const t = await turn(SP, '[t20] List the tokens of src/lexer.rs.')
    assert.ok(toolNames(t.chat[0]).includes('exec'), `the coding profile's tools: ${toolNames(t.chat[0]).join(', ')}`)
    parkedId = assertProfileTurn(t, 'coding')
  })
  await check("tools.profile 'messaging' (read allowed on top): both tools are sent, the plan is set, a parked read is read back", async () => {
    writeConfig({ tools: { profile: 'messaging', alsoAllow: ['read'] } })
    turns.set('t21', profileTurn('1. read the lexer\n2. tell the channel'))
    const t = await turn('real-profile-messaging', '[t21] Tell me what src/lexer.rs holds.')
    const names = toolNames(t.chat[0])
    assert.ok(!names.includes('exec') && !names.includes('write'), `the messaging profile's tools (no exec, no write): ${names.join(', ')}`)
    assertProfileTurn(t, 'messaging')
  })
  await check("tools.profile 'coding' and 'messaging': after a compaction the history line is there and its grep finds the compacted error line", async () => {
    writeConfig({ tools: { profile: 'coding' }, compaction: { keepRecentTokens: 2000 } })
    await compactAndGrep('real-history-coding', ['t82', 't83'], 'coding')
    writeConfig({ tools: { profile: 'messaging', alsoAllow: ['read'] }, compaction: { keepRecentTokens: 2000 } })
    await compactAndGrep('real-history-messaging', ['t84', 't85'], 'messaging')
  })
  await check('tools.deny scratchpad_read, then a compaction: the restore offers no history line the model could not use; the history entry is kept all the same', async () => {
    writeConfig({ tools: { deny: ['scratchpad_read'] }, compaction: { keepRecentTokens: 2000 } })
    turns.set('t86', [
      { toolCalls: [{ name: 'read', arguments: { path: DEV_ENV } }] },
      { text: `${'The staging API could not start; the port was taken. '.repeat(100)}`, usage: { prompt_tokens: 121_000 } },
    ])
    turns.set('t87', [{ text: 'ok', usage: { prompt_tokens: 30_000 } }])
    await turn('real-history-deny', '[t86] Why does the staging API not start?')
    const b = await turn('real-history-deny', '[t87] Go on.')
    const prompt = lastUserText(b.chat[0])
    assert.ok(prompt.includes(RESTORE_MARK), `the restore after the compaction: ${prompt.slice(0, 300)}`)
    assert.doesNotMatch(prompt, HISTORY_LINE, 'no history line')
    for (const q of b.chat) assert.ok(!JSON.stringify(q.body).includes('scratchpad_read'), 'no request names scratchpad_read')
    const kept = native.listObservationsSync({ stateDir, sessionKey: 'agent:main:explicit:real-history-deny' }).map((e) => e.name)
    assert.ok(kept.includes('history-1'), `the history entry is kept: ${kept.join(', ')}`)
    const grep = native.readObservationSync({ stateDir, sessionKey: 'agent:main:explicit:real-history-deny', name: 'history', pattern: 'EADDRINUSE' })
    assert.ok(grep.content.includes(ERROR_LINE), `it holds the compacted error line: ${grep.content.slice(0, 300)}`)
  })
  await check('tools.deny scratchpad_read: the read is not parked (the model gets it whole) and nothing sent names scratchpad_read', async () => {
    writeConfig({ tools: { deny: ['scratchpad_read'] } })
    turns.set('t22', [{ toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] }, { text: 'Read.', usage: { prompt_tokens: 20_000 } }])
    const t = await turn('real-deny-read', '[t22] Read src/lexer.rs.')
    const names = toolNames(t.chat[0])
    assert.ok(!names.includes('scratchpad_read') && names.includes('session_scratchpad'), `the tools: ${names.join(', ')}`)
    const result = toolResultText(t.chat[1])
    // As OpenClaw's read gives it (its own paging), far over the 4 KB threshold, not an observation.
    assert.ok(!result.includes('scratchpad_id') && result.startsWith(bigText.slice(0, 4000)), `the read came back as OpenClaw gives it: ${result.slice(0, 200)}`)
    for (const q of t.chat) assert.ok(!JSON.stringify(q.body).includes('scratchpad_read'), 'no request names scratchpad_read')
    const parked = native.listObservationsSync({ stateDir, sessionKey: 'agent:main:explicit:real-deny-read' }).filter((e) => e.name.startsWith('read'))
    assert.deepEqual(parked, [], 'nothing parked')
  })
  await check("tools.profile 'minimal': neither tool is sent, nothing sent names them (no guidance, nothing parked); the turn logs why once and the doctor reports offloading off and why", async () => {
    writeConfig({ tools: { profile: 'minimal' } })
    turns.set('t23', [{ text: 'Hello.', usage: { prompt_tokens: 5_000 } }])
    const t = await turn('real-profile-minimal', '[t23] Hello.')
    const body = JSON.stringify(t.chat[0].body)
    assert.ok(!body.includes('session_scratchpad') && !body.includes('scratchpad_read'), `no tool, no guidance naming one: ${toolNames(t.chat[0]).join(', ')}`)
    // Nothing degrades in silence: the turn's process logged it once, and the doctor says offloading is off and why.
    const logged = `${t.out}\n${t.err}`.split('\n').filter((l) => l.includes('is not sent scratchpad_read'))
    assert.equal(logged.length, 1, `the warning once in the turn's log: ${logged.join(' | ') || `${t.err}`.slice(-1500)}`)
    assert.match(logged[0], /a run of agent:main:explicit:real-profile-minimal is not sent scratchpad_read.*`openclaw-context doctor`/)
    const { status, report, text } = doctor()
    assert.equal(status, 1, text)
    assert.equal(verdictOf(report, 'offloading').status, 'off', text)
    assert.match(verdictOf(report, 'offloading').reason, /not sent scratchpad_read, so large results stay whole: tools\.profile "minimal" leaves it out/, text)
    assert.match(verdictOf(report, 'offloading').fix, /^openclaw config set tools\.alsoAllow/, text)
    assert.ok(report.warnings.some((w) => w.cause === 'no-read-tool' && w.sessionKey === 'agent:main:explicit:real-profile-minimal'), `the warning recorded for the doctor: ${JSON.stringify(report.warnings)}`)
  })
  await check("gateway, tools.profile 'minimal': runs of two sessions in one gateway process, the plugin's warning that nothing is parked once in the gateway's log", async () => {
    const port = await freePort()
    writeConfig({ gatewayPort: port, tools: { profile: 'minimal' } })
    const gw = startGateway({ node, openclawBin, port, env, cwd: workspace })
    try {
      await gw.ready()
      turns.set('t70', [{ text: 'Hello.', usage: { prompt_tokens: 5_000 } }])
      turns.set('t71', [{ text: 'Hello again.', usage: { prompt_tokens: 6_000 } }])
      await turn('agent:main:real-gateway-minimal', '[t70] Hello.', { local: false })
      await turn('agent:main:real-gateway-minimal-2', '[t71] Hello again.', { local: false })
    } finally {
      writeFileSync(join(work, 'gateway-minimal.log'), gw.log())
      await gw.stop()
    }
    const lines = gw.log().split('\n').filter((l) => l.includes('is not sent scratchpad_read'))
    assert.equal(lines.length, 1, `the warning once in the gateway's log: ${gw.log().split('\n').filter((l) => l.includes('context-native')).join('\n').slice(-2000)}`)
    assert.match(lines[0], /a run of agent:main:real-gateway-minimal is not sent scratchpad_read.*`openclaw-context doctor`/)
  })
  await check("a parked result is read back two hours later (past the old one-hour lifetime), after the plugin's retention run at that clock", async () => {
    assert.ok(parkedId && parkedId !== 'missing', 'the coding turn parked a result')
    // A result parked with the old lifetime (an hour) in another session: the retention run removes it when due.
    const decoyKey = 'agent:main:explicit:real-decoy'
    const decoy = await native.offloadObservation({ stateDir, sessionKey: decoyKey, content: bigText, toolName: 'read', ttlSeconds: 3600 })
    // The clock two hours on, in this process and in OpenClaw's (crates/fsio time.rs), and a retention run at start.
    process.env.OPENCLAW_CONTEXT_CLOCK_OFFSET_MS = String(2 * 3600 * 1000)
    try {
      writeConfig({ pluginConfig: { retention: { firstRunDelaySeconds: 0 } } })
      turns.set('t24', [
        { toolCalls: [{ name: 'scratchpad_read', arguments: { scratchpad_id: parkedId, mode: 'range', start: 0, end: 200 } }] },
        { text: 'Still there.', usage: { prompt_tokens: 20_000 } },
      ])
      const t = await turn(SP, '[t24] What did the lexer start with?')
      readBack(toolResultText(t.chat[1]), 200, 'the parked result is read back')
      const left = native.listObservationsSync({ stateDir, sessionKey: decoyKey, includeExpired: true }).map((e) => e.id)
      assert.ok(!left.includes(decoy.entry.id), "the plugin's retention run ran at the moved clock (it removed the expired one-hour result)")
      assert.ok(native.listObservationsSync({ stateDir, sessionKey: KEYP }).some((e) => e.id === parkedId), 'and kept the parked result')
    } finally {
      delete process.env.OPENCLAW_CONTEXT_CLOCK_OFFSET_MS
    }
  })

  // ==== through a gateway on loopback ===================================================================
  await check('gateway: a compaction in the gateway process, the restore in the next request with the plan, again after /compact; after sessions.reset (/reset) nothing of the old conversation, and its own checkpoint at its first compaction', async () => {
    const port = await freePort()
    writeConfig({ gatewayPort: port })
    const gw = startGateway({ node, openclawBin, port, env, cwd: workspace })
    try {
      await gw.ready()
      const first = server.requests.length
      const SG = 'agent:main:real-gateway'
      turns.set('t12', [
        { toolCalls: [{ name: 'read', arguments: { path: DEV_ENV } }] },
        { toolCalls: [{ name: 'session_scratchpad', arguments: { action: 'set_plan', content: '1. profile the cache\n2. shrink the hot path' } }] },
        { text: 'Profiling.', usage: { prompt_tokens: 113_000 } },
      ])
      // after the compaction the model follows the restore's history line (issue 49)
      turns.set('t13', [grepFromHistoryLine('EADDRINUSE'), { text: 'Shrinking.', usage: { prompt_tokens: 30_000 } }])
      const a = await turn(SG, '[t12] Speed up the cache lookups.', { local: false })
      assert.ok(toolNames(a.chat[0]).includes('session_scratchpad'), 'the tool is sent directly')
      const b = await turn(SG, '[t13] Continue.', { local: false })
      const all = [...a.requests, ...b.requests]
      const summaryAt = all.findIndex((q) => isSummaryRequest(q.body))
      assert.ok(summaryAt >= 0, 'the gateway compacted')
      const after = all.slice(summaryAt + 1).filter((q) => !isSummaryRequest(q.body))
      const text = requestText(after[0].body)
      assert.equal(text.split(RESTORE_MARK).length - 1, 1, `the restore once in the first request after compaction: ${lastUserText(after[0]).slice(0, 500)}`)
      assert.match(text, /Speed up the cache lookups/, 'with the task')
      assert.match(lastUserText(after[0]), /shrink the hot path/, 'and the plan')
      assert.match(lastUserText(after[0]), HISTORY_LINE, 'and the history line')
      const grepped = toolResultText(b.chat[1])
      assert.ok(grepped.includes(ERROR_LINE), `the grep of the history in the gateway holds the error line: ${grepped.slice(0, 400)}`)

      // /compact (the sessions.compact RPC): the restore follows a manual compaction too.
      const before = server.requests.length
      const compacted = await openclaw(['sessions', 'compact', SG, '--json'])
      assert.equal(compacted.code, 0, `sessions compact: ${compacted.out.slice(0, 300)} ${compacted.err.split('\n').slice(-4).join(' | ')}`)
      assert.ok(server.requests.slice(before).some((q) => isSummaryRequest(q.body)), 'a summary request for the manual compaction')
      turns.set('t15', [{ text: 'Back to the hot path.', usage: { prompt_tokens: 25_000 } }])
      const m = await turn(SG, '[t15] Where were we?', { local: false })
      assert.ok(lastUserText(m.chat[0]).includes(RESTORE_MARK), `the restore after /compact: ${lastUserText(m.chat[0]).slice(0, 400)}`)
      assert.match(lastUserText(m.chat[0]), /Speed up the cache lookups/, 'with the task')

      // sessions.reset (what /reset does): the next conversation on the key starts clean.
      assert.ok(checkpoints(SG).length > 0, 'a checkpoint before the reset')
      const reset = await openclaw(['gateway', 'call', 'sessions.reset', '--params', JSON.stringify({ key: SG }), '--json'])
      assert.equal(reset.code, 0, `sessions.reset: ${reset.out.slice(0, 300)} ${reset.err.split('\n').slice(-4).join(' | ')}`)
      assert.equal(checkpoints(SG).length, 0, 'the old conversation\'s checkpoints are gone')
      // the model asks the old conversation's history: none in the new one (issue 49)
      turns.set('t14', [
        { toolCalls: [{ name: 'scratchpad_read', arguments: { name: 'history', pattern: 'EADDRINUSE' } }] },
        { text: 'What should the README say?', usage: { prompt_tokens: 113_000 } },
      ])
      const c = await turn(SG, '[t14] New topic: write the README introduction.', { local: false })
      const fresh = requestText(c.chat[0].body)
      assert.ok(!fresh.includes(RESTORE_MARK), 'no restore after the reset')
      assert.ok(!conversationText(c.chat[0].body).includes(SCRATCHPAD_MARK), `no scratchpad block after the reset: ${lastUserText(c.chat[0]).slice(0, 600)}`)
      assert.ok(!/cache lookups|hot path/.test(lastUserText(c.chat[0])), `nothing of the old task: ${lastUserText(c.chat[0]).slice(0, 400)}`)
      const old = toolResultText(requestAfterCall(c.chat, 't14'))
      assert.ok(!old.includes('EADDRINUSE') && /no history yet/.test(old), `the old conversation's history is not readable from the new one: ${old.slice(0, 400)}`)

      // The new conversation's first compaction (t14 ended past 108k) is its own: not skipped as a duplicate of
      // the old conversation's, and its checkpoint has the new task, nothing of the old one.
      // The gateway may compact after it has answered: wait for the checkpoint (20 s at most).
      const compactionCheckpoints = () => checkpoints(SG).filter((y) => /trigger: "compaction"/.test(y))
      for (let waited = 0; compactionCheckpoints().length === 0 && waited < 20_000; waited += 500) await new Promise((r) => setTimeout(r, 500))
      await new Promise((r) => setTimeout(r, 1000)) // and for a second one, if any were written
      const own = compactionCheckpoints()
      assert.equal(own.length, 1, `one compaction checkpoint in the new conversation (got ${own.length})`)
      assert.match(own[0], /README introduction/, 'with the new task')
      assert.doesNotMatch(own[0], /cache lookups|hot path/, 'and nothing of the old conversation')
      // The gateway runs the memory flush in its own process too (before each compaction): left alone there.
      const flushes = server.requests.slice(first).filter((q) => isMemoryFlush(q.body))
      assert.ok(flushes.length > 0, 'the memory plugin ran its pre-compaction flush in the gateway')
      assertFlushLeftAlone(flushes)
    } finally {
      writeFileSync(join(work, 'gateway.log'), gw.log())
      await gw.stop()
    }
  })
  // After the gateway scenario above: its own gateway on the same state dir.
  await check("gateway: a sub-agent run (sessions_spawn) is sent the tools and parks a read in its own session's store, read back with scratchpad_read; the child's checkpoint names its task, not OpenClaw's sub-agent wrapper", async () => {
    // Sub-agents run in a gateway (`--local` answers "published reply runtime missing"); Tool Search off, as
    // sessions_spawn is otherwise one of the cataloged tools behind tool_call.
    const port = await freePort()
    writeConfig({ gatewayPort: port, toolSearch: false })
    const gw = startGateway({ node, openclawBin, port, env, cwd: workspace })
    try {
      await gw.ready()
      turns.set('t25', [
        { toolCalls: [{ name: 'sessions_spawn', arguments: { task: '[t26] Read src/lexer.rs and report how it starts.', label: 'lexer' } }] },
        { text: 'Delegated.', usage: { prompt_tokens: 20_000 } },
      ])
      turns.set('t26', [
        { toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] },
        (body) => ({ toolCalls: [{ name: 'scratchpad_read', arguments: { scratchpad_id: observationId(body), mode: 'range', start: 0, end: 200 } }] }),
        { text: 'It starts with token_0.', usage: { prompt_tokens: 20_000 } },
      ])
      const before = server.requests.length
      const parent = await turn('agent:main:real-subagent-parent', '[t25] Have a sub-agent read the lexer.', { local: false })
      const spawned = toolResultText(parent.chat[1] ?? parent.chat[0])
      // The sub-agent's own requests (its task message carries [t26]), up to its scratchpad_read's answer.
      const child = () => server.requests.slice(before).filter((q) => !isSummaryRequest(q.body) && lastTag(q.body)?.tag === 't26')
      for (let waited = 0; child().length < 3 && waited < 90_000; waited += 1000) await new Promise((r) => setTimeout(r, 1000))
      const reqs = child()
      assert.ok(reqs.length >= 3, `the sub-agent made its three model calls (got ${reqs.length}); the spawn answered: ${spawned.slice(0, 300)}`)
      const names = toolNames(reqs[0])
      assert.ok(names.includes('scratchpad_read') && names.includes('session_scratchpad'), `the sub-agent is sent the tools: ${names.join(', ')}`)
      assert.match(toolResultText(reqs[1]), /"scratchpad_id"/, 'its large read is parked')
      readBack(toolResultText(reqs[2]), 200, 'and read back')
      const id = observationId(reqs[1].body)
      const stores = readdirSync(join(stateDir, 'context/observations'))
      assert.ok(stores.some((d) => d.includes('subagent')), `a store of the sub-agent's own session: ${stores.join(', ')}`)
      assert.ok(native.listObservationsSync({ stateDir, sessionKey: 'agent:main:real-subagent-parent' }).every((e) => e.id !== id), "not in the parent's store")
      // The child's result announced to the parent (a run of the parent's own), answered before the gateway stops: a
      // delivery still pending at the stop would run in the next gateway on this state dir, in a later check.
      const announces = () => server.requests.slice(before).filter((q) => isTaskCompletion(q.body))
      for (let waited = 0; announces().length === 0 && waited < 60_000; waited += 1000) await new Promise((r) => setTimeout(r, 1000))
      assert.ok(announces().length > 0, "the child's result was announced to the parent session")
      assert.match(requestText(announces()[0].body), /It starts with token_0/, "the announce carries the child's result")
      // The child's transcript opens with OpenClaw's sub-agent wrapper ([Subagent Context] ..., [Subagent Task], the
      // task, `Begin. Execute the assigned task to completion.`): read from OpenClaw's store by the CLI, as a user's
      // `openclaw-context replay` does (a small window: it checkpoints), the child's task is its task, not the wrapper.
      const childKey = (spawned.match(/agent:main:subagent:[0-9a-f-]+/) ?? [])[0]
      assert.ok(childKey, `the spawn names the child's session: ${spawned.slice(0, 300)}`)
      assert.equal(replayedTask(childKey), '[t26] Read src/lexer.rs and report how it starts.', "the child's task")
      // Its run ends (the reply written to the parent's transcript) before the stop.
      await new Promise((r) => setTimeout(r, 3000))
    } finally {
      writeFileSync(join(work, 'gateway-subagent.log'), gw.log())
      await gw.stop()
    }
  })
  // After the sub-agent scenario: a cron job's run, in its own gateway on the same state dir (cron runs in a gateway).
  await check("gateway: a cron run (an isolated job forced by `openclaw cron run`) is sent the tools and parks a read in its own session's store, read back with scratchpad_read; nothing is written under the main session's key; the run's checkpoint names the job's message, not OpenClaw's preamble", async () => {
    const port = await freePort()
    writeConfig({ gatewayPort: port })
    const gw = startGateway({ node, openclawBin, port, env, cwd: workspace })
    const MAIN = 'agent:main:main'
    /** Every file under the package's store named after the main session's key, with its size and time. */
    const mainFiles = () => {
      const name = native.sessionDirName(MAIN)
      const found = []
      const walk = (dir, inMain) => {
        if (!existsSync(dir)) return
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, e.name)
          const here = inMain || e.name === name || e.name.startsWith(`${name}.`)
          if (e.isDirectory()) walk(path, here)
          else if (here) found.push(`${path.slice(stateDir.length + 1)} ${statSync(path).size} ${statSync(path).mtimeMs}`)
        }
      }
      walk(join(stateDir, 'context'), false)
      return found.sort()
    }
    try {
      await gw.ready()
      turns.set('t30', [
        { toolCalls: [{ name: 'read', arguments: { path: BIG_FILE } }] },
        (body) => ({ toolCalls: [{ name: 'scratchpad_read', arguments: { scratchpad_id: observationId(body), mode: 'range', start: 0, end: 200 } }] }),
        { text: 'It starts with token_0.', usage: { prompt_tokens: 20_000 } },
      ])
      const mainBefore = mainFiles()
      const before = server.requests.length
      // An hourly isolated job (its first scheduled run an hour away), run now by `cron run --wait`.
      const added = await openclawUncontended(['cron', 'add', '--name', 'real-cron-lexer', '--every', '1h', '--session', 'isolated', '--no-deliver', '--message', '[t30] Read src/lexer.rs and report how it starts.', '--json'])
      assert.equal(added.code, 0, `cron add: ${added.out.slice(0, 300)} ${added.err.split('\n').slice(-4).join(' | ')}`)
      const job = JSON.parse(added.out)
      const jobId = job.id ?? job.job?.id
      assert.ok(jobId, `the job's id: ${added.out.slice(0, 300)}`)
      const ran = await cronRunOnce(jobId)
      assert.equal(ran.code, 0, `cron run --wait: ${ran.out.slice(0, 400)} ${ran.err.split('\n').slice(-4).join(' | ')}`)
      const reqs = server.requests.slice(before).filter((q) => !isSummaryRequest(q.body) && lastTag(q.body)?.tag === 't30')
      assert.ok(reqs.length >= 3, `the cron run made its three model calls (got ${reqs.length})`)
      const names = toolNames(reqs[0])
      assert.ok(names.includes('scratchpad_read') && names.includes('session_scratchpad'), `the cron run is sent the tools: ${names.join(', ')}`)
      assert.match(toolResultText(reqs[1]), /"scratchpad_id"/, `its large read is parked: ${toolResultText(reqs[1]).slice(0, 200)}`)
      assert.equal(readSlice(toolResultText(reqs[2])), bigText.slice(0, 200), `and read back: ${toolResultText(reqs[2]).slice(0, 300)}`)
      const id = observationId(reqs[1].body)
      // The cron session's own store: an isolated job's run is a session of its own, agent:main:cron:<job>:run:<run>
      // (the plugin's session record names it).
      const records = readdirSync(join(stateDir, 'context/sessions')).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(stateDir, 'context/sessions', f), 'utf8')).session_key)
      const cronKeys = records.filter((k) => k.startsWith(`agent:main:cron:${jobId}:run:`))
      assert.equal(cronKeys.length, 1, `one session of the cron run: ${records.join(', ')}`)
      assert.ok(native.listObservationsSync({ stateDir, sessionKey: cronKeys[0] }).some((e) => e.id === id), `the parked read is in the store of ${cronKeys[0]}`)
      assert.deepEqual(native.listObservationsSync({ stateDir, sessionKey: MAIN }), [], "nothing in the main session's store")
      assert.deepEqual(mainFiles(), mainBefore, "nothing written under the main session's key")
      // Its transcript holds the job's message with OpenClaw's prefix, time line and unattended-run preamble
      // (isolated-agent-*.mjs): the run's task is the job's message alone.
      assert.equal(replayedTask(`agent:main:cron:${jobId}`), '[t30] Read src/lexer.rs and report how it starts.', "the cron run's task")
    } finally {
      writeFileSync(join(work, 'gateway-cron.log'), gw.log())
      await gw.stop()
    }
  })

  // ==== gateway: OpenClaw's heartbeat between the user's turns (issue 27, "Tests") ====================
  // Self-contained: its own gateway on the same state dir, its own tags (t60-t62), the main session. It needs no run of
  // an earlier check left in the gateway: a parent session whose sub-agent announce never ended (isTaskCompletion) was
  // resumed here by restart recovery and kept the agent busy, and OpenClaw ran no heartbeat (requests in flight).
  await check("gateway heartbeat: a heartbeat run between the user's turns, then a compaction: the restore names the user's task, holds no heartbeat text and no credential, nor does the checkpoint", async () => {
    const port = await freePort()
    // Tool Search off, so that exec is one of the tools sent (not behind tool_call). The heartbeat is OpenClaw's
    // default during the user's first turns (every 30m to the owner, who has no route here: skipped with no run), so
    // that no poll lands in the middle of a user's turn.
    writeConfig({ gatewayPort: port, toolSearch: false })
    const MAIN = 'agent:main:main'
    const TOKEN = `ghp_${'R7kLm2Qx9Vt4Bn8Wc1Zp5Hd3Fj6Ys0Ua'}Xe4G`
    // A credential of no known shape (32 hex digits, as a hash would be), pasted under a label in the user's own
    // language and quoted back bare by the agent: the label tells it is one, wherever it appears (issue 27).
    const LABELLED = '5f0c2a9e7b1d4c3f8a6e2d0b9c7f1a34'
    // A password the user types in a sentence: short, with a symbol, no credential's shape: read by its label.
    const PASSWORD = 'Kx9#rotate24'
    const gw = startGateway({ node, openclawBin, port, env, cwd: workspace })
    const log = gw.log
    try {
      await gw.ready()
      turns.set('t60', [{ text: 'Hello! What are we working on today?', usage: { prompt_tokens: 15_000 } }])
      turns.set('t61', [
        { toolCalls: [{ name: 'exec', arguments: { command: `export GITHUB_TOKEN=${TOKEN}; gh api repos/acme/billing/keys --jq '.[].title' || echo 'gh failed'` } }] },
        { text: `Listed the deploy keys of acme/billing; the old one is deploy-2025. The new key's note will hold \`${LABELLED}\`.`, usage: { prompt_tokens: 22_000 } },
      ])
      await turn(MAIN, '[t60] Hi there!', { local: false })
      const task = await turn(MAIN, `[t61] Rotate the deploy key of the acme/billing repository: list its keys with gh first, GITHUB_TOKEN=${TOKEN} works. Staging 令牌: ${LABELLED} goes in the new key's note.`, { local: false })
      assert.ok(toolNames(task.chat[0]).includes('exec'), `exec is sent: ${toolNames(task.chat[0]).join(', ')}`)
      assert.ok(task.chat.length >= 2, `the model ran the command (got ${task.chat.length} calls)`)
      // The heartbeat on a short cadence (30 s: the automations scheduler's minimum, cron-limits-*.mjs) into the agent's
      // main session (its default), with no delivery target, written into openclaw.json as a user does: the gateway
      // applies agents.defaults.heartbeat without a restart (config-reload-plan-*.mjs: restartHeartbeat,
      // reconcileSystemJobs), and its heartbeat job's next run is at most 30 s away.
      const afterTask = server.requests.length
      const configPath = join(stateDir, 'openclaw.json')
      const config = JSON.parse(readFileSync(configPath, 'utf8'))
      // A prompt of the user's own (heartbeat.md "prompt"), known by no template: the restore must still not take it
      // for the task (OpenClaw appends its current-time block to it, crates/state/src/wrappers/mod.rs).
      config.agents.defaults.heartbeat = { every: '30s', target: 'none', prompt: HEARTBEAT_PROMPT }
      writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`)
      // The heartbeat run between the user's turns: wait for the scripted server to see its poll.
      const polls = () => server.requests.slice(afterTask).filter((q) => !isSummaryRequest(q.body) && isHeartbeatPoll(q.body))
      const waitPoll = async (ms) => {
        for (let waited = 0; polls().length === 0 && waited < ms; waited += 500) await new Promise((r) => setTimeout(r, 500))
      }
      await waitPoll(60_000)
      if (polls().length === 0) {
        // The scheduler may let a tick pass on a loaded machine (a run still in the lane, the not-due gate): wake the
        // heartbeat now, as `openclaw system event --mode now` does for a user (docs/cli/system.md).
        const wake = await openclaw(['system', 'event', '--text', 'Heartbeat check', '--mode', 'now', '--json'])
        assert.equal(wake.code, 0, `system event --mode now: ${wake.out.slice(0, 300)} ${wake.err.split('\n').slice(-4).join(' | ')}`)
        await waitPoll(60_000)
        console.log(`       (no scheduled heartbeat within 60 s of the config change: woken by system event --mode now${polls().length ? '' : ', in vain'})`)
      }
      assert.ok(polls().length > 0, `a heartbeat run in the gateway after the task turn: ${log().split('\n').filter((l) => /heartbeat|reload/i.test(l)).slice(-5).join(' | ')}`)
      // Its run ends (its transcript entry written) before the next step: give it a moment, then no more polls,
      // so that the request after the compaction is the user's turn.
      await new Promise((r) => setTimeout(r, 3000))
      const off = await openclaw(['system', 'heartbeat', 'disable', '--json'])
      assert.equal(off.code, 0, `system heartbeat disable: ${off.out.slice(0, 300)} ${off.err.split('\n').slice(-4).join(' | ')}`)
      const pollText = lastUserText(polls()[0])
      assert.ok(requestText(polls()[0].body).includes(HEARTBEAT_PROMPT), `the heartbeat run sent the configured prompt: ${pollText.slice(0, 300)}`)
      assert.ok(requestText(polls()[0].body).includes('Rotate the deploy key'), 'the heartbeat ran in the main session (it carries the user\'s turns)')
      // The user moves on after the heartbeat: the current request leads the goal, the first one follows.
      turns.set('t61b', [{ text: 'Noted the new key in docs/keys.md.', usage: { prompt_tokens: 23_000 } }])
      await turn(MAIN, `[t61b] Now record the new deploy key in docs/keys.md as well. The staging console password is ${PASSWORD}.`, { local: false })

      // /compact (sessions.compact), then the user's next turn.
      const before = server.requests.length
      const compacted = await openclaw(['sessions', 'compact', MAIN, '--json'])
      assert.equal(compacted.code, 0, `sessions compact: ${compacted.out.slice(0, 300)} ${compacted.err.split('\n').slice(-4).join(' | ')}`)
      // (OpenClaw makes its summary with or without a model call, by where it cuts: the 200k check says so; the
      // compaction shows in the restore the next request carries, asserted below)
      if (!server.requests.slice(before).some((q) => isSummaryRequest(q.body))) console.log('       (OpenClaw made its summary without a model call)')
      turns.set('t62', [{ text: 'Generating the new key.', usage: { prompt_tokens: 25_000 } }])
      const next = await turn(MAIN, '[t62] Go on.', { local: false })
      const after = server.requests.slice(before).filter((q) => !isSummaryRequest(q.body) && !isMemoryFlush(q.body))
      assert.ok(!isHeartbeatPoll(after[0].body), 'the first request after the compaction is the user\'s turn')
      const prompt = lastUserText(next.chat[0])
      const at = prompt.indexOf(RESTORE_MARK)
      assert.ok(at >= 0, `the restore in the first request after the compaction: ${prompt.slice(0, 600)}`)
      const restore = prompt.slice(at, prompt.lastIndexOf('[t62]'))
      assert.match(restore, /Rotate the deploy key/, `the restore names the user's task: ${restore}`)
      assert.doesNotMatch(restore, /heartbeat monitor|\[OpenClaw heartbeat poll\]|briefly report progress/i, `no heartbeat prompt in the restore: ${restore}`)
      assert.doesNotMatch(restore, /HEARTBEAT/, `no HEARTBEAT text in the restore: ${restore}`)
      // The goal is the task, not the greeting before it (the greeting may stay among the exchanges).
      const goal = restore.slice(restore.indexOf('## Goal'), restore.indexOf('\n## ', restore.indexOf('## Goal') + 1))
      assert.match(goal, /^## Goal\nWorking on: .*record the new deploy key in docs\/keys\.md.*\nTask: .*Rotate the deploy key/, `the goal: the current request first, then the user's task: ${restore}`)
      assert.doesNotMatch(goal, /Hi there/, `not the greeting: ${restore}`)
      assert.ok(!restore.includes(TOKEN) && !/ghp_[A-Za-z0-9]{20,}/.test(restore), `no credential in the restore: ${restore}`)
      assert.ok(!restore.includes(LABELLED), `no labelled credential in the restore, under its label or bare: ${restore}`)
      assert.ok(!restore.includes(PASSWORD), `no typed password in the restore: ${restore}`)
      // The user's task keeps its words, the credential in it replaced (crates/state/src/secrets.rs).
      assert.match(goal, /\[redacted\]/, `the credential in the task is redacted: ${goal}`)
      assert.ok(JSON.stringify(task.chat[1].body).includes(TOKEN), 'the command with the credential was in the conversation before the compaction')
      assert.ok(JSON.stringify(task.chat[1].body).includes(LABELLED), 'the labelled credential was in the conversation before the compaction')
      assert.match(contentText(polls()[0].answer ? polls()[0].answer.text : ''), /HEARTBEAT_OK/, 'the heartbeat run was answered HEARTBEAT_OK')
      const yaml = checkpoints(MAIN)
      assert.ok(yaml.length > 0, 'a checkpoint of the main session')
      for (const y of yaml) {
        assert.ok(!y.includes(TOKEN) && !/ghp_[A-Za-z0-9]{20,}/.test(y), `no credential in the checkpoint YAML: ${y.slice(0, 800)}`)
        assert.ok(!y.includes(LABELLED), `no labelled credential in the checkpoint YAML: ${y.slice(0, 800)}`)
        assert.ok(!y.includes(PASSWORD), `no typed password in the checkpoint YAML: ${y.slice(0, 800)}`)
        assert.doesNotMatch(y, /HEARTBEAT_OK|heartbeat monitor scratch|briefly report progress/, `no heartbeat text in the checkpoint YAML: ${y.slice(0, 800)}`)
      }
      assert.match(yaml.at(-1), /Rotate the deploy key/, 'the checkpoint has the task')
      if (verbose) console.log(`       heartbeat poll: ${pollText.slice(0, 200)}\n       restore: ${restore}`)
    } finally {
      writeFileSync(join(work, 'gateway-heartbeat.log'), log())
      await gw.stop()
    }
  })

  const failed = results.filter((r) => !r.ok).length
  console.log(`test:real: ${results.length - failed} passed, ${failed} failed (${secs()} s, openclaw@${OPENCLAW_VERSION})`)
  process.exitCode = failed ? 1 : 0
} finally {
  if (process.env.TEST_REAL_KEEP === '1') writeFileSync(join(work, 'requests.json'), JSON.stringify(server.requests, null, 1))
  await server.close()
  // A process the run started may still be writing its home (Claude Code's own files): retry, and never let the
  // clean-up fail a run whose checks are already counted.
  if (process.env.TEST_REAL_KEEP !== '1') {
    try {
      rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
    } catch (e) {
      console.log(`  note: ${work} not fully removed: ${e.code ?? e}`)
    }
  }
  else console.log(`kept ${work}`)
}
