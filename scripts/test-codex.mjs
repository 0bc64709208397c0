#!/usr/bin/env node
// `npm run test:codex`: the plugin under OpenClaw's Codex harness (`openai/*` through the Codex app-server),
// asserting on what the codex binary sent.
//
// The pinned openclaw's CLI runs `openclaw agent --local` turns with `agents.defaults.model` `openai/gpt-5.5` and
// `agentRuntime.id: "codex"` for it. The harness is the separate @openclaw/codex plugin, installed from the npm
// registry into the test's state the way users install it (`openclaw plugins install @openclaw/codex@<version>`,
// which brings the codex binary of its @openai/codex dependency). The Codex app-server is pointed at
// scripts/lib/model-server.mjs in its Responses API mode on 127.0.0.1 through its own config
// (`appServer.args`: `-c openai_base_url=...`, the 200k window and its compaction limit); OpenClaw's `openai`
// provider keeps its official route (a custom baseUrl makes the harness refuse the model: "Codex cannot
// reproduce the prepared provider route", measured), and the local app-server falls back to OPENAI_API_KEY (a
// dummy) for its login. Codex also tries to reach github.com and chatgpt.com at start (its curated plugins,
// remote control): offline here those fail and are logged by Codex; nothing of the model traffic leaves loopback.
//
// Prints `test:codex: N passed, N failed`. TEST_CODEX_ONLY=<part of a check's name> runs those checks (a|b: either;
// the turns of one session depend on each other). TEST_CODEX_KEEP=1 keeps the temporary folder (with requests.json);
// TEST_CODEX_VERBOSE=1 prints OpenClaw's output per turn.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { ensureOpenClaw, OPENCLAW_VERSION, root } from './host.mjs'
import { isCompactionTrigger, responsesItemText, startModelServer } from './lib/model-server.mjs'
import { openclaw as runOpenClaw } from './lib/install-plugin.mjs'
import { copyPluginSources, createChecks, readCheckpoints, stopwatch, workDirs } from './lib/harness.mjs'

/** The @openclaw/codex release measured in docs/plugin.md (the newest on the registry for OpenClaw 2026.9.6). */
const CODEX_PLUGIN_VERSION = '2026.9.5'
const TURN_TIMEOUT_MS = 240_000
const secs = stopwatch()
const verbose = process.env.TEST_CODEX_VERBOSE === '1'
const native = createRequire(import.meta.url)('../index.js')

ensureOpenClaw()
const { work, stateDir, home, workspace } = workDirs('codex')
const ENV = { OPENCLAW_NO_UPDATE_CHECK: '1', OPENAI_API_KEY: 'sk-test-not-a-key' }

// ---------------------------------------------------------------------------------------------------
// The scripted model: each turn's message carries a tag `[tN]`; the scenario gives, per tag, the answers of the
// turn's successive Codex calls (the step = function call outputs since the tagged message; an answer may be a
// function of the request body). Codex's compaction request (a `compaction_trigger` input item; measured, codex
// 0.154.0) gets one opaque compaction item; `/responses/compact` (not used by it) a summary.
const CODEX_SUMMARY = 'Summary: the user works on the tokenizer in src/lexer.rs.'
const turns = new Map()
const inputOf = (body) => (typeof body?.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : (body?.input ?? []))
/** The conversation's text (the input items, not the instructions). */
const conversationText = (body) => inputOf(body).map(responsesItemText).join('\n')
const tagOf = (body) => {
  let best
  for (const [i, m] of inputOf(body).entries()) {
    if (m.type !== 'message' || m.role !== 'user') continue
    for (const x of responsesItemText(m).matchAll(/\[t(\d+)\]/g)) if (!best || Number(x[1]) >= best.n) best = { n: Number(x[1]), tag: `t${x[1]}`, index: i }
  }
  return best
}
const isCompact = (q) => q.path.split('?')[0].endsWith('/responses/compact')
const server = await startModelServer(
  ({ body, requests }) => {
    if (isCompact(requests.at(-1))) return { text: CODEX_SUMMARY, usage: { input_tokens: 40_000 } }
    if (isCompactionTrigger(body)) return { compaction: Buffer.from(CODEX_SUMMARY).toString('base64'), usage: { input_tokens: 175_000, output_tokens: 900 } }
    const at = tagOf(body)
    if (!at) return { text: 'ok', usage: { input_tokens: 12_000 } }
    const step = inputOf(body).slice(at.index + 1).filter((m) => m.type === 'function_call_output').length
    const script = turns.get(at.tag) ?? []
    const answer = script[Math.min(step, script.length - 1)] ?? { text: 'ok', usage: { input_tokens: 12_000 } }
    return typeof answer === 'function' ? answer(body) : answer
  },
  { api: 'responses' },
)

// ---------------------------------------------------------------------------------------------------
// The harness from the npm registry, as users install it; then the plugin from its sources by path.
console.log(`installing @openclaw/codex@${CODEX_PLUGIN_VERSION} from the npm registry into the test state`)
const inst = await runOpenClaw(['plugins', 'install', `@openclaw/codex@${CODEX_PLUGIN_VERSION}`, '--accept-capabilities'], { stateDir, home, env: ENV, timeoutMs: 400_000 })
if (inst.status !== 0) throw new Error(`openclaw plugins install @openclaw/codex@${CODEX_PLUGIN_VERSION} failed: ${(inst.stdout + inst.stderr).slice(-1500)}`)
const installed = JSON.parse(readFileSync(join(stateDir, 'openclaw.json'), 'utf8'))
const codexVersion = (() => {
  const projects = join(stateDir, 'npm/projects')
  for (const d of existsSync(projects) ? readdirSync(projects) : []) {
    const p = join(projects, d, 'node_modules/@openai/codex/package.json')
    if (existsSync(p)) return JSON.parse(readFileSync(p, 'utf8')).version
  }
  return 'unknown'
})()

const pluginDir = join(work, 'extensions/context-native')
copyPluginSources(root, pluginDir)

const MODEL = 'gpt-5.5'
const WINDOW = 200_000
const COMPACT_AT = 170_000
// The harness's control-plane requests to its app-server wait 60 s by default; with npm test's other real-host stages
// beside it on a busy 2-core machine the app-server's start took longer, and turn 1 failed with "codex app-server
// request timed out" (so did the turns after it, on the same session). Bounded by the turn's own --timeout 200.
// Some of the harness's requests wait 60 s whatever this says (it timed out 96 s into a turn again, all six
// side-by-side stages running): npm test now runs two of them at a time (scripts/test.mjs).
const APP_SERVER_REQUEST_TIMEOUT_MS = 180_000
const appServerArgs = ['app-server', '--listen', 'stdio://', '-c', `openai_base_url="${server.url}"`, '-c', `model_context_window=${WINDOW}`, '-c', `model_auto_compact_token_limit=${COMPACT_AT}`]
const config = {
  ...installed,
  agents: { defaults: { model: { primary: `openai/${MODEL}` }, models: { [`openai/${MODEL}`]: { agentRuntime: { id: 'codex' } } }, workspace } },
  plugins: {
    ...installed.plugins,
    allow: ['context-native', 'codex', 'openai'],
    load: { paths: [pluginDir] },
    entries: {
      ...installed.plugins?.entries,
      codex: { ...installed.plugins?.entries?.codex, enabled: true, config: { ...installed.plugins?.entries?.codex?.config, appServer: { args: appServerArgs, requestTimeoutMs: APP_SERVER_REQUEST_TIMEOUT_MS } } },
      'context-native': { enabled: true, hooks: { allowConversationAccess: true }, config: {} },
    },
  },
}
writeFileSync(join(stateDir, 'openclaw.json'), `${JSON.stringify(config, null, 2)}\n`)

/** One `openclaw agent --local` turn; returns the requests the server received during it. */
async function turn(session, message) {
  const before = server.requests.length
  const t = Date.now()
  const r = await runOpenClaw(['agent', '--local', '--session-id', session, '--message', message, '--json', '--timeout', '200'], { stateDir, home, cwd: workspace, timeoutMs: TURN_TIMEOUT_MS, env: ENV })
  if (verbose) console.log(`       [openclaw agent ${message.slice(0, 20)}] exit ${r.status} in ${Date.now() - t} ms\n${r.stderr.split('\n').map((l) => `         ${l}`).join('\n')}`)
  const requests = server.requests.slice(before)
  if (r.status !== 0) throw new Error(`openclaw agent exited ${r.status}: ${(r.stdout + r.stderr).split('\n').slice(-12).join(' | ')}`)
  const posts = requests.filter((q) => q.method === 'POST')
  return { requests, chat: posts.filter((q) => !isCompact(q)), compactions: posts.filter(isCompact) }
}
const checkpoints = (sessionKey) => readCheckpoints(native, stateDir, sessionKey)
const { check, results } = createChecks({ only: process.env.TEST_CODEX_ONLY })
const SCRATCHPAD_MARK = '[Session Scratchpad'
/** A request of a fresh Codex thread seeded with OpenClaw's projection of the conversation (measured shape). */
const isFresh = (body) => inputOf(body).length <= 6 && conversationText(body).includes('OpenClaw assembled context for this turn')
const RESTORE_MARK = '[Post-compaction checkpoint restore]'
const PROJECTION_HEADER = 'OpenClaw assembled context for this turn:'
/** The text of the request's last user message (the turn's: OpenClaw's context, the prepend, the user's text). */
const lastUserText = (body) => responsesItemText(inputOf(body).findLast((m) => m.type === 'message' && m.role === 'user'))
/** The output of the request's last function call, as Codex sent it to the model. */
const lastOutput = (body) => responsesItemText(inputOf(body).findLast((m) => m.type === 'function_call_output'))
const count = (text, mark) => text.split(mark).length - 1
/** The turn's own user message: OpenClaw sends it after "Current user request:" (the prepend, then the message). */
const turnText = (body) => {
  const text = conversationText(body)
  return text.slice(Math.max(0, text.lastIndexOf('Current user request:')))
}

console.log(`openclaw@${OPENCLAW_VERSION} --local on the Codex harness (@openclaw/codex@${CODEX_PLUGIN_VERSION}, codex ${codexVersion}), model server ${server.url}; work ${work}`)
const S = 'codex-1'
const KEY = `agent:main:explicit:${S}`
let failedEarly = false
try {
  await check('turn 1: the plugin\'s tools reach Codex as dynamic tools (namespace openclaw_direct) with the guidance; a set_plan call succeeds', async () => {
    turns.set('t1', [
      { toolCalls: [{ name: 'session_scratchpad', namespace: 'openclaw_direct', arguments: { action: 'set_plan', content: '1. read src/lexer.rs\n2. fix the tokenizer\n3. run the tests' } }], usage: { input_tokens: 20_000 } },
      { text: 'Plan set.', usage: { input_tokens: 145_000 } },
    ])
    const t = await turn(S, '[t1] Fix the tokenizer in src/lexer.rs: it splits identifiers on digits.')
    assert.ok(t.chat.length >= 2, `two Codex calls (got ${t.chat.length})`)
    const ns = (t.chat[0].body.tools ?? []).find((x) => x.type === 'namespace' && x.name === 'openclaw_direct')
    const names = (ns?.tools ?? []).map((x) => x.name)
    assert.ok(names.includes('session_scratchpad') && names.includes('scratchpad_read'), `the plugin's tools in openclaw_direct: ${names.join(', ')}`)
    assert.match(ns.tools.find((x) => x.name === 'session_scratchpad').description ?? '', /When to write:/, "the guidance in the tool's description")
    const out = inputOf(t.chat[1].body).findLast((m) => m.type === 'function_call_output')
    assert.match(responsesItemText(out), /Plan replaced/, `the tool ran: ${JSON.stringify(out).slice(0, 300)}`)
  })
  await check('turn 2: the scratchpad block and the gauge at 72 % (the last call\'s 145k of the 200k window, not the turn\'s 165k sum) in the user message', async () => {
    turns.set('t2', [{ text: 'Working on it.', usage: { input_tokens: 165_000 } }])
    const t = await turn(S, '[t2] Go on.')
    const text = turnText(t.chat[0].body)
    assert.ok(text.includes(SCRATCHPAD_MARK) && /fix the tokenizer/.test(text), `the scratchpad block: ${text.slice(-800)}`)
    assert.match(text, /\[Context: 72% \| 145k\/200k tokens\]/, `the gauge line: ${text.slice(-500)}`)
    assert.equal(checkpoints(KEY).length, 0, 'no checkpoint yet')
  })
  await check('turn 3 (165k reported): the 80 % checkpoint is written once, with the tool call of the mirrored messages; OpenClaw starts a fresh native thread from its projection, and the scratchpad block and the gauge reach it, before the projection', async () => {
    turns.set('t3', [{ text: 'Patched; tests next.', usage: { input_tokens: 175_000 } }])
    const t = await turn(S, '[t3] Continue.')
    const cps = checkpoints(KEY)
    assert.equal(cps.length, 1, 'one checkpoint')
    assert.match(cps[0], /trigger: "auto-80pct"/)
    assert.match(cps[0], /context_window: 200000/)
    assert.match(cps[0], /input_tokens: 165\d{3}/, 'at the 165k the last call reported')
    const used = cps[0].match(/tools_used:\n((?:\s+- .*\n)+)/)?.[1] ?? ''
    assert.match(used, /- "session_scratchpad"/, 'the set_plan, from the mirror (which keeps the tool calls under this harness)')
    assert.doesNotMatch(used, /openclaw_direct/, "not again as Codex's PostToolUse relay names it (namespace + name)")
    // The turn runs on a fresh Codex thread seeded with OpenClaw's projection of the conversation (tool payloads
    // elided). OpenClaw runs before_prompt_build again for that projection: its prependContext (scratchpad block,
    // gauge line) comes before the projection, under OpenClaw's first "Current user request:" header.
    assert.ok(isFresh(t.chat[0].body), `a fresh native thread: ${inputOf(t.chat[0].body).length} items`)
    const text = lastUserText(t.chat[0].body)
    const at = text.indexOf(PROJECTION_HEADER)
    assert.ok(at > 0, 'the projection is in the user message')
    const before = text.slice(0, at)
    assert.ok(before.includes(SCRATCHPAD_MARK) && /fix the tokenizer/.test(before), `the scratchpad block before the projection: ${before.slice(-600)}`)
    assert.match(before, /\[Context: 82% \| 165k\/200k tokens \| Checkpoint saved\]/, `the gauge line: ${before.slice(-300)}`)
  })
  await check("turns 4-5 (175k reported, Codex's compaction limit 170k): no Codex compaction (OpenClaw starts a fresh thread again, with the scratchpad block), no restore; the next resumed thread carries the scratchpad block", async () => {
    turns.set('t4', [{ text: 'Tests pass.', usage: { input_tokens: 30_000 } }])
    const a = await turn(S, '[t4] Run the tests.')
    assert.equal(a.compactions.length, 0, 'Codex did not compact')
    assert.ok(isFresh(a.chat[0].body), 'a fresh native thread')
    const fresh = lastUserText(a.chat[0].body)
    assert.ok(fresh.slice(0, fresh.indexOf(PROJECTION_HEADER)).includes(SCRATCHPAD_MARK), `the scratchpad block before the projection: ${fresh.slice(-900)}`)
    // The prompt is built up to three times on such a turn; one checkpoint a turn (seed 001: a write within 5 % of
    // the last checkpoint's tokens is skipped as a duplicate, 175k is 6 % past 165k).
    const cps = checkpoints(KEY)
    assert.equal(cps.length, 2, 'one more 80 % checkpoint, not one per prompt build')
    assert.match(cps[1], /input_tokens: 175\d{3}/)
    turns.set('t5', [{ text: 'Done.', usage: { input_tokens: 32_000 } }])
    const b = await turn(S, '[t5] Anything left?')
    assert.ok(!isFresh(b.chat[0].body), 'the thread of turn 4 resumed')
    const text = turnText(b.chat[0].body)
    assert.ok(text.includes(SCRATCHPAD_MARK) && /run the tests/.test(text), `the scratchpad block: ${text.slice(-600)}`)
    assert.doesNotMatch(text, /\[Context: \d+%/, 'no gauge line at 15 %')
    for (const q of [...a.chat, ...b.chat]) assert.equal(count(conversationText(q.body), RESTORE_MARK), 0, 'no restore: no compaction hook fired')
    assert.ok(!checkpoints(KEY).some((y) => /trigger: "compaction"/.test(y)), 'no compaction checkpoint')
  })
  await check("Codex's own compaction inside a turn (175k reported before a follow-up call, its limit 170k): before_compaction checkpoints the mirrored messages, after_compaction leaves the restore, and the next turn (the compacted thread resumed) carries it once, before the scratchpad block", async () => {
    // The first call of the turn asks for a tool and reports 175k: Codex is past its auto-compaction limit with a
    // follow-up to make, so it compacts first (a `compaction_trigger` request, answered with the opaque item).
    // Every later call of the turn answers with text.
    let calls = 0
    const t7 = () => (calls++ === 0
      ? { toolCalls: [{ name: 'session_scratchpad', namespace: 'openclaw_direct', arguments: { action: 'set_plan', content: '1. profile the lexer\n2. cache the keyword table' } }], usage: { input_tokens: 175_000 } }
      : { text: 'Continuing with the keyword table.', usage: { input_tokens: 30_000 } })
    turns.set('t7', [t7, t7, t7])
    const C = 'codex-compact'
    const CK = `agent:main:explicit:${C}`
    const a = await turn(C, '[t7] Profile the lexer and speed it up.')
    assert.equal(a.chat.filter((q) => isCompactionTrigger(q.body)).length, 1, 'Codex compacted once, inside the turn')
    assert.equal(a.compactions.length, 0, 'not through /responses/compact')
    const cps = checkpoints(CK)
    assert.equal(cps.length, 1, 'one checkpoint')
    assert.match(cps[0], /trigger: "compaction"/)
    assert.match(cps[0], /next_action: \|-\n\s+1\. profile the lexer; 2\. cache the keyword table/, 'the plan set before the compaction, from the state of that turn')
    turns.set('t8', [{ text: 'Keyword table cached.', usage: { input_tokens: 32_000 } }])
    const b = await turn(C, '[t8] Go on.')
    assert.ok(!isFresh(b.chat[0].body), 'the compacted thread resumed')
    assert.ok(inputOf(b.chat[0].body).some((m) => m.type === 'compaction'), "with Codex's compaction item")
    const text = lastUserText(b.chat[0].body)
    assert.equal(count(text, RESTORE_MARK), 1, `the restore once: ${text.slice(-1500)}`)
    assert.match(text, /Next action: 1\. profile the lexer; 2\. cache the keyword table/)
    assert.ok(text.indexOf(RESTORE_MARK) < text.indexOf(SCRATCHPAD_MARK) && text.indexOf(SCRATCHPAD_MARK) < text.indexOf('[t8] Go on.'), 'the restore, the scratchpad block, then the message')
    // the compacted messages kept as history (issue 49): the restore's last line names the entry, which holds the turn
    assert.match(text, /\[Messages? #\d+(?:-#\d+)? compacted: history-1 \([\d.]+ [KM]?B\)\. Grep all: scratchpad_read \{"name":"history","pattern":"<regex>"\}\]/, `the history line: ${text.slice(0, 1500)}`)
    const kept = native.readObservationSync({ stateDir, sessionKey: CK, name: 'history', pattern: 'Profile the lexer' })
    assert.ok(kept.matches >= 1 && /:\[#\d+ user [-\dT:Z]+\] \[t7\] Profile the lexer and speed it up\./.test(kept.content), `the history holds the compacted request: ${kept.content.slice(0, 400)}`)
  })
  await check("parking: a large result of an OpenClaw dynamic tool (ls, deferred in the openclaw namespace) reaches Codex as the head+tail observation; scratchpad_read by its id returns the slice", async () => {
    // A folder whose listing (one JSON-quoted name a line) is well over the 4 KB threshold.
    mkdirSync(join(workspace, 'logs'), { recursive: true })
    const names = Array.from({ length: 300 }, (_, i) => `build-${String(i).padStart(4, '0')}-tokenizer-lexer-identifier-digits-run.log`)
    for (const n of names) writeFileSync(join(workspace, 'logs', n), '')
    const listing = names.map((n) => JSON.stringify(n)).join('\n')
    const idOf = (text) => text.match(/"scratchpad_id":\s*"([^"]+)"/)?.[1] ?? 'missing'
    turns.set('t6', [
      { toolCalls: [{ name: 'ls', namespace: 'openclaw', arguments: { path: 'logs' } }], usage: { input_tokens: 15_000 } },
      (body) => ({ toolCalls: [{ name: 'scratchpad_read', namespace: 'openclaw_direct', arguments: { scratchpad_id: idOf(lastOutput(body)), mode: 'range', start: 0, end: 200 } }], usage: { input_tokens: 16_000 } }),
      { text: 'Three hundred build logs.', usage: { input_tokens: 17_000 } },
    ])
    const P = 'codex-park'
    const t = await turn(P, '[t6] How many build logs are in logs/?')
    assert.ok(t.chat.length >= 3, `three Codex calls (got ${t.chat.length})`)
    const parked = lastOutput(t.chat[1].body)
    const observation = JSON.parse(parked)
    assert.match(observation.scratchpad_id, /\S/, `the ls result came back as an observation: ${parked.slice(0, 300)}`)
    assert.ok(parked.length < 2500 && observation.size_bytes > 15_000, `small (${parked.length} characters) for ${observation.size_bytes} bytes`)
    assert.ok(observation.summary.startsWith(listing.slice(0, 300)) && observation.summary.endsWith(listing.slice(-300)), `the head and the tail of the listing: ${observation.summary.slice(0, 200)}`)
    assert.match(observation.summary, /\[\.\.\. \d+ characters omitted \.\.\.\]/)
    const stored = native.readObservationSync({ stateDir, sessionKey: `agent:main:explicit:${P}`, id: observation.scratchpad_id, mode: 'full' }).content
    assert.ok(stored.startsWith(listing), `the whole listing is stored: ${stored.slice(0, 200)}`)
    const slice = lastOutput(t.chat[2].body)
    assert.equal(slice.split('\n\n[characters ')[0], stored.slice(0, 200), `scratchpad_read returns the slice: ${slice.slice(0, 300)}`)
    assert.match(slice, /\[characters 0-200 of \d+ in "[^"]+"; read on with offset=200\]$/)
  })
  await check('every model request reached the loopback server', async () => {
    assert.ok(server.requests.length >= 5, `requests recorded: ${server.requests.length}`)
    const unknown = server.requests.filter((q) => !q.path.startsWith('/v1/responses'))
    assert.deepEqual(unknown.map((q) => q.path), [], 'no other endpoint was called')
  })
} catch (e) {
  failedEarly = true
  console.log(`  FAIL ${e?.stack ?? e}`)
} finally {
  if (process.env.TEST_CODEX_KEEP === '1') writeFileSync(join(work, 'requests.json'), JSON.stringify(server.requests, null, 1))
  await server.close()
  // A process the run started may still be writing its home (Claude Code's own files): retry, and never let the
  // clean-up fail a run whose checks are already counted.
  if (process.env.TEST_CODEX_KEEP !== '1') {
    try {
      rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
    } catch (e) {
      console.log(`  note: ${work} not fully removed: ${e.code ?? e}`)
    }
  }
  else console.log(`kept ${work}`)
}
const failed = results.filter((r) => !r.ok).length + (failedEarly ? 1 : 0)
console.log(`test:codex: ${results.length - failed + (failedEarly ? 1 : 0)} passed, ${failed} failed (${secs()} s, openclaw@${OPENCLAW_VERSION}, @openclaw/codex@${CODEX_PLUGIN_VERSION}, codex ${codexVersion})`)
process.exitCode = failed ? 1 : 0
