// Continuation recall (issue 27): the second measure of `npm run eval:restore` and `openclaw-context eval`.
//
// Summary recall (recall.mjs) asks how much of what the real compaction summary kept a restore keeps; it needs a
// real summary, and it takes the summary's choices as the truth. Continuation recall takes its ground truth from
// what the agent did next. At a compaction:
//
//   needed   the names the agent used in its next WINDOW (30) assistant messages (their text and the values of
//            their tool-call arguments, unescaped: not a tool's own keys such as `file_path`, and no JSON escape
//            glued to a name, `\tthis.agent` read as `tthis.agent`) that it had met before the compaction (in any
//            message before it: text, argument values, tool results), minus the names in the messages the
//            compaction kept (pi's `firstKeptEntryId` onwards: still in view) and the names the user or a tool
//            result gave again before the use (found again, not remembered);
//   carried  the share of `needed` a text contains (case-insensitive).
//
// A name is a file or path's last segment (`src/core/agent-session.ts` -> `agent-session.ts`; at least 4
// characters with a letter), or a dotted, camelCase, PascalCase or snake_case name (at least 5 characters, not
// starting with a digit, and not one of a few names every session uses: `console.log`, `package.json`, ...).
// Compactions with fewer than 3 needed names are not scored: too little was carried over to say anything.
//
// The transcript is read as it was recorded, in file order: every `message` entry of a pi / OpenClaw session,
// every `user` / `assistant` line of a Claude Code transcript (not its compact summaries or meta lines). A
// compaction is a pi `compaction` entry with a summary, or Claude Code's `isCompactSummary` line. This is the
// definition of ../shared/measures/continuation-recall.mjs (the reference script), written as a module; the two
// agree on the bundled transcripts.
import { scanJsonValues } from './transcript.mjs'

/** Assistant messages after a compaction in which the agent's use of names is looked at. */
export const CONTINUATION_WINDOW = 30
/** Fewest needed names for a compaction to be scored. */
export const MIN_NEEDED = 3

/** Names every session uses; never counted. */
const COMMON = new Set(['console.log', 'json.stringify', 'json.parse', 'process.env', 'object.keys', 'e.g', 'i.e', 'node_modules', 'package.json'])
// A path (something with a slash) or a file name with a known extension.
const PATH_OR_FILE = /[\w@~.-]*\/[\w@./-]+|[\w-]+\.(?:ts|tsx|js|mjs|cjs|json|md|rs|py|yaml|yml|toml|sh|css|html|go|ex|exs|sql|txt|log)\b/g
// dotted.name, camelCase, PascalCase, snake_case.
const CODE_NAME = /\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g

/** The names in `text`, lower-cased (see the header). */
export function continuationNames(text) {
  const out = new Set()
  for (const m of text.matchAll(PATH_OR_FILE)) {
    const base =
      m[0]
        .replace(/[),.:;'"]+$/, '')
        .split('/')
        .filter(Boolean)
        .pop() ?? ''
    if (base.length >= 4 && /[a-z]/i.test(base)) out.add(base.toLowerCase())
  }
  for (const m of text.matchAll(CODE_NAME)) {
    const s = m[0].toLowerCase()
    if (s.length >= 5 && !COMMON.has(s) && !/^\d/.test(s)) out.add(s)
  }
  return out
}

/** The share of `needed` names `text` contains, case-insensitively (null when nothing is needed). */
export function carried(needed, text) {
  if (!needed.length) return null
  const hay = text.toLowerCase()
  return needed.filter((n) => hay.includes(n)).length / needed.length
}

// --- the transcript as recorded ---------------------------------------------------------------------------------

const blocks = (m) => (Array.isArray(m?.content) ? m.content : typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : [])
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x)

/** A message's text blocks. */
export function recordedText(m) {
  return blocks(m)
    .map((b) => (b?.type === 'text' ? b.text : ''))
    .join('\n')
}

/**
 * The string values of a message's tool-call arguments (pi `toolCall`, Claude Code `tool_use`), unescaped, at any
 * depth: what the agent wrote in them. Arguments recorded as a JSON string are parsed first; one that is not JSON is
 * its own value. (The briefing overlap reads calls so too.)
 */
export function calls(m) {
  const out = []
  const walk = (v) => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (isObject(v)) Object.values(v).forEach(walk)
  }
  const args = (a) => {
    if (typeof a !== 'string') return walk(a)
    try {
      walk(JSON.parse(a))
    } catch {
      out.push(a)
    }
  }
  for (const b of blocks(m)) args(b?.type === 'toolCall' ? b.arguments : b?.type === 'tool_use' ? b.input : null)
  return out.join('\n')
}

/** The tool output a message carries (a pi `toolResult` message, Claude Code `tool_result` blocks). */
export function results(m) {
  if (m.role === 'toolResult') return blocks(m).map((b) => b?.text ?? '').join('\n')
  return blocks(m)
    .map((b) => (b?.type === 'tool_result' ? (typeof b.content === 'string' ? b.content : (Array.isArray(b.content) ? b.content : []).map((c) => c?.text ?? '').join('\n')) : ''))
    .join('\n')
}

const isToolOutput = (m) => m.role === 'toolResult' || (m.role === 'user' && blocks(m).length > 0 && blocks(m).every((b) => b?.type === 'tool_result'))
const everything = (m) => `${recordedText(m)}\n${calls(m)}\n${results(m)}`

/** The message a recorded entry holds, or null (pi `message` entries; Claude Code user / assistant lines). */
export function messageOf(d) {
  if (!isObject(d)) return null
  if (d.type === 'message') return isObject(d.message) ? d.message : null
  if ((d.type === 'user' || d.type === 'assistant') && isObject(d.message) && !d.isCompactSummary && !d.isMeta) return d.message
  return null
}

/** The summary a recorded entry holds when it is a compaction, else null. */
export function summaryOf(d) {
  if (!isObject(d)) return null
  if (d.type === 'compaction' && typeof d.summary === 'string') return d.summary
  if (d.isCompactSummary === true && isObject(d.message)) return recordedText(d.message)
  return null
}

/** Each line's values: one, or several written back to back (pi wrote some lines so), or none. */
function lineValues(line) {
  if (!line.trim()) return []
  try {
    return [JSON.parse(line)]
  } catch {
    return scanJsonValues(line).values
  }
}

/**
 * The compactions of a transcript, each with what continuation recall needs of it:
 * `[{ line, summary, needed: string[], scored, conversation }]`. `line` is the compaction's 1-based line (Claude
 * Code: its summary line); `needed` the needed names in the order the agent used them; `scored` whether there are
 * at least MIN_NEEDED; `conversation` the conversation before the kept messages as `role: text` lines (tool
 * output left out), for the "last tokens" text.
 * @param {string} text the transcript file's text
 * @param {{ window?: number }} [options]
 */
export function continuationCases(text, { window = CONTINUATION_WINDOW } = {}) {
  const lines = text.split('\n').map(lineValues)
  const lineOfId = new Map()
  const compactions = []
  lines.forEach((values, i) => {
    for (const d of values) {
      if (isObject(d) && d.id) lineOfId.set(d.id, i)
      const summary = summaryOf(d)
      if (summary !== null) compactions.push({ i, summary, firstKept: d.firstKeptEntryId })
    }
  })
  const messagesIn = (from, to) => lines.slice(from, to).flat().map(messageOf).filter(Boolean)
  return compactions.map((c, k) => {
    const end = k + 1 < compactions.length ? compactions[k + 1].i : lines.length
    const known = new Set()
    for (const m of messagesIn(0, c.i)) for (const n of continuationNames(everything(m))) known.add(n)
    // pi keeps the messages from firstKeptEntryId on after its summary: what they hold is still in view.
    const keptFrom = c.firstKept && lineOfId.has(c.firstKept) ? lineOfId.get(c.firstKept) : c.i
    const given = new Set()
    for (const m of messagesIn(keptFrom, c.i)) for (const n of continuationNames(everything(m))) given.add(n)
    const needed = new Set()
    let assistants = 0
    for (const m of messagesIn(c.i + 1, end)) {
      if (assistants >= window) break
      if (isToolOutput(m)) {
        for (const n of continuationNames(results(m))) given.add(n)
      } else if (m.role === 'user') {
        for (const n of continuationNames(recordedText(m))) given.add(n)
      } else if (m.role === 'assistant') {
        assistants++
        for (const n of continuationNames(`${recordedText(m)}\n${calls(m)}`)) if (known.has(n) && !given.has(n)) needed.add(n)
      }
    }
    const conversation = messagesIn(0, keptFrom)
      .filter((m) => !isToolOutput(m))
      .map((m) => `${m.role}: ${recordedText(m)}\n${calls(m)}`)
      .join('\n')
    return { line: c.i + 1, summary: c.summary, needed: [...needed], scored: needed.size >= MIN_NEEDED, conversation }
  })
}
