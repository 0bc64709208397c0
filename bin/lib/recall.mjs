// What a compaction summary kept, as items a restore text can be checked against (issue 11).
//
// The real compaction summary an LLM wrote is the reference: whatever concrete handle it chose to keep
// (a file, a command, a function name) is something the agent needed after the compaction. The items are
// taken mechanically, so any restore text (or a naive text of the same budget) is scored the same way:
//
//   file      a file or path named anywhere in the summary (prose, `code` spans, fenced blocks), kept by
//             its basename: `/Users/x/pi-mono/src/core/agent-session.ts` -> `agent-session.ts`,
//             `src/modes/` -> `modes`. URLs are not files.
//   code      an inline `code` span that is not a path, whole (`npm run check`, `tokensBefore`).
//   ident     an identifier outside inline code spans (prose and fenced blocks): a word with a lower-to-upper
//             case change (`AgentSession`, `setModel`), an inner underscore (`first_kept`), or a call
//             (`dispose(`).
//
// Items are compared case-insensitively, deduplicated by their lower-cased text (the first kind wins, in the
// order file, code, ident), and at least 3 characters long (shorter ones match anywhere by chance).
// An item is recalled by a text when the text contains it, case-insensitively.

/** Shortest item kept. */
export const MIN_ITEM_CHARS = 3

const FENCE = /```[^\n]*\n([\s\S]*?)```/g
const INLINE = /`([^`\n]+)`/g
// A path-like token: optional directories, then a name; either with a slash or with an extension.
const PATHISH = /(?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@.+-]*|[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b/g
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*(\()?/g

/** The basename of a path-like token, or null when it is not a file (a URL, a version, a lone dot). */
export function basenameOf(token) {
  const t = token.trim().replace(/[),.:;'"]+$/, '')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t) || /^www\./i.test(t)) return null
  const parts = t.split('/').filter((p) => p !== '' && p !== '.' && p !== '..' && p !== '~')
  if (parts.length === 0) return null
  const base = parts[parts.length - 1]
  if (!/[A-Za-z]/.test(base)) return null
  const ext = /^[^.].*\.[A-Za-z][A-Za-z0-9]*$/.test(base)
  // A name must carry an extension that starts with a letter (`main.ts`, not `v0.25`), or the path must look
  // like one: rooted (`/x`, `~/x`, `./x`), a directory (`src/modes/`) or nested (`a/b/c`); `print/json` in
  // prose is a pair of words, not a path.
  if (!ext) {
    if (!t.includes('/')) return null
    const rooted = /^(~|\.{1,2})?\//.test(t)
    if (!rooted && !t.endsWith('/') && parts.length < 3) return null
  }
  return base
}

/** True when a whole `code` span is one path or file name. */
function isPathSpan(span) {
  const s = span.trim()
  if (/\s/.test(s)) return false
  return basenameOf(s) !== null && (s.includes('/') || /\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(s))
}

function isIdentifier(word, call) {
  const w = word.replace(/\($/, '')
  if (w.length < MIN_ITEM_CHARS) return false
  return /[a-z][A-Z]/.test(w) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(w) || (call && /[a-z]/.test(w))
}

// What a host appends to a summary whoever wrote it, so not a choice of the summary's writer. OpenClaw 2026.9.6's
// compaction safeguard (`finalizeSummaryText`, `assembleSuffix` in its dist) appends the same sections to its own
// LLM's summary and to a compaction provider's (the plugin's restore in replace mode): the recent turns it preserves
// verbatim, the tool failures, the read and modified files, the workspace's critical rules from AGENTS.md; they come
// after the summary's body and its split-turn section, in this order. Claude Code ends its summary with a pointer to
// the session's transcript file. pi's compaction appends its file lists to its own summary only, so a pi summary is
// taken whole.
const OPENCLAW_SUFFIX_HEADS = ['\n## Recent turns preserved verbatim', '\n## Tool Failures', '\n<read-files>', '\n<modified-files>', '\n<workspace-critical-rules>']
const CLAUDE_CODE_POINTER = /If you need specific details from before compaction[^\n]*?read the full transcript at: \S+/g

/**
 * The part of a real summary its writer chose: the summary without what the host appends to any summary (above).
 * Items of the rest would be a miss of the restore that the model still reads, in default mode in the summary, in
 * replace mode after the restore.
 * @param {string} summary
 * @param {string} format the transcript's format: 'openclaw', 'claude-code' or 'pi'
 */
export function writtenSummary(summary, format) {
  if (format === 'claude-code') return summary.replace(CLAUDE_CODE_POINTER, '')
  if (format !== 'openclaw') return summary
  return summary.slice(0, suffixAt(summary)).trimEnd()
}

/**
 * What OpenClaw appended to a real summary (above): the sections it appends to a compaction provider's summary as
 * well, so what the model reads after the restore in replace mode; '' for the other formats.
 * @param {string} summary
 * @param {string} format
 */
export function hostSuffix(summary, format) {
  return format === 'openclaw' ? summary.slice(suffixAt(summary)).trim() : ''
}

/** Where OpenClaw's appended sections start in an OpenClaw summary (its length without any). */
function suffixAt(summary) {
  let end = summary.length
  for (const head of OPENCLAW_SUFFIX_HEADS) {
    const at = summary.indexOf(head)
    if (at >= 0 && at < end) end = at
  }
  return end
}

/**
 * The items a restore is measured against: those of the part of `summary` its writer chose (`writtenSummary`), as
 * a restore may hold them, credentials replaced by `redact` (the core's `redactCredentials`: a secret the summary
 * kept is no item a restore may carry).
 * @param {string} summary
 * @param {string} format
 * @param {(text: string) => string} redact
 */
export function referenceItems(summary, format, redact) {
  // a span that held only the secret (`\`sk_inst_…\``) is left as the marker alone: it names nothing
  return summaryItems(redact(writtenSummary(summary, format))).filter((it) => it.text.replace(/\[redacted\]/g, '').trim() !== '')
}

/**
 * The items a summary kept: `[{ kind: 'file' | 'code' | 'ident', text }]`, `text` lower-cased, deduplicated.
 * @param {string} summary
 */
export function summaryItems(summary) {
  const items = new Map()
  const add = (kind, text) => {
    const t = text.trim().toLowerCase()
    if (t.length < MIN_ITEM_CHARS || items.has(t)) return
    items.set(t, kind)
  }
  const fenced = []
  const prose = summary.replace(FENCE, (_, body) => {
    fenced.push(body)
    return '\n'
  })
  const spans = []
  const outside = prose.replace(INLINE, (_, span) => {
    spans.push(span)
    return ' '
  })
  const files = (text) => {
    for (const m of text.matchAll(PATHISH)) {
      const base = basenameOf(m[0])
      if (base) add('file', base)
    }
  }
  const idents = (text) => {
    // Paths are files, not identifiers: blank them before looking for words.
    const rest = text.replace(PATHISH, ' ')
    for (const m of rest.matchAll(WORD)) if (isIdentifier(m[0], m[1] === '(')) add('ident', m[0].replace(/\($/, ''))
  }
  // Files first (their kind wins), then code spans, then identifiers.
  files(outside)
  for (const body of fenced) files(body)
  for (const span of spans) if (isPathSpan(span)) add('file', basenameOf(span))
  for (const span of spans) if (!isPathSpan(span)) add('code', span)
  idents(outside)
  for (const body of fenced) idents(body)
  return [...items].map(([text, kind]) => ({ kind, text }))
}

/**
 * Recall of `items` by `text`: the share of items the text contains (case-insensitive), overall and per kind.
 * @param {{ kind: string, text: string }[]} items
 * @param {string} text
 */
export function recall(items, text) {
  const hay = text.toLowerCase()
  const byKind = {}
  let found = 0
  const missed = []
  for (const it of items) {
    const k = (byKind[it.kind] ??= { found: 0, total: 0 })
    k.total++
    if (hay.includes(it.text)) {
      k.found++
      found++
    } else missed.push(it.text)
  }
  return { recall: items.length ? found / items.length : null, found, total: items.length, byKind, missed }
}

/** Lines (trimmed, non-empty) that occur more than once in `text`, with their counts. */
export function repeatedLines(text) {
  const counts = new Map()
  for (const raw of text.split('\n')) {
    const l = raw.trim()
    if (l) counts.set(l, (counts.get(l) ?? 0) + 1)
  }
  return [...counts].filter(([, n]) => n > 1).map(([line, n]) => ({ line, n }))
}

/** Whitespace runs collapsed, trimmed, lower-cased: how task texts are compared. */
export function squashLower(text) {
  return text.split(/\s+/).filter(Boolean).join(' ').toLowerCase()
}

/**
 * The session's task as the evaluation reports it: the user's first request. `requests` are the user's own
 * words of the messages read as requests, host text removed by the core's rules (`native.userRequests`, the
 * same reading the checkpoint's task is chosen from; never a re-implementation here).
 * @param {string[]} requests
 */
export function sessionTask(requests) {
  return requests.find((r) => squashLower(r) !== '') ?? null
}

/** The text of a restore's `Task:` line, or null when it has none. */
export function restoreTask(restore) {
  return (restore.match(/^Task: (.*)$/m) ?? [])[1] ?? null
}

/** Characters of the task's start a restore must contain for the task to count as present. */
export const TASK_PREFIX_CHARS = 40

/**
 * Whether `restore` states the session's task: its `Task:` line starts with the first 40 characters (squashed,
 * case-insensitive) of one of the user's requests made before the compaction. The task is the first
 * *substantive* request (a greeting that opens a chat, a bare number, is not), so it is one of the requests, not
 * necessarily the first; that it is no greeting nor host prompt is the defect scan's check (restore-defects.mjs).
 * null when the user made no request (a session of host prompts only: cron, heartbeat), which is not counted.
 * @param {string[]} requests the user's requests (`native.userRequests`)
 * @param {string} restore
 */
export function taskPresent(requests, restore) {
  const asked = requests.map(squashLower).filter(Boolean)
  if (asked.length === 0) return null
  const task = restoreTask(restore)
  if (task === null) return false
  const line = squashLower(task)
  return asked.some((r) => line.startsWith([...r].slice(0, TASK_PREFIX_CHARS).join('')))
}
