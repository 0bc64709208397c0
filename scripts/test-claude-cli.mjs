#!/usr/bin/env node
// `npm run test:claude-cli`: the plugin under OpenClaw's Claude Code runtime, asserting on what Claude Code sent.
//
// The pinned openclaw's CLI runs `openclaw agent --local` turns (one process per turn, as users run it) with
// `agents.defaults.model` `anthropic/claude-sonnet-5` and `agentRuntime.id: "claude-cli"` for it, so each turn
// runs through the real `claude` binary of @anthropic-ai/claude-code (installed from the npm registry into
// .cache/claude-code/ on first use, CLAUDE_CODE_VERSION below). Claude Code's user settings (HOME/.claude) point
// it at scripts/lib/model-server.mjs in its Anthropic Messages mode on 127.0.0.1 with a dummy API key and its
// non-essential traffic off; OpenClaw's `anthropic` provider points there too (its own summarizer, if it runs,
// stays on loopback). The server records every request and answers from the scenario with the `usage` that
// drives Claude Code's and OpenClaw's accounting: the gauge at 70 %, the 80 % checkpoint, Claude Code's own
// compaction (a reported context past its threshold) and the restore in the first request after it.
//
// The plugin is loaded from its sources by path with `plugins.allow: ['context-native', 'anthropic']` (the
// bundled plugin that owns the claude-cli backend); `npm run test:real` covers the packed install.
// Prints `test:claude-cli: N passed, N failed`. TEST_CLAUDE_KEEP=1 keeps the temporary folder (with
// requests.json and gateway.log); TEST_CLAUDE_VERBOSE=1 prints OpenClaw's output per turn.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { ensureOpenClaw, hostNode, openclawDir, OPENCLAW_VERSION, root } from './host.mjs'
import { anthropicContentText, startModelServer } from './lib/model-server.mjs'
import { openclaw as runOpenClaw } from './lib/install-plugin.mjs'
import { copyPluginSources, createChecks, freePort, readCheckpoints, startGateway, stopwatch, workDirs } from './lib/harness.mjs'

/** The Claude Code release measured in docs/plugin.md. */
const CLAUDE_CODE_VERSION = '2.1.332'
const TURN_TIMEOUT_MS = 180_000
const secs = stopwatch()
const verbose = process.env.TEST_CLAUDE_VERBOSE === '1'
const native = createRequire(import.meta.url)('../index.js')

// ---------------------------------------------------------------------------------------------------
// Claude Code from the npm registry, into .cache/claude-code (once; a marker written after a working install).
const claudeDir = join(root, '.cache/claude-code')
const claudeBinDir = join(claudeDir, 'node_modules/.bin')
function claudeVersion() {
  const r = spawnSync(join(claudeBinDir, process.platform === 'win32' ? 'claude.cmd' : 'claude'), ['--version'], { encoding: 'utf8', timeout: 60_000 })
  return r.status === 0 ? r.stdout.trim() : undefined
}
function ensureClaudeCode() {
  const marker = join(claudeDir, '.installed.json')
  try {
    if (JSON.parse(readFileSync(marker, 'utf8')).version === CLAUDE_CODE_VERSION && claudeVersion()?.startsWith(CLAUDE_CODE_VERSION)) return
  } catch {
    // not installed yet
  }
  console.log(`installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} from the npm registry into ${claudeDir} (once)`)
  const staging = `${claudeDir}.partial-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ private: true, description: 'cache: Claude Code for npm run test:claude-cli' })}\n`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], { cwd: staging, stdio: 'inherit' })
  if (r.status !== 0) throw new Error(`npm install @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} failed (exit ${r.status})`)
  rmSync(claudeDir, { recursive: true, force: true })
  renameSync(staging, claudeDir)
  // An npm that skips install scripts leaves the package's own launcher: its postinstall puts the binary in place.
  if (!claudeVersion()) spawnSync(process.execPath, ['install.cjs'], { cwd: join(claudeDir, 'node_modules/@anthropic-ai/claude-code'), stdio: 'inherit' })
  const v = claudeVersion()
  if (!v?.startsWith(CLAUDE_CODE_VERSION)) throw new Error(`claude --version after the install: ${v ?? 'failed'}`)
  writeFileSync(marker, `${JSON.stringify({ version: CLAUDE_CODE_VERSION, installedAt: new Date().toISOString() })}\n`)
}
ensureClaudeCode()
ensureOpenClaw()
// OpenClaw finds `claude` on PATH (install-plugin.mjs's runner puts Node 24 first and keeps this PATH).
process.env.PATH = `${claudeBinDir}:${process.env.PATH}`

const { work, stateDir, home, workspace } = workDirs('claude', ['.claude'])

// ---------------------------------------------------------------------------------------------------
// The scripted model. Each turn's message carries a tag `[tN]`; the scenario gives, per tag, the answers of the
// turn's successive Claude Code calls (the step = tool results since the tagged message). Claude Code's own
// compaction request gets a summary; OpenClaw's summarizer (no tools) gets one too.
const COMPACT_PROMPT = /Your task is to create a detailed summary of the conversation/
const CC_SUMMARY = '<analysis>The user works on the tokenizer.</analysis>\n<summary>1. Primary Request: fix the tokenizer in src/lexer.rs.</summary>'
const turns = new Map()
const lastUserText = (body) => anthropicContentText((body.messages ?? []).findLast((m) => m.role === 'user')?.content)
const isCompaction = (body) => COMPACT_PROMPT.test(lastUserText(body))
const isOpenClawSummary = (body) => !(body.tools?.length > 0)
/** The conversation's text but the system prompt (whose guidance names the scratchpad's markers). */
const conversationText = (body) => (body.messages ?? []).map((m) => anthropicContentText(m.content)).join('\n')
/** The turn a request belongs to: the highest tag in its user messages (a restore quotes earlier turns' tags). */
const tagOf = (body) => {
  let best
  for (const [i, m] of (body.messages ?? []).entries()) {
    if (m.role !== 'user') continue
    for (const x of anthropicContentText(m.content).matchAll(/\[t(\d+)\]/g)) if (!best || Number(x[1]) >= best.n) best = { n: Number(x[1]), tag: `t${x[1]}`, index: i }
  }
  return best
}
/**
 * What OpenClaw's own summarizer (its compaction of its mirror, its activity recaps) gets: a summary in the
 * structure its prompt asks for, since OpenClaw's compaction safeguard rejects one without its sections or the
 * latest user ask (measured: the turn then fails with "CLI transcript compaction failed").
 */
function openclawSummary(body) {
  const prompt = lastUserText(body)
  const asks = [...prompt.matchAll(/^\[User\]: (.*)$/gm)].map((m) => m[1])
  const latest = asks.at(-1) ?? ''
  if (/## Original Request/.test(prompt)) return `## Original Request\n${latest}\n\n## Early Progress\n- Read the files.\n\n## Context for Suffix\n- The work continues in the kept messages.`
  if (/## Decisions/.test(prompt)) {
    return ['## Decisions', '- Fix the tokenizer in src/lexer.rs.', '## Open TODOs', '- Run the tests.', '## Constraints/Rules', '- None stated.', '## Pending user asks', `- ${latest}`, '## Exact identifiers', '- src/lexer.rs'].join('\n')
  }
  return 'Worked on the tokenizer in src/lexer.rs; in progress.'
}

const server = await startModelServer(
  ({ body }) => {
    if (isOpenClawSummary(body)) return { text: openclawSummary(body), usage: { input_tokens: 3000, output_tokens: 300 } }
    if (isCompaction(body)) return { text: CC_SUMMARY, usage: { input_tokens: 40_000, output_tokens: 400 } }
    const at = tagOf(body)
    if (!at) return { text: 'ok', usage: { input_tokens: 12_000 } }
    const step = (body.messages ?? []).slice(at.index + 1).filter((m) => Array.isArray(m.content) && m.content.some((b) => b?.type === 'tool_result')).length
    const script = turns.get(at.tag) ?? []
    return script[Math.min(step, script.length - 1)] ?? { text: 'ok', usage: { input_tokens: 12_000 } }
  },
  { api: 'anthropic' },
)

// Claude Code's user settings (OpenClaw runs it with `--setting-sources user` and clears ANTHROPIC_* from its env).
writeFileSync(
  join(home, '.claude/settings.json'),
  `${JSON.stringify({ env: { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1' } }, null, 2)}\n`,
)

// ---------------------------------------------------------------------------------------------------
// The plugin: its sources and the built binding in a folder OpenClaw loads by path.
function installPlugin() {
  const pluginDir = join(work, 'extensions/context-native')
  copyPluginSources(root, pluginDir)
  console.log('  the plugin loaded from its TypeScript sources by path')
  // anthropic: the bundled plugin that owns the claude-cli backend.
  return { allow: ['context-native', 'anthropic'], load: { paths: [pluginDir] } }
}
const plugins = installPlugin()
const MODEL = 'claude-sonnet-5'
const WINDOW = 200_000
const config = {
  agents: { defaults: { model: { primary: `anthropic/${MODEL}` }, models: { [`anthropic/${MODEL}`]: { agentRuntime: { id: 'claude-cli' } } }, workspace } },
  // Sonnet 5's catalog window is 1M: a 200k budget (`contextTokens`) as a user with a 200k plan sets it. The
  // provider's baseUrl is the loopback server, so nothing OpenClaw itself sends to Anthropic leaves the machine.
  models: {
    mode: 'merge',
    providers: {
      anthropic: {
        baseUrl: server.origin,
        api: 'anthropic-messages',
        models: [{ id: MODEL, name: 'Claude Sonnet 5', reasoning: true, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1_000_000, contextTokens: WINDOW, maxTokens: 64_000 }],
      },
    },
  },
  plugins: { ...plugins, entries: { ...plugins.entries, 'context-native': { ...(plugins.entries?.['context-native'] ?? {}), enabled: true, hooks: { allowConversationAccess: true }, config: {} } } },
}
writeFileSync(join(stateDir, 'openclaw.json'), `${JSON.stringify(config, null, 2)}\n`)

/** One `openclaw agent --local` turn; returns the requests the server received during it. */
async function turn(session, message, { local = true } = {}) {
  const before = server.requests.length
  const t = Date.now()
  const r = await runOpenClaw(['agent', ...(local ? ['--local'] : []), '--session-id', session, '--message', message, '--json', '--timeout', '150'], {
    stateDir,
    home,
    cwd: workspace,
    timeoutMs: TURN_TIMEOUT_MS,
    env: { OPENCLAW_NO_UPDATE_CHECK: '1' },
  })
  if (verbose) console.log(`       [openclaw agent ${message.slice(0, 20)}] exit ${r.status} in ${Date.now() - t} ms\n${r.stderr.split('\n').map((l) => `         ${l}`).join('\n')}`)
  const requests = server.requests.slice(before)
  if (r.status !== 0) throw new Error(`openclaw agent exited ${r.status}: ${(r.stdout + r.stderr).split('\n').slice(-10).join(' | ')}`)
  const claude = requests.filter((q) => q.path.includes('/v1/messages') && !q.path.includes('count_tokens') && !isOpenClawSummary(q.body))
  return { requests, claude, chat: claude.filter((q) => !isCompaction(q.body)), compactions: claude.filter((q) => isCompaction(q.body)), summaries: requests.filter((q) => isOpenClawSummary(q.body)) }
}
const checkpoints = (sessionKey) => readCheckpoints(native, stateDir, sessionKey)
const { check, results } = createChecks()
const HOOK_CONTEXT = 'UserPromptSubmit hook additional context:'
const SCRATCHPAD_MARK = '[Session Scratchpad'
const RESTORE_MARK = '[Post-compaction checkpoint restore]'
const count = (text, mark) => text.split(mark).length - 1

console.log(`openclaw@${OPENCLAW_VERSION} --local on the claude-cli runtime, claude ${claudeVersion()}, model server ${server.origin}; work ${work}`)
const S = 'claude-cli-1'
const KEY = `agent:main:explicit:${S}`
let failedEarly = false
try {
  await check('turn 1: the tools reach Claude Code as mcp__openclaw__*, the guidance names them, a set_plan through MCP succeeds', async () => {
    turns.set('t1', [
      { toolCalls: [{ name: 'mcp__openclaw__session_scratchpad', arguments: { action: 'set_plan', content: '1. read src/lexer.rs\n2. fix the tokenizer\n3. run the tests' } }], usage: { input_tokens: 20_000 } },
      { text: 'Plan set.', usage: { input_tokens: 145_000 } },
    ])
    const t = await turn(S, '[t1] Fix the tokenizer in src/lexer.rs: it splits identifiers on digits.')
    assert.ok(t.chat.length >= 2, `two Claude Code calls (got ${t.chat.length})`)
    const names = (t.chat[0].body.tools ?? []).map((x) => x.name)
    assert.ok(names.includes('mcp__openclaw__session_scratchpad'), `the scratchpad tool: ${names.join(', ')}`)
    assert.ok(names.includes('mcp__openclaw__scratchpad_read'), 'scratchpad_read')
    // The guidance (when to write, what not to write) travels in the tool's own description (plugin/tools.ts).
    const pad = (t.chat[0].body.tools ?? []).find((x) => x.name === 'mcp__openclaw__session_scratchpad')
    assert.match(pad?.description ?? '', /When to write:/, "the guidance in the scratchpad tool's description")
    const result = (t.chat[1].body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).findLast((b) => b?.type === 'tool_result')
    assert.ok(result && !result.is_error, `the MCP call succeeded: ${JSON.stringify(result).slice(0, 300)}`)
    assert.match(anthropicContentText(result.content), /plan/i, 'the scratchpad tool ran')
  })
  await check('turn 2: the scratchpad block and the gauge at 72 % (145k of the 200k budget Claude Code reported) reach Claude Code as hook context', async () => {
    turns.set('t2', [{ text: 'Working on it.', usage: { input_tokens: 165_000 } }])
    const t = await turn(S, '[t2] Go on.')
    const text = conversationText(t.chat[0].body)
    assert.ok(text.includes(HOOK_CONTEXT), 'the prepend arrives as a UserPromptSubmit hook attachment')
    assert.ok(text.includes(SCRATCHPAD_MARK), `the scratchpad block: ${text.slice(-800)}`)
    assert.match(text, /fix the tokenizer/, 'with the plan')
    assert.match(text, /\[Context: 72% \| 145k\/200k tokens\]/, `the gauge line: ${text.slice(-500)}`)
    assert.equal(checkpoints(KEY).length, 0, 'no checkpoint yet')
  })
  await check('turn 3: at 82 % the checkpoint is written once and the gauge says so', async () => {
    // Claude Code reads a file with its own Read tool: OpenClaw's mirror keeps none of it, Claude Code's transcript does.
    turns.set('t3', [
      { toolCalls: [{ name: 'Read', arguments: { file_path: join(workspace, 'USER.md') } }], usage: { input_tokens: 166_000 } },
      { text: 'Patched; tests next.', usage: { input_tokens: 172_000 } },
    ])
    const t = await turn(S, '[t3] Continue.')
    const text = conversationText(t.chat[0].body)
    assert.match(text, /\[Context: 82% \| 165k\/200k tokens \| Checkpoint saved\]/, `the gauge line: ${text.slice(-500)}`)
    const cps = checkpoints(KEY)
    assert.equal(cps.length, 1, 'one checkpoint')
    assert.match(cps[0], /trigger: "auto-80pct"/)
    assert.match(cps[0], /context_window: 200000/)
    // The set_plan through MCP is recorded from after_tool_call (no tool-result middleware under this runtime, and
    // OpenClaw's mirror keeps the turns' text only).
    assert.match(cps[0], /tools_used:\n(?:\s+- .*\n)*\s+- "?session_scratchpad"?\n/, `the MCP call in tools_used: ${cps[0].match(/tools_used:[^\n]*(\n\s+-.*)*/)?.[0]}`)
    assert.equal(t.compactions.length, 0, 'Claude Code did not compact at 165k')
  })
  await check("turn 4: Claude Code compacts by itself (172k reported); the first request after its compaction carries the restore once, with the task and the plan", async () => {
    turns.set('t4', [{ text: 'Tests pass.', usage: { input_tokens: 30_000 } }])
    const t = await turn(S, '[t4] Run the tests.')
    assert.equal(t.compactions.length, 1, `Claude Code's own compaction request (${t.claude.length} requests)`)
    const at = t.claude.indexOf(t.compactions[0])
    const after = t.claude[at + 1]
    assert.ok(after, 'a request after the compaction')
    const text = conversationText(after.body)
    assert.match(text, /This session is being continued from a previous conversation/, 'it is the compacted conversation')
    assert.equal(count(text, RESTORE_MARK), 1, `the restore once in the first request after the compaction: ${text.slice(-1500)}`)
    assert.match(text, /Fix the tokenizer/, 'with the task')
    assert.match(text, /run the tests/, 'and the plan')
    assert.doesNotMatch(text, /\[Context: \d+%/, 'no gauge line of the context being compacted')
    const cps = checkpoints(KEY)
    const compaction = cps.find((y) => /trigger: "compaction"/.test(y))
    assert.match(compaction ?? '', /tokenizer/i, 'a compaction checkpoint of the conversation')
    // read from Claude Code's transcript: the file its Read tool read, as written, and the plan set through MCP
    assert.match(compaction, new RegExp(`files_read:\\n\\s+- "?${join(workspace, 'USER.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?\\n`), `the file read: ${compaction.match(/files_read:[^\n]*(\n\s+-.*)*/)?.[0]}`)
    assert.match(compaction, /next_action: .*read src\/lexer\.rs.*run the tests/s, `the plan set with session_scratchpad: ${compaction.match(/next_action:.*$/m)?.[0]}`)
    const restore = text.slice(text.indexOf(RESTORE_MARK))
    assert.match(restore.slice(0, restore.indexOf('</checkpoint-data>')), /USER\.md/, `the restore names the file read: ${restore.slice(0, 1500)}`)
    // the compacted messages kept as history (issue 49): the restore names the entry, which holds the conversation
    assert.match(text, /\[Messages? #\d+(?:-#\d+)? compacted: history-1 \([\d.]+ [KM]?B\)\. Grep all: scratchpad_read \{"name":"history","pattern":"<regex>"\}\]/, `the history line: ${text.slice(-800)}`)
    const kept = native.readObservationSync({ stateDir, sessionKey: KEY, name: 'history', pattern: 'Fix the tokenizer' })
    assert.ok(kept.matches >= 1 && /:\[#\d+ user [-\dT:Z]+\] /.test(kept.content), `the history holds the request: ${kept.content.slice(0, 400)}`)
    // and the tool results (from Claude Code's transcript: this runtime parks nothing, the mirror has no results)
    const result = native.readObservationSync({ stateDir, sessionKey: KEY, name: 'history', pattern: 'Plan replaced' })
    assert.ok(result.matches >= 1, `the history holds the set_plan result: ${result.content.slice(0, 400)}`)
  })
  await check('turn 5: no second restore; the scratchpad block is still there; no gauge at 15 %', async () => {
    turns.set('t5', [{ text: 'Done.', usage: { input_tokens: 150_000 } }])
    const t = await turn(S, '[t5] Anything left?')
    const text = conversationText(t.chat[0].body)
    const turnText = text.slice(text.lastIndexOf('[t5]'))
    assert.equal(count(turnText, RESTORE_MARK), 0, 'the restore was given once')
    assert.ok(turnText.includes(SCRATCHPAD_MARK), 'the scratchpad block')
    assert.doesNotMatch(turnText, /\[Context: \d+%/, 'no gauge line below 70 %')
    assert.equal(t.compactions.length, 0, 'no second compaction')
  })
  await check('turns 6-7: Claude Code compacts between two calls of a turn (178k reported by a tool call); no hook announces it, the reported context drops from 150k to 35k, and the next turn\'s first request carries the restore once', async () => {
    turns.set('t6', [
      { toolCalls: [{ name: 'mcp__openclaw__session_scratchpad', arguments: { action: 'append_notes', content: 'The digit split is in next_token().' } }], usage: { input_tokens: 178_000 } },
      { text: 'Noted.', usage: { input_tokens: 35_000 } },
    ])
    const a = await turn(S, '[t6] Find where the digits are split.')
    assert.match(conversationText(a.chat[0].body).slice(conversationText(a.chat[0].body).lastIndexOf('[t6]')), /\[Context: 75% \| 150k\/200k tokens\]/, 'the gauge before the turn')
    assert.equal(a.compactions.length, 1, `Claude Code compacted inside the turn (${a.claude.length} requests)`)
    const at = a.claude.indexOf(a.compactions[0])
    assert.ok(at >= 1, 'after the tool call')
    const inTurn = conversationText(a.claude[at + 1].body)
    assert.equal(count(inTurn, RESTORE_MARK), 0, 'the request after a compaction inside the turn has no restore (nothing announced it)')
    turns.set('t7', [{ text: 'Back on the digit split.', usage: { input_tokens: 37_000 } }])
    const b = await turn(S, '[t7] Where were we?')
    const text = conversationText(b.chat[0].body)
    const turnText = text.slice(text.lastIndexOf('[t7]'))
    assert.equal(count(turnText, RESTORE_MARK), 1, `the restore once in the next turn: ${turnText.slice(0, 1200)}`)
    assert.match(turnText, /Fix the tokenizer/, 'with the task')
    assert.equal(checkpoints(KEY).filter((y) => /trigger: "compaction"/.test(y)).length, 2, 'a checkpoint per Claude Code compaction')
  })
  await check("turns 10-11: 195k reported: OpenClaw compacts its own mirror after the turn (its summarizer on the loopback API) and the next turn starts a fresh Claude Code session holding none of the conversation; its first request carries the restore once, with the task and the scratchpad", async () => {
    turns.set('t10', [{ text: 'Big diff read.', usage: { input_tokens: 195_000 } }])
    const a = await turn(S, '[t10] Read the whole diff.')
    turns.set('t11', [{ text: 'Summarized.', usage: { input_tokens: 33_000 } }])
    const b = await turn(S, '[t11] What changed?')
    assert.ok(a.summaries.length + b.summaries.length >= 1, `OpenClaw's own summarizer ran (${a.summaries.length} + ${b.summaries.length} requests)`)
    assert.equal(b.compactions.length, 0, 'Claude Code did not compact: its session was replaced')
    const first = b.chat[0]
    assert.ok((first.body.messages ?? []).length <= 2, `a fresh Claude Code session: ${(first.body.messages ?? []).length} messages`)
    const text = conversationText(first.body)
    assert.ok(!(first.body.messages ?? []).some((m) => m.role === 'assistant'), 'none of the earlier turns: no assistant message')
    assert.equal(count(text, RESTORE_MARK), 1, `the restore once: ${text.slice(text.lastIndexOf('[t11]'), text.lastIndexOf('[t11]') + 1500)}`)
    assert.match(text, /Fix the tokenizer/, 'with the task')
    assert.match(text, /next_token\(\)/, 'and the scratchpad notes')
  })
  await check('gateway: two turns through a gateway on loopback (its warm Claude Code process): the scratchpad block and the gauge in each', async () => {
    const port = await freePort()
    writeFileSync(join(stateDir, 'openclaw.json'), `${JSON.stringify({ ...config, gateway: { mode: 'local', bind: 'loopback', port, auth: { mode: 'none' } } }, null, 2)}\n`)
    const node = hostNode()
    const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: stateDir, NO_COLOR: '1', OPENCLAW_NO_UPDATE_CHECK: '1', PATH: `${join(node, '..')}:${process.env.PATH}` }
    // Its own process group, so that stopping it stops whatever it started (Claude Code too).
    const gw = startGateway({ node, openclawBin: join(openclawDir, 'openclaw.mjs'), port, env, cwd: workspace })
    try {
      await gw.ready()
      const G = 'claude-cli-gateway'
      turns.set('t8', [
        { toolCalls: [{ name: 'mcp__openclaw__session_scratchpad', arguments: { action: 'set_plan', content: '1. profile the cache\n2. shrink the hot path' } }], usage: { input_tokens: 20_000 } },
        { text: 'Profiling.', usage: { input_tokens: 146_000 } },
      ])
      turns.set('t9', [{ text: 'Shrinking.', usage: { input_tokens: 150_000 } }])
      await turn(G, '[t8] Speed up the cache lookups.', { local: false })
      const t = await turn(G, '[t9] Continue.', { local: false })
      const text = conversationText(t.chat[0].body)
      const turnText = text.slice(text.lastIndexOf('[t9]'))
      assert.ok(turnText.includes(SCRATCHPAD_MARK) && /shrink the hot path/.test(turnText), `the scratchpad block: ${turnText.slice(0, 600)}`)
      assert.match(turnText, /\[Context: 73% \| 146k\/200k tokens\]/, 'the gauge')
    } finally {
      writeFileSync(join(work, 'gateway.log'), gw.log())
      await gw.stop()
    }
  })
  // Nothing went anywhere but the loopback server: every request the scenario made was recorded here.
  await check('every model request reached the loopback server (Claude Code and OpenClaw)', async () => {
    assert.ok(server.requests.length >= 7, `requests recorded: ${server.requests.length}`)
    const unknown = server.requests.filter((q) => !q.path.startsWith('/v1/messages'))
    assert.deepEqual(unknown.map((q) => q.path), [], 'no other endpoint was called')
  })
} catch (e) {
  failedEarly = true
  console.log(`  FAIL ${e?.stack ?? e}`)
} finally {
  if (process.env.TEST_CLAUDE_KEEP === '1') writeFileSync(join(work, 'requests.json'), JSON.stringify(server.requests, null, 1))
  await server.close()
  // A process the run started may still be writing its home (Claude Code's own files): retry, and never let the
  // clean-up fail a run whose checks are already counted.
  if (process.env.TEST_CLAUDE_KEEP !== '1') {
    try {
      rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
    } catch (e) {
      console.log(`  note: ${work} not fully removed: ${e.code ?? e}`)
    }
  }
  else console.log(`kept ${work}`)
}
const failed = results.filter((r) => !r.ok).length + (failedEarly ? 1 : 0)
console.log(`test:claude-cli: ${results.length - failed + (failedEarly ? 1 : 0)} passed, ${failed} failed (${secs()} s, openclaw@${OPENCLAW_VERSION}, claude-code@${CLAUDE_CODE_VERSION})`)
process.exitCode = failed ? 1 : 0
