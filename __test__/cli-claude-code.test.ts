// replay / inspect on a real Claude Code transcript (OpenClaw's Claude SDK runner writes this format): the
// bundled one is a real session with one auto compaction at 170,251 tokens, MIT (see the README beside the
// transcripts). Every number the report gives is checked against the transcript read here the plain way:
// file order, one assistant message per `message.id`, one tool result per `tool_result` block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const CLI = join(resolve(here, '..'), 'bin', 'openclaw-context.mjs')
const CC = join(here, 'fixtures', 'transcripts', 'claude-code', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl')
const native = createRequire(import.meta.url)('../index.js')

let tmp: string
beforeAll(() => {
  tmp = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'cli-cc-test-'))
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
})

function run(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function replayJson(file: string, extra: string[] = []) {
  const stateDir = mkdtempSync(join(tmp, 'state-'))
  const r = run(['replay', file, '--json', '--state-dir', stateDir, ...extra])
  expect(r.stderr).toBe('')
  return { code: r.code, report: JSON.parse(r.stdout), stateDir }
}

let once: ReturnType<typeof replayJson> | undefined
const replayed = () => (once ??= replayJson(CC))

/** The transcript read the plain way. */
function plain(file: string) {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
    .filter((o) => o.isSidechain !== true)
  const byId = new Map<string, any>()
  const order: any[] = [] // assistant messages (by id) and compactions, in file order
  const toolResults: string[] = []
  let users = 0
  const compactions: Array<{ preTokens: number; summary: string }> = []
  for (const o of lines) {
    if (o.type === 'assistant') {
      const id = o.message.id
      if (!byId.has(id)) {
        const u = o.message.usage
        const m = { kind: 'assistant', tokens: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens, lines: 0 }
        byId.set(id, m)
        order.push(m)
      }
      byId.get(id).lines++
    } else if (o.type === 'system' && o.subtype === 'compact_boundary') {
      const c = { preTokens: o.compactMetadata.preTokens, summary: '' }
      compactions.push(c)
      order.push({ kind: 'compaction', tokens: c.preTokens })
    } else if (o.type === 'user') {
      if (o.isCompactSummary) {
        compactions.at(-1)!.summary = o.message.content
        continue
      }
      const c = o.message.content
      if (typeof c === 'string') users++
      else {
        for (const b of c) if (b.type === 'tool_result') toolResults.push(typeof b.content === 'string' ? b.content : b.content.filter((x: any) => x.type === 'text').map((x: any) => x.text).join('\n'))
        if (c.some((b: any) => b.type !== 'tool_result')) users++
      }
    }
  }
  const assistants = order.filter((x) => x.kind === 'assistant')
  return { lines, order, assistants, toolResults, users, compactions, peak: Math.max(...assistants.map((a) => a.tokens)) }
}

describe('replay: a real Claude Code transcript', () => {
  it('reads it as Claude Code: turns, usage once per message id, the compaction and its real summary', () => {
    const f = plain(CC)
    const { code, report } = replayed()
    expect(code).toBe(0)
    expect(report.format).toBe('claude-code')
    expect(report.version).toBe('2.1.39')
    expect(report.sessionId).toBe('4d5611e5-241a-462a-8d15-5122611a9569')
    expect(report.problems).toEqual([])
    // Claude Code writes one API message as several lines (one block each) sharing message.id and usage.
    expect(f.assistants.some((a) => a.lines > 1)).toBe(true)
    expect(report.turns).toEqual({
      assistant: f.assistants.length,
      withUsage: f.assistants.length,
      user: f.users,
      toolResults: f.toolResults.length,
      compactions: 1,
    })
    expect(report.peak.tokens).toBe(f.peak)
    expect(report.estimator.samples).toBe(f.assistants.length) // not one per line
    expect(report.compactions).toHaveLength(1)
    expect(report.compactions[0].tokensBefore).toBe(170_251)
    expect(f.compactions[0].summary.length).toBeGreaterThan(10_000)
    expect(report.compactions[0].summaryTokens).toBe(native.countTokens(f.compactions[0].summary))
    // The first estimate after the compaction: the overhead learned at the first turns plus the
    // summary (Claude Code keeps no messages), against the provider's next figure.
    const after = report.estimator.afterCompaction
    expect(after).toHaveLength(1)
    const firstAfter = f.order.slice(f.order.findIndex((x) => x.kind === 'compaction') + 1).find((x) => x.kind === 'assistant')
    expect(after[0].compactionLine).toBe(754)
    expect(after[0].provider).toBe(firstAfter.tokens)
    expect(after[0].carriedTokens).toBe(0)
    expect(after[0].estimate).toBe(after[0].overheadTokens + after[0].countedTokens)
    // The overhead is the one measured where least was counted: the first turn's usage minus its prompt.
    const first = f.assistants[0].tokens
    expect(Math.abs(after[0].overheadTokens - first) / first).toBeLessThan(0.02)
  })

  it('checkpoints where the gauge and the compaction put them, and tool results over 4096 bytes offloaded', () => {
    const f = plain(CC)
    const { report } = replayed()
    // The writer's rule (see cli.test.ts): every turn at 80%+ and every compaction, skipping moves under 5%.
    const want: Array<{ trigger: string; turn: number }> = []
    let last: { tokens: number; count: number } | null = null
    let count = 0
    let turn = 0
    for (const x of f.order) {
      if (x.kind === 'compaction') count++
      else turn++
      const trigger = x.kind === 'compaction' ? 'compaction' : 'auto-80pct'
      if (trigger === 'auto-80pct' && x.tokens / 200_000 < 0.8) continue
      const newCount = trigger === 'compaction' && last !== null && last.count !== count
      if (last === null || newCount || Math.abs(x.tokens - last.tokens) >= 0.05 * last.tokens) {
        want.push({ trigger, turn })
        last = { tokens: x.tokens, count }
      }
    }
    expect(want.some((w) => w.trigger === 'compaction')).toBe(true)
    expect(report.errors).toEqual([])
    expect(report.checkpoints.written.map((c: any) => ({ trigger: c.trigger, turn: c.turn }))).toEqual(want)
    const cp = report.checkpoints.written.find((c: any) => c.trigger === 'compaction')
    expect(cp.summaryTokens).toBe(native.countTokens(f.compactions[0].summary))
    expect(cp.restoreTokens).toBeGreaterThan(0)

    expect(report.offload.offered).toBe(f.toolResults.length)
    // Size rule of seed 003: the JSON of {content, metadata} over the threshold; metadata carries the call id.
    const ids = f.lines.flatMap((o) => (o.type === 'user' && Array.isArray(o.message.content) ? o.message.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id) : []))
    expect(ids).toHaveLength(f.toolResults.length)
    const over = f.toolResults.filter((t, i) => Buffer.byteLength(JSON.stringify({ content: t, metadata: { toolCallId: ids[i] } })) > 4096)
    expect(over.length).toBeGreaterThan(10)
    expect(report.offload.offloaded).toBe(over.length)
    expect(report.offload.tokensBefore).toBe(over.reduce((a, t) => a + native.countTokens(t), 0))
    expect(report.offload.tokensMoved).toBeGreaterThan(0)
  })

  it('applies session_scratchpad / session.scratchpad calls, MCP-named too, and skips a line holding two objects', () => {
    const lines = readFileSync(CC, 'utf8').split('\n').filter((l) => l !== '')
    const objs = lines.map((l) => JSON.parse(l))
    // Three calls added as extra lines of existing assistant messages (same message.id, as Claude Code
    // writes a message's blocks), each with a tool_result line answering it.
    const hosts = objs.map((o, i) => [o, i] as const).filter(([o]) => o.type === 'assistant' && !o.isSidechain)
    const calls = [
      { name: 'session_scratchpad', input: { action: 'set_plan', content: '1. fix the credo nesting\n2. run mix test' } },
      { name: 'session.scratchpad', input: { action: 'refs.add', ref: 'lib/spotter_web/components/transcript_components.ex' } },
      { name: 'mcp__openclaw__session_scratchpad', input: { action: 'append_notes', content: 'debug sidecar lives in the shared component' } },
    ]
    const out = [...lines]
    const inserts: Array<[number, string[]]> = []
    calls.forEach((c, k) => {
      const [host, at] = hosts[20 + k * 40]
      const id = `toolu_sp${k}`
      const a = { ...host, uuid: `sp-a-${k}`, parentUuid: host.uuid, message: { ...host.message, content: [{ type: 'tool_use', id, name: c.name, input: c.input }] } }
      const r = { type: 'user', uuid: `sp-r-${k}`, parentUuid: `sp-a-${k}`, isSidechain: false, sessionId: host.sessionId, timestamp: host.timestamp, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } }
      inserts.push([at + 1, [JSON.stringify(a), JSON.stringify(r)]])
    })
    for (const [at, add] of inserts.reverse()) out.splice(at, 0, ...add)
    // Two objects on one line: the line is skipped, as pi skips it. The two are links of the uuid chain
    // (the assistant line after them names the second as parent): the conversation before them is still read.
    const joinAt = out.findIndex((l, i) => {
      if (i < 100 || i + 2 >= out.length) return false
      const [a, b, c] = [l, out[i + 1], out[i + 2]].map((x) => JSON.parse(x))
      return a.type === 'progress' && b.type === 'progress' && b.parentUuid === a.uuid && c.type === 'assistant' && c.parentUuid === b.uuid
    })
    expect(joinAt).toBeGreaterThan(0)
    out.splice(joinAt, 2, out[joinAt] + out[joinAt + 1])
    const file = join(tmp, 'cc-scratchpad.jsonl')
    writeFileSync(file, out.join('\n') + '\n')
    const { report } = replayJson(file)
    expect(report.format).toBe('claude-code')
    expect(report.problems.map((p: any) => [p.line, p.kind])).toEqual([
      [joinAt + 1, 'two-objects'],
      [joinAt + 2, 'orphan'],
    ])
    expect(report.scratchpad.calls).toBe(3)
    expect(report.scratchpad.applied).toBe(3)
    const sid = `cc-test-${process.pid}`
    for (const c of calls) native.applyScratchpadAction(sid, c.input)
    const block = native.getScratchpadContent(sid)
    native.clearScratchpad(sid)
    expect(report.scratchpad.prepend).toEqual({ chars: block.length, tokens: native.countTokens(block) })
    // The calls joined their messages: no extra turns.
    expect(report.turns.assistant).toBe(plain(CC).assistants.length)
  })

  it('a compaction the conversation does not chain through (one that keeps messages) is reported, not replayed silently', () => {
    // The shape newer Claude Code versions write (compactMetadata.preservedMessages; the next line
    // chains to the kept message, not to the boundary), reduced to six lines.
    const usage = { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, output_tokens: 5 }
    const lines = [
      { type: 'user', uuid: 'u0', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'dropped prompt' } },
      { type: 'assistant', uuid: 'a0', parentUuid: 'u0', sessionId: 's', message: { id: 'm0', role: 'assistant', content: [{ type: 'text', text: 'reply' }], usage } },
      { type: 'user', uuid: 'k1', parentUuid: 'a0', sessionId: 's', message: { role: 'user', content: 'kept prompt' } },
      { type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: null, compactMetadata: { trigger: 'auto', preTokens: 5000, preservedMessages: { anchorUuid: 'a0', uuids: ['k1'] } } },
      { type: 'user', uuid: 's1', parentUuid: 'b1', isCompactSummary: true, message: { role: 'user', content: 'summary' } },
      { type: 'user', uuid: 'u1', parentUuid: 'k1', sessionId: 's', message: { role: 'user', content: 'new prompt' } },
    ]
    const file = join(tmp, 'preserved.jsonl')
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const { code, report } = replayJson(file)
    expect(code).toBe(0)
    expect(report.problems.map((p: any) => [p.line, p.kind])).toEqual([[4, 'compaction-not-on-branch']])
    expect(report.problems[0].detail).toMatch(/preservedMessages/)
    expect(report.turns.compactions).toBe(0)
  })

  it('a prompt typed while the agent worked (a queue-operation Claude Code folds into the turn) is a user message', () => {
    // Claude Code records a plain prompt queued mid-turn only as `enqueue` + `remove` (its text is nowhere
    // else); a slash command waits for the turn's end and a background task's notification comes as a user
    // line of its own: neither is the user's prompt here.
    const usage = { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, output_tokens: 5 }
    const at = (s: number) => `2026-02-11T20:5${s}:00.000Z`
    const q = (operation: string, s: number, content?: string) => ({ type: 'queue-operation', operation, timestamp: at(s), sessionId: 's', ...(content ? { content } : {}) })
    const lines = [
      { type: 'user', uuid: 'u0', parentUuid: null, sessionId: 's', timestamp: at(0), message: { role: 'user', content: 'Implement the transcript parser' } },
      { type: 'assistant', uuid: 'a0', parentUuid: 'u0', sessionId: 's', timestamp: at(1), message: { id: 'm0', role: 'assistant', content: [{ type: 'tool_use', id: 't0', name: 'Bash', input: { command: 'cargo test' } }], usage } },
      q('enqueue', 1, '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>'),
      q('enqueue', 2, 'keep the old parser behind a --legacy flag'),
      q('remove', 2),
      q('enqueue', 2, '/compact'),
      q('remove', 2),
      { type: 'user', uuid: 'r0', parentUuid: 'a0', sessionId: 's', timestamp: at(3), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't0', content: 'ok' }] } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'r0', sessionId: 's', timestamp: at(4), message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Tests pass; adding the --legacy flag.' }], usage } },
      { type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: null, timestamp: at(5), compactMetadata: { trigger: 'manual', preTokens: 5000 } },
      { type: 'user', uuid: 's1', parentUuid: 'b1', timestamp: at(5), isCompactSummary: true, message: { role: 'user', content: 'summary' } },
    ]
    const file = join(tmp, 'queued.jsonl')
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const { code, report } = replayJson(file)
    expect(code).toBe(0)
    expect(report.problems).toEqual([])
    expect(report.turns.user).toBe(2)
    const cp = report.checkpoints.written.find((c: any) => c.trigger === 'compaction')
    const yaml = readFileSync(cp.path, 'utf8')
    // the latest request is the one the agent was answering, taken after the tool result it came with
    expect(yaml).toMatch(/topic: \|-\n\s+keep the old parser behind a --legacy flag\n/)
    expect(yaml).toMatch(/task: \|-\n\s+Implement the transcript parser\n/)
    expect(yaml).not.toContain('/compact')
    expect(yaml).not.toContain('task-notification')
  })

  it('a subagent transcript (every line isSidechain) is read as its own conversation', () => {
    const lines = readFileSync(CC, 'utf8').split('\n').filter((l) => l !== '').slice(0, 300)
    const main = join(tmp, 'main-part.jsonl')
    const sub = join(tmp, 'agent-part.jsonl')
    writeFileSync(main, lines.join('\n') + '\n')
    writeFileSync(sub, lines.map((l) => JSON.stringify({ ...JSON.parse(l), isSidechain: true, agentId: 'a1' })).join('\n') + '\n')
    const a = JSON.parse(run(['inspect', main, '--json']).stdout)
    const b = JSON.parse(run(['inspect', sub, '--json']).stdout)
    expect(a.turns.assistant).toBeGreaterThan(20)
    expect(b.turns).toEqual(a.turns)
    expect(b.peak).toEqual(a.peak)
  })

  it('inspect <transcript> gives the same facts without writing anything', () => {
    const f = plain(CC)
    const r = run(['inspect', CC, '--json'])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.format).toBe('claude-code')
    expect(s.turns.assistant).toBe(f.assistants.length)
    expect(s.turns.toolResults).toBe(f.toolResults.length)
    expect(s.peak.tokens).toBe(f.peak)
    expect(s.compactions.map((c: any) => [c.tokensBefore, c.summaryTokens])).toEqual([[170_251, native.countTokens(f.compactions[0].summary)]])
    const text = run(['inspect', CC]).stdout
    expect(text).toContain('Claude Code / Claude Agent SDK transcript (written by Claude Code 2.1.39)')
    expect(text).toContain('line 754: 170,251 tokens before')
  })

  it('reads the bookkeeping lines newer Claude Code versions write (pr-link, ai-title, mode) as such, not as damage', () => {
    const lines = readFileSync(CC, 'utf8').split('\n').filter((l) => l !== '').slice(0, 200)
    const sessionId = JSON.parse(lines.find((l) => JSON.parse(l).sessionId) as string).sessionId
    const extra = [
      { type: 'pr-link', sessionId, prNumber: 7, prUrl: 'https://github.com/o/r/pull/7', prRepository: 'o/r', timestamp: '2026-02-19T20:00:00.000Z' },
      { type: 'ai-title', sessionId, aiTitle: 'Fix the breadcrumbs' },
      { type: 'mode', sessionId, mode: 'normal' },
    ].map((o) => JSON.stringify(o))
    const file = join(tmp, 'bookkeeping.jsonl')
    writeFileSync(file, [...lines.slice(0, 100), ...extra, ...lines.slice(100)].join('\n') + '\n')
    const withExtra = JSON.parse(run(['inspect', file, '--json']).stdout)
    expect(withExtra.problems).toEqual([])
    writeFileSync(file, [...lines.slice(0, 100), JSON.stringify({ type: 'telemetry-ping', sessionId }), ...lines.slice(100)].join('\n') + '\n')
    const withUnknown = JSON.parse(run(['inspect', file, '--json']).stdout)
    expect(withUnknown.problems.map((p: any) => [p.line, p.kind])).toEqual([[101, 'unknown-type']])
  })
})
