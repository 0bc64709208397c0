// Reading pi session files (JSONL) the way a person would want a broken one read: every entry that can be
// recovered is kept, and every line that could not be read as it stands is reported with its line number.
//
// Both pi session formats are understood:
//   v1: a `session` header without `version`, then entries in file order, no ids; a `compaction` entry points
//       at the first entry it kept with `firstKeptEntryIndex` (an index into the file's entries).
//   v3: the header has `version: 3` (v2 is read the same way), every entry has `id` and `parentId`, and the
//       session is a tree: the active branch runs from the root to the last entry (pi's leaf), and a
//       `compaction` entry names the first kept entry with `firstKeptEntryId`.

/** Entry types pi writes (session-manager.d.ts of @mariozechner/pi-coding-agent). */
export const KNOWN_ENTRY_TYPES = new Set([
  'session',
  'message',
  'thinking_level_change',
  'model_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
])

/**
 * Splits `text` into the JSON values written back to back in it (`{..}{..}`, `{..} {..}`).
 * Returns the values parsed, and where it stopped: `incomplete` when the text ends inside a value (a
 * truncated line), `garbage` when something that is not JSON sits between or before the values.
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
 * Parses the text of a pi session file.
 *
 * @returns {{
 *   format: 'v1' | 'v3' | 'unknown', version: number | null, header: object | null,
 *   entries: Array<{ line: number, fileIndex: number, entry: object }>,  // the active branch, in order, no header
 *   problems: Array<{ line: number, kind: string, detail: string }>,
 *   stats: { lines: number, entries: number, recovered: number, offBranch: number, byType: Record<string, number> }
 * }}
 * Problem kinds: `two-objects` (several JSON values on one line; all are kept), `truncated-last-line`,
 * `truncated-line`, `garbage`, `not-an-entry` (JSON that is not an object with a string `type`),
 * `unknown-type` (an entry type pi does not write; skipped), `missing-message` (a `message` entry without a
 * message object; skipped), `missing-id` / `duplicate-id` / `orphan` (v3 tree damage).
 */
export function parseTranscript(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const rawLines = text.split('\n')
  // A file ending in '\n' has an empty last piece; it is not a line.
  if (rawLines.length > 0 && rawLines[rawLines.length - 1] === '') rawLines.pop()
  let lastNonEmpty = -1
  for (let k = rawLines.length - 1; k >= 0; k--) {
    if (rawLines[k].trim() !== '') {
      lastNonEmpty = k
      break
    }
  }

  const problems = []
  const all = [] // { line, entry } in file order, header included
  let recovered = 0
  const byType = {}

  let fileIndex = -1 // pi's index of each parsed value (v1 `firstKeptEntryIndex` counts these)
  const accept = (value, line) => {
    fileIndex++
    if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value.type !== 'string') {
      problems.push({ line, kind: 'not-an-entry', detail: `JSON that is not a session entry: ${preview(JSON.stringify(value))}` })
      return
    }
    byType[value.type] = (byType[value.type] ?? 0) + 1
    if (!KNOWN_ENTRY_TYPES.has(value.type)) {
      problems.push({ line, kind: 'unknown-type', detail: `entry type "${preview(value.type, 40)}" is not one pi writes; skipped` })
      return
    }
    if (value.type === 'message' && (value.message === null || typeof value.message !== 'object')) {
      problems.push({ line, kind: 'missing-message', detail: 'a message entry without a message object; skipped' })
      return
    }
    all.push({ line, fileIndex, entry: value })
  }

  for (let k = 0; k < rawLines.length; k++) {
    const line = k + 1
    const raw = rawLines[k].endsWith('\r') ? rawLines[k].slice(0, -1) : rawLines[k]
    if (raw.trim() === '') continue
    let parsed
    let ok = false
    try {
      parsed = JSON.parse(raw)
      ok = true
    } catch {
      ok = false
    }
    if (ok) {
      accept(parsed, line)
      continue
    }
    const scan = scanJsonValues(raw)
    for (const v of scan.values) accept(v, line)
    recovered += scan.values.length
    if (scan.stop === 'end' && scan.values.length > 1) {
      problems.push({ line, kind: 'two-objects', detail: `${scan.values.length} JSON objects on one line; each read` })
    } else if (scan.stop === 'incomplete') {
      const kind = k === lastNonEmpty ? 'truncated-last-line' : 'truncated-line'
      const kept = scan.values.length ? ` (${scan.values.length} complete object(s) before it kept)` : ''
      problems.push({
        line,
        kind,
        detail: `ends inside a JSON value after ${raw.length - scan.at} characters: ${preview(raw.slice(scan.at), 40)}${kept}`,
      })
    } else {
      const kept = scan.values.length ? ` (${scan.values.length} object(s) before it kept)` : ''
      problems.push({ line, kind: 'garbage', detail: `not JSON: ${preview(raw.slice(scan.at), 40)}${kept}` })
    }
  }

  const headerAt = all.findIndex((e) => e.entry.type === 'session')
  const header = headerAt >= 0 ? all[headerAt].entry : null
  const body = all.filter((e) => e.entry.type !== 'session')
  const declared = header && typeof header.version === 'number' ? header.version : null
  const withIds = body.filter((e) => typeof e.entry.id === 'string').length
  let format
  if (declared !== null && declared >= 2) format = 'v3'
  else if (body.length > 0 && withIds > body.length / 2) format = 'v3'
  else if (header || body.length > 0) format = 'v1'
  else format = 'unknown'

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

  problems.sort((a, b) => a.line - b.line)
  return {
    format,
    version: format === 'v1' ? declared ?? 1 : declared,
    header,
    entries,
    problems,
    stats: { lines: rawLines.length, entries: all.length, recovered, offBranch, byType },
  }
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
