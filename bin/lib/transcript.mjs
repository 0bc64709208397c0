// Reading session transcripts (JSONL) the way their own runtimes read them, and saying where a line was
// not read: every line that could not be used as it stands is reported with its line number.
//
// Two families are understood; anything else is an error (`UnknownFormat`), never an empty report:
//
// pi (OpenClaw's pi runner, @mariozechner/pi-coding-agent):
//   v1: a `session` header without `version`, then entries in file order, no ids; a `compaction` entry points
//       at the first entry it kept with `firstKeptEntryIndex` (an index into the file's entries).
//   v3: the header has `version: 3` (v2 is read the same way), every entry has `id` and `parentId`, and the
//       session is a tree: the active branch runs from the root to the last entry (pi's leaf), and a
//       `compaction` entry names the first kept entry with `firstKeptEntryId`.
//
// Claude Code / Claude Agent SDK (OpenClaw's Claude SDK runner): `user` / `assistant` / `system` lines with
//   `uuid` / `parentUuid`; one API message is written as several `assistant` lines sharing `message.id`
//   (one content block each, the same usage repeated); tool results are `tool_result` blocks of `user`
//   lines; a compaction is a `system` line of subtype `compact_boundary` (`compactMetadata.preTokens`)
//   followed by the summary as a `user` line with `isCompactSummary`. A prompt the user typed while the agent
//   was at work is a `queue-operation` line (`enqueue` with its text); Claude Code folds a plain one into the
//   running turn and records only its `remove` (a `dequeue` becomes the next prompt's own `user` line), so
//   such a prompt is a user message of its own where it was taken. The reader turns it into the entries
//   pi writes (one assistant message per message id, one toolResult per tool_result block, a `compaction`
//   entry carrying the summary), so replay treats both families alike.
//
// Damaged lines are handled as pi's session loader handles them (loadEntriesFromFile in pi-coding-agent's
// session-manager: `content.trim().split("\n")`, one `JSON.parse` per line, a line that throws is skipped
// whole). A line holding two JSON objects therefore contributes nothing, as in pi. Claude Code transcripts
// are read by the same rule.

/** Entry types pi writes (session-manager.d.ts of @mariozechner/pi-coding-agent). */
export const KNOWN_ENTRY_TYPES = new Set([
  'session',
  'message',
  'thinking_level_change',
  'model_change',
  'compaction',
  // OpenClaw 2026.9's fresh history window (/new, /reset, idle and daily resets), optionally keeping
  // messages from `firstKeptEntryId` (docs/reference/session-management-compaction/schema.md).
  'reset',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
])

/** Line types Claude Code writes. Only `user`, `assistant` and `system` carry the conversation. */
export const CLAUDE_CODE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'custom-title',
  'attachment',
  'last-prompt',
  // Bookkeeping lines newer Claude Code versions write (seen in the real sessions of
  // __test__/fixtures/transcripts-validation and other public ones): a pull request opened in the session,
  // the session's generated title, the permission mode. Not context.
  'pr-link',
  'ai-title',
  'mode',
])

/** The transcript formats `parseTranscript` reads, as the unknown-format error lists them. */
export const KNOWN_FORMATS = [
  {
    format: 'pi',
    description: 'pi session, v1 or v2/v3 (OpenClaw pi runner): a {"type":"session"} header line, then "message", "compaction", ... entries',
  },
  {
    format: 'claude-code',
    description:
      'Claude Code / Claude Agent SDK transcript (OpenClaw Claude SDK runner): "user" / "assistant" / "system" lines with uuid, parentUuid and message',
  },
]

/** Lines the unknown-format error quotes. */
const UNPLACED_SHOWN = 5

/**
 * Thrown by `parseTranscript` when the text is neither family: `code` is `UnknownFormat`, `knownFormats`
 * lists what is read, `unplaced` the first lines it could not place ({ line, kind, text }).
 */
export class TranscriptFormatError extends Error {
  constructor(message, { knownFormats, unplaced, lines }) {
    super(message)
    this.name = 'TranscriptFormatError'
    this.code = 'UnknownFormat'
    this.knownFormats = knownFormats
    this.unplaced = unplaced
    this.lines = lines
  }
}

/**
 * Splits `text` into the JSON values written back to back in it (`{..}{..}`, `{..} {..}`).
 * Returns the values parsed, and where it stopped: `incomplete` when the text ends inside a value (a
 * truncated line), `garbage` when something that is not JSON sits between or before the values.
 * Used to say what is wrong with a line that does not parse; the values are not used.
 */
export function scanJsonValues(text) {
  const values = []
  let i = 0
  const n = text.length
  while (i < n) {
    while (i < n && /\s/.test(text[i])) i++
    if (i >= n) break
    const open = text[i]
    if (open !== '{' && open !== '[') {
      return { values, stop: 'garbage', at: i }
    }
    let depth = 0
    let inString = false
    let j = i
    for (; j < n; j++) {
      const c = text[j]
      if (inString) {
        if (c === '\\') j++
        else if (c === '"') inString = false
        continue
      }
      if (c === '"') inString = true
      else if (c === '{' || c === '[') depth++
      else if (c === '}' || c === ']') {
        depth--
        if (depth === 0) break
      }
    }
    if (j >= n) return { values, stop: 'incomplete', at: i }
    const slice = text.slice(i, j + 1)
    try {
      values.push(JSON.parse(slice))
    } catch {
      return { values, stop: 'garbage', at: i }
    }
    i = j + 1
  }
  return { values, stop: 'end', at: n }
}

function preview(s, max = 60) {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > max ? `${one.slice(0, max)}…` : one
}

/**
 * The file's lines, each parsed as its runtime parses it (one `JSON.parse` per line). Returns
 * `{ lines: [{ line, raw, ok, value }], count }`; blank lines are left out, `count` is every line.
 */
function splitLines(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const rawLines = text.split('\n')
  // A file ending in '\n' has an empty last piece; it is not a line.
  if (rawLines.length > 0 && rawLines[rawLines.length - 1] === '') rawLines.pop()
  const lines = []
  for (let k = 0; k < rawLines.length; k++) {
    const raw = rawLines[k].endsWith('\r') ? rawLines[k].slice(0, -1) : rawLines[k]
    if (raw.trim() === '') continue
    let value
    let ok = false
    try {
      value = JSON.parse(raw)
      ok = true
    } catch {
      ok = false
    }
    lines.push({ line: k + 1, raw, ok, value })
  }
  return { lines, count: rawLines.length }
}

/** The problem a line that does not parse is reported as (the line is skipped, as its runtime skips it). */
function damagedLine(l, isLast) {
  const scan = scanJsonValues(l.raw)
  if (scan.stop === 'end' && scan.values.length > 1) {
    return {
      line: l.line,
      kind: 'two-objects',
      detail: `${scan.values.length} JSON objects on one line: the line does not parse, so it is skipped (as pi skips it)`,
    }
  }
  if (scan.stop === 'incomplete') {
    return {
      line: l.line,
      kind: isLast ? 'truncated-last-line' : 'truncated-line',
      detail: `ends inside a JSON value after ${l.raw.length - scan.at} characters: ${preview(l.raw.slice(scan.at), 40)}; skipped`,
    }
  }
  return { line: l.line, kind: 'garbage', detail: `not JSON: ${preview(l.raw.slice(scan.at), 40)}; skipped` }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** What family a parsed line looks like it belongs to: 'pi', 'claude-code', or null. */
function lineFamily(v) {
  if (!isObject(v) || typeof v.type !== 'string') return null
  if (v.type === 'session') return 'pi'
  if (v.type === 'message' && isObject(v.message)) return 'pi'
  if (KNOWN_ENTRY_TYPES.has(v.type) && v.type !== 'message') return 'pi'
  if ((v.type === 'user' || v.type === 'assistant') && isObject(v.message)) return 'claude-code'
  if (v.type === 'system' && (typeof v.subtype === 'string' || typeof v.uuid === 'string')) return 'claude-code'
  if (CLAUDE_CODE_TYPES.has(v.type) && v.type !== 'user' && v.type !== 'assistant' && v.type !== 'system') return 'claude-code'
  return null
}

/**
 * The family of a transcript's lines: a pi session header decides for pi; otherwise the family more
 * lines belong to. `null` when no line belongs to either.
 */
export function detectFormat(lines) {
  let pi = 0
  let cc = 0
  for (const l of lines) {
    if (!l.ok) continue
    const f = lineFamily(l.value)
    if (f === 'pi') {
      if (l.value.type === 'session') return 'pi'
      pi++
    } else if (f === 'claude-code') cc++
  }
  if (pi === 0 && cc === 0) return null
  return cc > pi ? 'claude-code' : 'pi'
}

function unknownFormat(lines, count) {
  const unplaced = []
  for (const l of lines) {
    if (unplaced.length >= UNPLACED_SHOWN) break
    unplaced.push({
      line: l.line,
      kind: !l.ok ? 'not JSON' : isObject(l.value) && typeof l.value.type === 'string' ? `type "${preview(l.value.type, 30)}"` : 'no "type"',
      text: preview(l.raw, 80),
    })
  }
  const what = count === 0 || lines.length === 0 ? 'the file is empty' : `none of its ${lines.length} non-blank line(s) is an entry of a known format`
  const msg = [
    `not a session transcript this tool reads (${what}).`,
    'Known formats:',
    ...KNOWN_FORMATS.map((f) => `  ${f.format}: ${f.description}`),
    ...(unplaced.length ? ['First lines it could not place:', ...unplaced.map((u) => `  line ${u.line} (${u.kind}): ${u.text}`)] : []),
  ].join('\n')
  return new TranscriptFormatError(msg, { knownFormats: KNOWN_FORMATS.map((f) => f.format), unplaced, lines: count })
}

/**
 * Parses the text of a session transcript: pi (v1-v3) or Claude Code / Claude Agent SDK.
 *
 * @returns {{
 *   format: 'v1' | 'v3' | 'claude-code', family: 'pi' | 'claude-code', version: number | string | null,
 *   header: object | null,
 *   entries: Array<{ line: number, fileIndex: number, entry: object }>,  // the active branch as pi entries, no header
 *   problems: Array<{ line: number, kind: string, detail: string }>,
 *   stats: { lines: number, entries: number, recovered: number, offBranch: number, byType: Record<string, number> }
 * }}
 * Problem kinds: `two-objects` (several JSON values on one line), `truncated-last-line`, `truncated-line`,
 * `garbage` (each: the line is skipped, as pi skips it), `not-an-entry` (JSON that is not an object with
 * a string `type`), `unknown-type` (an entry type the format does not write; skipped), `missing-message`
 * (a message entry without a message object; skipped), `missing-id` / `duplicate-id` / `orphan` (v3 tree
 * damage; for Claude Code, a parentUuid naming no line), `no-header` (pi loads nothing from a file whose
 * first entry is not a session header; the replay reads it anyway), `compaction-not-on-branch` (a Claude
 * Code compact_boundary the conversation does not chain through, e.g. one that keeps messages; not replayed).
 * @throws {TranscriptFormatError} code `UnknownFormat` when the text is neither family (or empty).
 */
export function parseTranscript(text) {
  const { lines, count } = splitLines(text)
  const family = detectFormat(lines)
  if (family === null) throw unknownFormat(lines, count)
  const lastLine = lines.length ? lines[lines.length - 1].line : 0
  const problems = []
  for (const l of lines) if (!l.ok) problems.push(damagedLine(l, l.line === lastLine))
  const parsed = family === 'pi' ? parsePi(lines, problems) : parseClaudeCode(lines, problems)
  problems.sort((a, b) => a.line - b.line)
  parsed.stats.lines = count
  return { ...parsed, problems }
}

function parsePi(lines, problems) {
  const all = [] // { line, fileIndex, entry, known } in file order, header included
  const byType = {}
  let fileIndex = -1 // pi's index of each parsed line (v1 `firstKeptEntryIndex` counts these)
  for (const { line, ok, value } of lines) {
    if (!ok) continue
    fileIndex++
    if (!isObject(value) || typeof value.type !== 'string') {
      problems.push({ line, kind: 'not-an-entry', detail: `JSON that is not a session entry: ${preview(JSON.stringify(value))}; skipped` })
      continue
    }
    byType[value.type] = (byType[value.type] ?? 0) + 1
    if (!KNOWN_ENTRY_TYPES.has(value.type)) {
      problems.push({ line, kind: 'unknown-type', detail: `entry type "${preview(value.type, 40)}" is not one pi writes; skipped` })
      // pi keeps it in the tree (a later entry may name it as parent); it carries nothing to replay.
      all.push({ line, fileIndex, entry: value, known: false })
      continue
    }
    if (value.type === 'message' && !isObject(value.message)) {
      problems.push({ line, kind: 'missing-message', detail: 'a message entry without a message object; skipped' })
      all.push({ line, fileIndex, entry: value, known: false })
      continue
    }
    all.push({ line, fileIndex, entry: value, known: true })
  }

  const first = all[0]
  if (first && !(first.entry.type === 'session' && typeof first.entry.id === 'string')) {
    problems.push({
      line: first.line,
      kind: 'no-header',
      detail: 'the first entry is not a session header with an id: pi loads nothing from this file; replayed anyway',
    })
  }
  const headerAt = all.findIndex((e) => e.entry.type === 'session')
  const header = headerAt >= 0 ? all[headerAt].entry : null
  const body = all.filter((e) => e.entry.type !== 'session')
  const declared = header && typeof header.version === 'number' ? header.version : null
  const withIds = body.filter((e) => typeof e.entry.id === 'string').length
  const format = (declared !== null && declared >= 2) || (body.length > 0 && withIds > body.length / 2) ? 'v3' : 'v1'

  let entries = body
  let offBranch = 0
  if (format === 'v3') {
    const byId = new Map()
    const usable = []
    for (const e of body) {
      const id = e.entry.id
      if (typeof id !== 'string' || id === '') {
        problems.push({ line: e.line, kind: 'missing-id', detail: `a ${e.entry.type} entry without an id in a v3 session; skipped` })
        continue
      }
      if (byId.has(id)) {
        problems.push({ line: e.line, kind: 'duplicate-id', detail: `id ${preview(id, 20)} already used on line ${byId.get(id).line}; the later entry wins` })
      }
      byId.set(id, e)
      usable.push(e)
    }
    // pi's leaf is the last entry appended.
    const branch = []
    const seen = new Set()
    let cur = usable.length ? usable[usable.length - 1] : undefined
    while (cur && !seen.has(cur.entry.id)) {
      seen.add(cur.entry.id)
      branch.push(cur)
      const pid = cur.entry.parentId
      if (pid === null || pid === undefined) break
      const parent = byId.get(pid)
      if (!parent) {
        problems.push({ line: cur.line, kind: 'orphan', detail: `parentId ${preview(String(pid), 20)} names no entry; the branch starts here` })
        break
      }
      cur = parent
    }
    branch.reverse()
    entries = branch
    offBranch = usable.length - branch.length
  }

  return {
    format,
    family: 'pi',
    version: format === 'v1' ? declared ?? 1 : declared,
    header,
    entries: entries.filter((e) => e.known).map(({ line, fileIndex, entry }) => ({ line, fileIndex, entry })),
    stats: { lines: 0, entries: all.length, recovered: 0, offBranch, byType },
  }
}

/** Claude Code's tool_result `content` (a string or text / image blocks) as pi content blocks. */
function ccResultContent(content) {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  const out = []
  for (const b of content) {
    if (!isObject(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') out.push({ type: 'text', text: b.text })
    else if (b.type === 'image') out.push({ type: 'image', data: '', mimeType: b.source?.media_type ?? 'image/png' })
  }
  return out
}

/** An assistant content block of Claude Code as pi's (`tool_use` becomes `toolCall`); null to leave out. */
function ccAssistantBlock(b) {
  if (!isObject(b)) return null
  if (b.type === 'text' && typeof b.text === 'string') return { type: 'text', text: b.text }
  if (b.type === 'thinking' && typeof b.thinking === 'string') return { type: 'thinking', thinking: b.thinking }
  if (b.type === 'tool_use') return { type: 'toolCall', id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: isObject(b.input) ? b.input : {} }
  return null
}

/** Claude Code usage (`input_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`) as pi's. */
function ccUsage(u) {
  if (!isObject(u)) return undefined
  const n = (x) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : 0)
  return {
    input: n(u.input_tokens),
    output: n(u.output_tokens),
    cacheRead: n(u.cache_read_input_tokens),
    cacheWrite: n(u.cache_creation_input_tokens),
  }
}

/**
 * The conversation of a Claude Code transcript, as Claude Code resumes it: the chain from the last line
 * back through `parentUuid` (across a `compact_boundary`, whose `parentUuid` is null, to the line before
 * it), plus the lines a parallel tool call forks off that chain: the other `assistant` lines of a message
 * id on the chain, and the `tool_result` lines answering their tool calls.
 */
function claudeCodeBranch(linked, conv, problems) {
  // The chain runs through every line with a uuid (progress lines included: a reply's parent is often one).
  const byUuid = new Map()
  const pos = new Map()
  linked.forEach((c, i) => {
    byUuid.set(c.value.uuid, c)
    pos.set(c, i)
  })
  const withUuid = linked
  if (withUuid.length === 0) return { branch: conv, offBranch: 0 }
  const on = new Set()
  let cur = withUuid[withUuid.length - 1]
  while (cur && !on.has(cur)) {
    on.add(cur)
    const v = cur.value
    const pid = typeof v.parentUuid === 'string' ? v.parentUuid : typeof v.logicalParentUuid === 'string' ? v.logicalParentUuid : null
    let next = pid ? byUuid.get(pid) : undefined
    if (!next && v.type === 'system' && v.subtype === 'compact_boundary') {
      // A compaction starts a new root; the conversation before it is the line before it in the file.
      next = linked[pos.get(cur) - 1]
    } else if (!next && pid) {
      // The parent's line is missing (skipped as damaged, or cut out): rather than lose everything
      // before it, the conversation continues with the line before it in the file.
      problems.push({ line: cur.line, kind: 'orphan', detail: `parentUuid ${preview(pid, 20)} names no line; continued with the line before it in the file` })
      next = linked[pos.get(cur) - 1]
    }
    cur = next
  }
  const msgIds = new Set()
  for (const c of on) if (c.value.type === 'assistant' && typeof c.value.message?.id === 'string') msgIds.add(c.value.message.id)
  const toolUses = new Set()
  for (const c of conv) {
    const v = c.value
    if (v.type === 'assistant' && (on.has(c) || msgIds.has(v.message?.id))) {
      on.add(c)
      for (const b of Array.isArray(v.message?.content) ? v.message.content : []) if (b?.type === 'tool_use') toolUses.add(b.id)
    }
  }
  for (const c of conv) {
    const v = c.value
    if (on.has(c) || v.type !== 'user' || !Array.isArray(v.message?.content)) continue
    if (v.message.content.some((b) => b?.type === 'tool_result' && toolUses.has(b.tool_use_id))) on.add(c)
  }
  // A compaction whose boundary the chain does not pass: newer Claude Code versions keep messages
  // across a compaction (compactMetadata.preservedMessages) and chain the next line to them, not to
  // the boundary. This reader does not follow that form: say so rather than replay it silently.
  for (const c of conv) {
    const v = c.value
    if (!on.has(c) && v.type === 'system' && v.subtype === 'compact_boundary') {
      problems.push({
        line: c.line,
        kind: 'compaction-not-on-branch',
        detail: `a compact_boundary the conversation does not chain through${
          v.compactMetadata?.preservedMessages ? ' (it keeps messages: compactMetadata.preservedMessages, not read yet)' : ''
        }; not replayed, so the context after it is overstated`,
      })
    }
  }
  // Lines without a uuid (older writers) are kept in file order.
  const branch = conv.filter((c) => on.has(c) || typeof c.value.uuid !== 'string')
  const offBranch = conv.filter((c) => !on.has(c) && typeof c.value.uuid === 'string' && (c.value.type === 'user' || c.value.type === 'assistant')).length
  return { branch, offBranch }
}

function parseClaudeCode(lines, problems) {
  // A subagent's own transcript (Claude Code's <session>/subagents/agent-*.jsonl) is all sidechain:
  // then the sidechain is the conversation.
  const subagent = !lines.some(
    (l) => l.ok && isObject(l.value) && (l.value.type === 'user' || l.value.type === 'assistant') && l.value.isSidechain !== true,
  )
  const byType = {}
  const conv = [] // user / assistant / system lines of the main conversation, file order
  const linked = [] // every main-conversation line with a uuid, file order
  let parsedCount = 0
  let sessionId = null
  let ccVersion = null
  let cwd = null
  let sidechain = 0
  const queue = [] // queue-operation lines, file order
  for (const l of lines) {
    if (!l.ok) continue
    parsedCount++
    const v = l.value
    if (!isObject(v) || typeof v.type !== 'string') {
      problems.push({ line: l.line, kind: 'not-an-entry', detail: `JSON that is not a transcript line: ${preview(JSON.stringify(v))}; skipped` })
      continue
    }
    byType[v.type] = (byType[v.type] ?? 0) + 1
    if (!CLAUDE_CODE_TYPES.has(v.type)) {
      problems.push({ line: l.line, kind: 'unknown-type', detail: `line type "${preview(v.type, 40)}" is not one Claude Code writes; skipped` })
      continue
    }
    if (sessionId === null && typeof v.sessionId === 'string') sessionId = v.sessionId
    if (ccVersion === null && typeof v.version === 'string') ccVersion = v.version
    if (cwd === null && typeof v.cwd === 'string') cwd = v.cwd
    if (v.type === 'queue-operation') {
      queue.push({ line: l.line, value: v })
      continue
    }
    if (v.isSidechain === true && !subagent) {
      if (v.type === 'user' || v.type === 'assistant') sidechain++ // a subagent's own conversation: not in the main context
      continue
    }
    const item = { line: l.line, value: v }
    if (typeof v.uuid === 'string') linked.push(item)
    if (v.type !== 'user' && v.type !== 'assistant' && v.type !== 'system') continue
    if ((v.type === 'user' || v.type === 'assistant') && !isObject(v.message)) {
      problems.push({ line: l.line, kind: 'missing-message', detail: `a ${v.type} line without a message object; skipped` })
      continue
    }
    conv.push(item)
  }

  const { branch, offBranch } = claudeCodeBranch(linked, conv, problems)
  const folded = foldedPrompts(queue)
  const entries = []
  const assistantById = new Map() // message.id -> pi assistant message (one per API message)
  const toolNames = new Map() // tool_use id -> name
  let pendingCompaction = null // a compaction entry still waiting for its summary line
  let fileIndex = 0
  const emit = (line, entry) => entries.push({ line, fileIndex: fileIndex++, entry })
  // The prompts folded into a turn before `line`: the model read them after the tool results it was given
  // and before its next message (or the compaction).
  const emitFolded = (line) => {
    while (folded.length && folded[0].line < line) {
      const p = folded.shift()
      emit(p.line, { type: 'message', id: `queued-${p.line}`, timestamp: p.timestamp, message: { role: 'user', content: p.text, timestamp: Date.parse(p.timestamp) || 0 } })
    }
  }
  for (const { line, value: v } of branch) {
    const startsMessage = v.type === 'system' ? v.subtype === 'compact_boundary' : v.type === 'assistant' && !(typeof v.message?.id === 'string' && assistantById.has(v.message.id))
    if (startsMessage) emitFolded(line)
    const id = typeof v.uuid === 'string' ? v.uuid : `line-${line}`
    const timestamp = typeof v.timestamp === 'string' ? v.timestamp : undefined
    if (v.type === 'system') {
      if (v.subtype !== 'compact_boundary') continue // hook summaries, durations, errors: not in the context
      const meta = isObject(v.compactMetadata) ? v.compactMetadata : {}
      pendingCompaction = {
        type: 'compaction',
        id,
        timestamp,
        summary: '',
        tokensBefore: typeof meta.preTokens === 'number' ? meta.preTokens : undefined,
        trigger: typeof meta.trigger === 'string' ? meta.trigger : undefined,
      }
      emit(line, pendingCompaction)
      assistantById.clear()
      continue
    }
    const m = v.message
    if (v.type === 'assistant') {
      const blocks = (Array.isArray(m.content) ? m.content : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [])
        .map(ccAssistantBlock)
        .filter(Boolean)
      for (const b of blocks) if (b.type === 'toolCall') toolNames.set(b.id, b.name)
      const msgId = typeof m.id === 'string' ? m.id : null
      const synthetic = m.model === '<synthetic>' || v.isApiErrorMessage === true
      const stopReason = synthetic ? 'error' : typeof m.stop_reason === 'string' ? m.stop_reason : undefined
      const existing = msgId ? assistantById.get(msgId) : undefined
      if (existing) {
        // The same API message continued: its blocks join it; its usage is the same call's (counted once).
        existing.content.push(...blocks)
        const u = ccUsage(m.usage)
        if (u) existing.usage = u
        if (stopReason) existing.stopReason = stopReason
        continue
      }
      const message = { role: 'assistant', content: blocks, usage: ccUsage(m.usage), stopReason, model: m.model, timestamp: Date.parse(timestamp) || 0 }
      if (msgId) assistantById.set(msgId, message)
      emit(line, { type: 'message', id, timestamp, message })
      continue
    }
    // user
    if (v.isCompactSummary === true) {
      const text = typeof m.content === 'string' ? m.content : ccResultContent(m.content).map((b) => b.text ?? '').join('\n')
      if (pendingCompaction && pendingCompaction.summary === '') pendingCompaction.summary = text
      else problems.push({ line, kind: 'orphan', detail: 'a compact summary without a compact_boundary before it; skipped' })
      continue
    }
    const ts = Date.parse(timestamp) || 0
    if (typeof m.content === 'string') {
      emit(line, { type: 'message', id, timestamp, message: { role: 'user', content: m.content, timestamp: ts } })
      continue
    }
    const rest = []
    let part = 0
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (!isObject(b)) continue
      if (b.type === 'tool_result') {
        const toolCallId = String(b.tool_use_id ?? '')
        emit(line, {
          type: 'message',
          id: part++ ? `${id}#${part}` : id,
          timestamp,
          message: {
            role: 'toolResult',
            toolCallId,
            toolName: toolNames.get(toolCallId) ?? '',
            content: ccResultContent(b.content),
            isError: b.is_error === true,
            timestamp: ts,
          },
        })
      } else if (b.type === 'text' && typeof b.text === 'string') rest.push({ type: 'text', text: b.text })
      else if (b.type === 'image') rest.push({ type: 'image', data: '', mimeType: b.source?.media_type ?? 'image/png' })
    }
    if (rest.length) emit(line, { type: 'message', id: part ? `${id}#${part + 1}` : id, timestamp, message: { role: 'user', content: rest, timestamp: ts } })
  }
  emitFolded(Infinity)

  return {
    format: 'claude-code',
    family: 'claude-code',
    version: ccVersion,
    header: { type: 'session', id: sessionId, cwd, version: ccVersion, subagent },
    entries,
    stats: { lines: 0, entries: parsedCount, recovered: 0, offBranch, sidechain, byType },
  }
}

/**
 * The prompts Claude Code folded into a running turn, `[{ line, text, timestamp }]` in file order: each
 * `enqueue` a `remove` took (first in, first out; a `dequeue` starts the next turn, whose `user` line the
 * transcript holds). Not a slash or shell command (`/compact`, `!ls`: held until the turn ends) nor a
 * background task's notification (`<task-notification>`, `{"task_id": …}`: delivered as a `user` line).
 * `line` and `timestamp` are the `remove`'s: when the model was given it.
 */
function foldedPrompts(queue) {
  const waiting = []
  const out = []
  for (const { line, value: v } of queue) {
    if (v.operation === 'enqueue') {
      const text = typeof v.content === 'string' ? v.content.trim() : ''
      // a notification is delivered as a user line of its own, with or without a queue operation for it
      if (!text.startsWith('<task-notification>') && !/^\{\s*"task_id"/.test(text)) waiting.push(text)
    } else if (v.operation === 'dequeue') waiting.shift()
    else if (v.operation === 'popAll') waiting.length = 0 // back in the input box: not sent
    else if (v.operation === 'remove') {
      const text = waiting.shift() ?? ''
      if (text && !/^[/!]/.test(text)) out.push({ line, text, timestamp: typeof v.timestamp === 'string' ? v.timestamp : undefined })
    }
  }
  return out
}

/**
 * The entry a compaction kept first, as an index into `entries` (the active branch), or -1.
 * v3 names it by id; v1 by its index among the file's parsed values, header included.
 */
export function firstKeptIndex(compaction, entries) {
  if (typeof compaction.firstKeptEntryId === 'string') {
    return entries.findIndex((e) => e.entry.id === compaction.firstKeptEntryId)
  }
  if (typeof compaction.firstKeptEntryIndex === 'number') {
    return entries.findIndex((e) => e.fileIndex >= compaction.firstKeptEntryIndex)
  }
  return -1
}

/** The plain text of a message's content (string or content blocks), as a model would read it. */
export function messageText(message) {
  if (!message) return ''
  const c = message.content
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) {
    if (message.role === 'bashExecution') return `${message.command ?? ''}\n${message.output ?? ''}`
    return ''
  }
  const parts = []
  for (const b of c) {
    if (!b || typeof b !== 'object') continue
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text)
    else if (b.type === 'thinking' && typeof b.thinking === 'string') parts.push(b.thinking)
    else if (b.type === 'toolCall') parts.push(`${b.name ?? ''} ${JSON.stringify(b.arguments ?? {})}`)
  }
  return parts.join('\n')
}

/** The provider-reported context of an assistant message: input + cacheRead + cacheWrite, or null. */
export function providerContextTokens(message) {
  const u = message?.usage
  if (!u || typeof u !== 'object') return null
  const n = (x) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : 0)
  const total = n(u.input) + n(u.cacheRead) + n(u.cacheWrite)
  return total > 0 ? total : null
}
