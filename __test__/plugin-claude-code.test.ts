// Claude Code's own transcript as the source of the claude-cli runtime's checkpoints (plugin/claude-code.ts):
// the span a compaction removes, read as pi messages, from the file OpenClaw's session entry names. The lines are
// those Claude Code 2.1.332 writes under OpenClaw 2026.9.6 (scripts/test-claude-cli.mjs runs the real ones).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { claudeCliSessionId, claudeCodeTranscript, projectKey, spanMessages, transcriptPath } from '../plugin/claude-code.ts'
import { nativeCompactionAfterTurn, nativeCompactionTurn } from '../plugin/runtime.ts'
import { readRecord } from '../plugin/state.ts'
import { nativeSettings } from './checkpoint-helpers.ts'
import { bufferToolResult, flushCaptures } from '../plugin/capture.ts'
import { readCheckpoint, readObservationSync } from '@openclaw/context-native'
import { parseTranscript } from '../bin/lib/transcript.mjs'

const dir = mkdtempSync(join(tmpdir(), 'context-native-claude-code-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const at = (s: number) => `2026-12-07T14:${String(s).padStart(2, '0')}:00.000Z`
const user = (content: unknown, s: number, extra = {}) => ({ type: 'user', timestamp: at(s), message: { role: 'user', content }, ...extra })
const assistant = (content: unknown[], s: number, id = `msg_${s}`, stop = 'tool_use', extra = {}) => ({ type: 'assistant', timestamp: at(s), message: { id, role: 'assistant', content, stop_reason: stop, usage: { input_tokens: 20_000 } }, ...extra })
const boundary = (s: number) => ({ type: 'system', subtype: 'compact_boundary', timestamp: at(s), compactMetadata: { trigger: 'auto', preTokens: 172_000 } })
const summary = (s: number) => user('This session is being continued from a previous conversation that ran out of context. …', s, { isCompactSummary: true })
/** Lines as Claude Code chains them: each names the one before it (`parentUuid`), a boundary starts a new root, a sidechain (a subagent's) is off the chain. */
const chained = (ls: Record<string, unknown>[]) => {
  let parent: string | null = null
  return ls.map((l, i) => {
    if (l.type === 'queue-operation' || l.type === 'attachment') return l
    const uuid = `uuid-${i}`
    const line = l.type === 'system' ? { ...l, uuid, parentUuid: null, logicalParentUuid: parent } : { ...l, uuid, parentUuid: parent }
    if (!l.isSidechain) parent = uuid
    return line
  })
}
const lines = chained([
  { type: 'queue-operation', operation: 'enqueue', content: '[t1] Fix the tokenizer in src/lexer.rs.' },
  { type: 'queue-operation', operation: 'dequeue' },
  user('[Mon 2026-12-07 14:46 UTC] [t1] Fix the tokenizer in src/lexer.rs.', 1),
  { type: 'attachment', attachment: { type: 'hook_additional_context', content: ['[Session Scratchpad - your persistent working memory]'] } },
  assistant([{ type: 'tool_use', id: 'toolu_1', name: 'mcp__openclaw__session_scratchpad', input: { action: 'set_plan', content: '1. read src/lexer.rs\n2. fix the tokenizer' } }], 2),
  user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Plan replaced (40/2000 chars).' }] }], 3),
  // one response in two lines (Claude Code writes a line per content block)
  assistant([{ type: 'thinking', thinking: 'where is the split' }], 4, 'msg_r'),
  assistant([{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/work/app/src/lexer.rs' } }], 4, 'msg_r'),
  user([{ type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'File does not exist.' }], 5),
  assistant([{ type: 'text', text: 'side work' }], 6, 'msg_6', 'end_turn', { isSidechain: true }),
  assistant([{ type: 'text', text: 'The file is missing; I will look for the lexer elsewhere.' }], 7, 'msg_7', 'end_turn'),
  boundary(8),
  summary(9),
  user('[t2] Go on.', 10),
  assistant([{ type: 'tool_use', id: 'toolu_3', name: 'Edit', input: { file_path: '/work/app/src/token.rs', old_string: 'a', new_string: 'b' } }], 11),
  user([{ type: 'tool_result', tool_use_id: 'toolu_3', content: 'The file /work/app/src/token.rs has been updated.' }, { type: 'text', text: 'and keep digits inside names' }], 12),
])
const jsonl = (ls: unknown[]) => `${ls.map((l) => JSON.stringify(l)).join('\n')}\n`

describe("Claude Code's transcript: the span a compaction removes", () => {
  it('reads the span before the last compaction as pi messages: tool calls, results, errors, times', () => {
    const m = spanMessages(jsonl(lines), 'last') as Record<string, unknown>[]
    expect(m.map((x) => x.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'toolResult', 'assistant'])
    expect(m[0]).toMatchObject({ role: 'user', content: '[Mon 2026-12-07 14:46 UTC] [t1] Fix the tokenizer in src/lexer.rs.', timestamp: Date.parse(at(1)) })
    // OpenClaw's tools without their MCP prefix, so the plan set through MCP is the plan
    expect(m[1].content).toEqual([{ type: 'toolCall', id: 'toolu_1', name: 'session_scratchpad', arguments: { action: 'set_plan', content: '1. read src/lexer.rs\n2. fix the tokenizer' } }])
    expect(m[2]).toMatchObject({ toolCallId: 'toolu_1', toolName: 'session_scratchpad', isError: false, content: [{ type: 'text', text: 'Plan replaced (40/2000 chars).' }] })
    // a response written in two lines is one message; the subagent's sidechain is not the conversation
    expect(m[3].content).toEqual([{ type: 'thinking', thinking: 'where is the split' }, { type: 'toolCall', id: 'toolu_2', name: 'Read', arguments: { file_path: '/work/app/src/lexer.rs' } }])
    expect(m[4]).toMatchObject({ toolName: 'Read', isError: true, content: [{ type: 'text', text: 'File does not exist.' }] })
    expect(m[5]).toMatchObject({ content: [{ type: 'text', text: 'The file is missing; I will look for the lexer elsewhere.' }], stopReason: 'end_turn' })
  })

  it('reads the open span after the last compaction, without its summary; a user line with a result and words is both', () => {
    const m = spanMessages(jsonl(lines), 'open') as Record<string, unknown>[]
    expect(m.map((x) => x.role)).toEqual(['user', 'assistant', 'toolResult', 'user'])
    expect(m[0].content).toBe('[t2] Go on.')
    expect(m[2]).toMatchObject({ toolName: 'Edit', isError: false })
    expect(m[3].content).toEqual([{ type: 'text', text: 'and keep digits inside names' }])
    // before any compaction, the whole file is the open span; a file without a compaction has no last one
    const first = lines.slice(0, 11)
    expect(spanMessages(jsonl(first), 'open')).toHaveLength(6)
    expect(spanMessages(jsonl(first), 'last')).toBeUndefined()
    // a damaged line is skipped; a text that is no transcript has no span
    expect(spanMessages(`${jsonl(first)}{"type":"user","mess\n`, 'open')).toHaveLength(6)
    expect(spanMessages('garbage\n\n', 'open')).toBeUndefined()
  })

  it('reads a real Claude Code session as eval:restore measures it: the span of its compaction, message for message', () => {
    const text = readFileSync(join(__dirname, 'fixtures/transcripts/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'), 'utf8')
    const entries = parseTranscript(text).entries.map((e) => e.entry)
    const compaction = entries.findIndex((e) => e.type === 'compaction')
    const measured = entries.slice(0, compaction).filter((e) => e.type === 'message').map((e) => e.message)
    expect(measured.length).toBeGreaterThan(100)
    expect(spanMessages(text, 'last')).toEqual(measured)
    expect(spanMessages(text, 'open')).toEqual(entries.slice(compaction + 1).filter((e) => e.type === 'message').map((e) => e.message))
  })

  it("finds the file as OpenClaw does: the session entry's claude-cli binding, the workspace's project directory", async () => {
    expect(claudeCliSessionId({ cliSessionBindings: { 'claude-cli': { sessionId: ' 8a8f9fe1-7671 ' } } })).toBe('8a8f9fe1-7671')
    expect(claudeCliSessionId({ cliSessionIds: { 'claude-cli': 'abc' } })).toBe('abc')
    expect(claudeCliSessionId({ claudeCliSessionId: 'def' })).toBe('def')
    // never a path: an id with a separator names no file
    expect(claudeCliSessionId({ claudeCliSessionId: '../../etc/passwd' })).toBeUndefined()
    expect(claudeCliSessionId(undefined)).toBeUndefined()
    expect(projectKey('/tmp/context-native-claude-6uEHEO/workspace')).toBe('-tmp-context-native-claude-6uEHEO-workspace')
    expect(projectKey(`/${'x'.repeat(250)}`)).toMatch(/^-x{199}-[0-9a-z]+$/)
    expect(await transcriptPath('abc', '/no/such/ws', '/home/u')).toBe('/home/u/.claude/projects/-no-such-ws/abc.jsonl')
  })
})

describe("Claude Code's transcript: the checkpoint of its compaction", () => {
  const stateDir = join(dir, 'state')
  const settings = nativeSettings(stateDir)
  // The mirror OpenClaw keeps of the same turns: their text only.
  const mirror = [
    { role: 'user', content: '[t1] Fix the tokenizer in src/lexer.rs.', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'text', text: 'Working.' }], usage: { input: 172_000 }, timestamp: 2 },
  ]
  const home = join(dir, 'home')
  const workspace = join(dir, 'workspace')
  mkdirSync(workspace, { recursive: true })
  const api = (entry: unknown) => ({ runtime: { agent: { session: { getSessionEntry: () => entry } } } })

  it('a forecast compaction reads the open span of the bound session: the files, the tools and the plan the mirror lacks', async () => {
    const file = await transcriptPath('sess-1', workspace, home)
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, jsonl(lines.slice(0, 11)))
    process.env.HOME = home
    const transcript = claudeCodeTranscript(api({ cliSessionBindings: { 'claude-cli': { sessionId: 'sess-1' } } }), 'agent:main:cc-1', { workspaceDir: workspace })
    const sessionKey = 'agent:main:cc-1'
    // after_tool_call reports Claude Code's Read as `read` (plugin/index.ts captures it): one tool, not two
    bufferToolResult(stateDir, sessionKey, { toolName: 'read', params: { file_path: '/work/app/src/lexer.rs' }, isError: true })
    await flushCaptures(stateDir, sessionKey)
    const r = await nativeCompactionTurn(settings, { sessionKey, messages: mirror, transcript, contextWindow: 200_000, record: await readRecord(stateDir, sessionKey) })
    expect(r?.restore).toContain('Fix the tokenizer')
    expect(r?.restore).toContain('/work/app/src/lexer.rs')
    const cp = readCheckpoint({ stateDir, sessionKey })
    expect(cp?.working.nextAction).toMatch(/read src\/lexer\.rs.*fix the tokenizer/)
    expect(cp?.resources.toolsUsed).toEqual(expect.arrayContaining(['session_scratchpad', 'Read']))
    expect(cp?.resources.toolsUsed).not.toContain('read')
    // the history entry holds the tool results too (the mirror has none)
    expect(readObservationSync({ stateDir, sessionKey, name: 'history', pattern: 'File does not exist' }).matches).toBe(1)
    // the doctor's evidence says where the checkpoint came from
    expect((await readRecord(stateDir, sessionKey)).evidence?.checkpoint?.source).toBe("Claude Code's compaction, its transcript")
  })

  it('a compaction seen after the turn reads the span it removed; without a binding the mirror is read', async () => {
    const file = await transcriptPath('sess-2', workspace, home)
    writeFileSync(file, jsonl(lines))
    const transcript = claudeCodeTranscript(api({ cliSessionIds: { 'claude-cli': 'sess-2' } }), 'agent:main:cc-2', { workspaceDir: workspace })
    const sessionKey = 'agent:main:cc-2'
    expect(await nativeCompactionAfterTurn(settings, { sessionKey, before: mirror, transcript, reported: 30_000, contextWindow: 200_000, record: await readRecord(stateDir, sessionKey) })).toBe(true)
    const cp = readCheckpoint({ stateDir, sessionKey })
    expect(cp?.resources.toolsUsed).toEqual(expect.arrayContaining(['Read']))
    expect(JSON.stringify(cp)).not.toContain('token.rs') // the open span is the next compaction's
    const none = claudeCodeTranscript(api({}), 'agent:main:cc-3', { workspaceDir: workspace })
    expect(await none('open')).toBeUndefined()
    expect(await claudeCodeTranscript({}, 'agent:main:cc-3', { workspaceDir: workspace })('open')).toBeUndefined()
    const sessionKey3 = 'agent:main:cc-3'
    await nativeCompactionTurn(settings, { sessionKey: sessionKey3, messages: mirror, transcript: none, contextWindow: 200_000, record: await readRecord(stateDir, sessionKey3) })
    expect((await readRecord(stateDir, sessionKey3)).evidence?.checkpoint?.source).toBe("Claude Code's compaction, OpenClaw's mirror")
    expect(readFileSync(file, 'utf8')).toBe(jsonl(lines)) // read, never written
    // a symbolic link in Claude Code's projects folder is not followed
    symlinkSync(file, await transcriptPath('sess-link', workspace, home))
    expect(await claudeCodeTranscript(api({ claudeCliSessionId: 'sess-link' }), 'agent:main:cc-4', { workspaceDir: workspace })('last')).toBeUndefined()
    expect(await claudeCodeTranscript(api({ claudeCliSessionId: 'sess-2' }), 'agent:main:cc-4', { workspaceDir: workspace })('last')).toHaveLength(6)
  })
})
