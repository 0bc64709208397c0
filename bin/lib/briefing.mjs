// Briefing overlap (issue 51): does the restore say what the real summary says, as extractive summaries are judged.
// The definitions are those of ../shared/measures/briefing-overlap.mjs, which eval:restore must agree with: ROUGE-1 /
// ROUGE-2 recall and F1 against the text the summary's writer wrote (headings and what a host appends to any summary
// left out), for the restore, the naive text (the last BUDGET tokens of what the user and the agent wrote) and the
// extractive oracle (the conversation's own lines picked greedily to overlap the summary most within the budget); the
// restore's share of the oracle's ROUGE-2 F1; and the identifier precision (the entries of the restore's
// `Identifiers:` line the summary or the agent's next WINDOW messages name).
import { lastTokens } from './eval-restore.mjs'
import { native } from './native.mjs'
import { calls as callsOf, messageOf, recordedText as textOf, results as resultOf, summaryOf as compactionOf } from './continuation.mjs'

export const WINDOW = 30

const parseAll = (l) => {
  try {
    return [JSON.parse(l)]
  } catch {
    return l.split(/(?<=\})(?=\{"type")/).map((x) => {
      try {
        return JSON.parse(x)
      } catch {
        return null
      }
    }).filter(Boolean)
  }
}
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/u

/** Lower-cased words of letters and digits; each CJK / kana / hangul character a token of its own. */
export function tokens(text) {
  const out = []
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const w = m[0]
    if (!CJK.test(w)) {
      out.push(w)
      continue
    }
    let run = ''
    for (const ch of w) {
      if (CJK.test(ch)) {
        if (run) out.push(run)
        run = ''
        out.push(ch)
      } else run += ch
    }
    if (run) out.push(run)
  }
  return out
}
const grams = (toks, n) => {
  const m = new Map()
  for (let i = 0; i + n <= toks.length; i++) {
    const g = toks.slice(i, i + n).join(' ')
    m.set(g, (m.get(g) ?? 0) + 1)
  }
  return m
}
const overlap = (ref, cand) => {
  let o = 0
  for (const [g, c] of cand) o += Math.min(c, ref.get(g) ?? 0)
  return o
}
const total = (m) => {
  let s = 0
  for (const c of m.values()) s += c
  return s
}

/** ROUGE-1 and ROUGE-2 recall (`r1`, `r2`) and F1 (`f1`, `f2`) of `text` against the reference tokens. */
export function rouge(refToks, text) {
  const t = tokens(text)
  const out = {}
  for (const n of [1, 2]) {
    const r = grams(refToks, n)
    const c = grams(t, n)
    const o = overlap(r, c)
    const R = o / Math.max(1, total(r))
    const P = o / Math.max(1, total(c))
    out[`r${n}`] = R
    out[`f${n}`] = R + P ? (2 * R * P) / (R + P) : 0
  }
  return out
}

/** The extractive oracle: greedy, each step the line with the best gain in clipped bigram (then unigram) overlap per token, within `budget`. */
export function oracle(refToks, lines, budget) {
  const r1 = grams(refToks, 1)
  const r2 = grams(refToks, 2)
  const u1 = new Map()
  const u2 = new Map()
  let used = 0
  const picked = []
  const cands = [...new Set(lines.map((l) => l.trim()).filter((l) => l.length >= 8))]
    .map((l) => {
      const t = tokens(l)
      return { l, g1: grams(t, 1), g2: grams(t, 2), cost: native.countTokens(l) + 1 }
    })
    .filter((c) => c.cost > 1)
  const gain = (c) => {
    let g = 0
    for (const [k, v] of c.g2) g += 2 * Math.max(0, Math.min(v + (u2.get(k) ?? 0), r2.get(k) ?? 0) - Math.min(u2.get(k) ?? 0, r2.get(k) ?? 0))
    for (const [k, v] of c.g1) g += Math.max(0, Math.min(v + (u1.get(k) ?? 0), r1.get(k) ?? 0) - Math.min(u1.get(k) ?? 0, r1.get(k) ?? 0))
    return g
  }
  for (;;) {
    let best = null
    let bestScore = 0
    for (const c of cands) {
      if (c.taken || used + c.cost > budget) continue
      const s = gain(c) / c.cost
      if (s > bestScore) {
        bestScore = s
        best = c
      }
    }
    if (!best) break
    best.taken = true
    used += best.cost
    picked.push(best.l)
    for (const [k, v] of best.g1) u1.set(k, (u1.get(k) ?? 0) + v)
    for (const [k, v] of best.g2) u2.set(k, (u2.get(k) ?? 0) + v)
  }
  return picked.join('\n')
}

const HOST_TAIL = ['\n## Recent turns preserved verbatim', '\n## Tool Failures', '\n<read-files>', '\n<modified-files>', '\n<workspace-critical-rules>']
/** What the summary's writer wrote: not what a host appends to any summary. */
export function writtenText(s) {
  let end = s.length
  for (const h of HOST_TAIL) {
    const at = s.indexOf(h)
    if (at >= 0 && at < end) end = at
  }
  return s.slice(0, end).replace(/If you need specific details from before compaction[^\n]*?read the full transcript at: \S+/g, '')
}
const unheaded = (t) => t.split('\n').filter((l) => !/^\s*#{1,6}\s/.test(l)).join('\n')
const splitLines = (t) => t.split(/\n+|(?<=[.!?。！？])\s+/).map((s) => s.slice(0, 400))
/** The restore without its frame (header, fence, the checkpoint line) and headings: what is scored. */
const body = (restore) => unheaded(restore.split('\n').filter((l) => !/^\[Post-compaction|^What follows is data saved|^<\/?checkpoint-data>|^Checkpoint cp_/.test(l)).join('\n'))

function scored(restore, refToks, ref, next) {
  const idLine = (restore.match(/^Identifiers: (.*)$/m) ?? [])[1] ?? ''
  const ids = idLine.split(', ').map((s) => s.trim()).filter(Boolean)
  // the values the restore names with their role (`Values: Skill ID: 61c9…; …`), by their value: the reference
  // script reads the Identifiers line only; both are reported
  const valueLine = (restore.match(/^Values: (.*)$/m) ?? [])[1] ?? ''
  const values = valueLine.split('; ').map((s) => s.slice(s.lastIndexOf(': ') + 2).trim()).filter(Boolean)
  const refLow = ref.toLowerCase()
  const isUseful = (id) => {
    const s = id.toLowerCase().replace(/[(){}]/g, '')
    return s.length >= 3 && (refLow.includes(s) || next.includes(s))
  }
  return { ...rouge(refToks, body(restore)), ids: ids.length, useful: ids.filter(isUseful).length, values: values.length, usefulValues: values.filter(isUseful).length }
}

/**
 * The briefing-overlap rows of one transcript: for each real compaction whose summary's written text has 30 tokens
 * or more and that `restores` (by 1-based line) has a restore for, the restore (`restore`, at `budget`) and the
 * replace-mode summary (`replaceRestore`, at `wideBudget`) scored beside the naive text and the oracle of each budget.
 * `latest(line)`, when given, is the restore of the latest checkpoint written on or before a line: used for a
 * compaction the file records but `restores` has none for.
 */
export function briefingRows(fileText, file, restores, { budget = 800, wideBudget = 2000, window = WINDOW, latest = null } = {}) {
  const lines = fileText.split('\n')
  const docs = lines.map(parseAll)
  // the restore of a compaction: the latest written on or before its summary's line (Claude Code's summary follows
  // its compact_boundary), each once
  const written = restores.filter((r) => r.compaction !== null).sort((a, b) => a.line - b.line)
  const used = new Set()
  const restoreAt = (line) => {
    const r = written.filter((x) => x.line <= line && !used.has(x)).pop()
    if (r) used.add(r)
    return r
  }
  const lineOfId = new Map()
  docs.forEach((ds, i) => ds.forEach((d) => d?.id && lineOfId.set(d.id, i)))
  const rows = []
  docs.forEach((ds, i) =>
    ds.forEach((d) => {
      const summary = compactionOf(d)
      if (summary === null) return
      // a compaction the replay did not see (pi skips a line holding two objects): the latest checkpoint before it,
      // as ../shared/measures/briefing-overlap.mjs renders it
      const r = restoreAt(i + 1) ?? latest?.(i + 1)
      if (!r) return
      const ref = unheaded(writtenText(summary)).trim()
      const refToks = tokens(ref)
      if (refToks.length < 30) return
      const keptFrom = d.firstKeptEntryId && lineOfId.has(d.firstKeptEntryId) ? lineOfId.get(d.firstKeptEntryId) : i
      const compacted = docs.slice(0, keptFrom).flat().map(messageOf).filter(Boolean)
      const convText = compacted.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => textOf(m)).filter((t) => t.trim()).join('\n')
      const pool = compacted.flatMap((m) => splitLines(`${textOf(m)}\n${callsOf(m)}\n${resultOf(m)}`))
      const next = docs.slice(i + 1).flat().map(messageOf).filter(Boolean).filter((m) => m.role === 'assistant').slice(0, window).map((m) => `${textOf(m)}\n${callsOf(m)}`).join('\n').toLowerCase()
      const at = (b, restore) => {
        const tail = lastTokens(convText, b)
        return { restore: scored(restore, refToks, ref, next), tail: rouge(refToks, tail), oracle: rouge(refToks, oracle(refToks, pool.concat(splitLines(tail)), b)) }
      }
      rows.push({ file, line: i + 1, summaryTokens: native.countTokens(ref), default: at(budget, r.restore), replace: at(wideBudget, r.replaceRestore) })
    }),
  )
  return rows
}

/** Means of `rows` at one budget (`default` or `replace`): ROUGE of restore, naive text and oracle, the share of the oracle, the identifier precision. */
export function briefingMeans(rows, which) {
  const mean = (f) => (rows.length ? rows.reduce((a, r) => a + f(r[which]), 0) / rows.length : null)
  const ids = rows.reduce((a, r) => a + r[which].restore.ids, 0)
  const useful = rows.reduce((a, r) => a + r[which].restore.useful, 0)
  const values = rows.reduce((a, r) => a + (r[which].restore.values ?? 0), 0)
  const usefulValues = rows.reduce((a, r) => a + (r[which].restore.usefulValues ?? 0), 0)
  const f2 = mean((x) => x.restore.f2)
  const tail = mean((x) => x.tail.f2)
  const orc = mean((x) => x.oracle.f2)
  return {
    compactions: rows.length,
    restoreF2: f2,
    tailF2: tail,
    oracleF2: orc,
    restoreF1: mean((x) => x.restore.f1),
    restoreR2: mean((x) => x.restore.r2),
    shareOfOracle: orc ? f2 / orc : null,
    overTail: tail ? f2 / tail : null,
    identifierPrecision: ids ? useful / ids : null,
    identifiers: ids,
    // with the values named with their role counted too
    namedPrecision: ids + values ? (useful + usefulValues) / (ids + values) : null,
    values,
  }
}

/** The report's lines: at each budget, the restore beside the naive text and the oracle, with the issue 51 targets. */
export function formatBriefing(rows, { budget = 800, wideBudget = 2000 } = {}) {
  const pct = (x) => (x === null || x === undefined ? '-' : `${(x * 100).toFixed(1)} %`)
  const out = [`briefing overlap (ROUGE against what the real summary's writer wrote; ../shared/measures/briefing-overlap.mjs), ${rows.length} compactions:`]
  for (const [which, b, label] of [['default', budget, 'restore'], ['replace', wideBudget, 'as the summary (replace mode)']]) {
    const m = briefingMeans(rows, which)
    const met = m.shareOfOracle >= 0.5 && m.overTail >= 1.5 && (m.identifierPrecision ?? 1) >= 0.6
    out.push(
      `  ${label} at ${b}: ROUGE-2 F1 ${pct(m.restoreF2)} (naive ${pct(m.tailF2)}, oracle ${pct(m.oracleF2)}): ${pct(m.shareOfOracle)} of the oracle, ${m.overTail?.toFixed(2) ?? '-'}x the naive text; ROUGE-1 F1 ${pct(m.restoreF1)}; identifier precision ${pct(m.identifierPrecision)} of ${m.identifiers}, with the ${m.values} named values ${pct(m.namedPrecision)} (target: >= 50 % of the oracle, >= 1.5x, >= 60 %: ${met ? 'met' : 'short'})`,
    )
  }
  return out
}
