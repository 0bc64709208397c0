// The restore-quality measure (issue 11, issue 21): how much of what a real compaction summary kept does the
// restore text keep? Used by `npm run eval:restore` (scripts/eval-restore.mjs, the command line) and by anything
// else that measures a transcript the same way (it ships in bin/lib so the package's CLI can import it).
//
// For every `compaction` entry of every session transcript given (pi v1/v3 or Claude Code; default: every
// *.jsonl under __test__/fixtures/transcripts, so a transcript is added by dropping the file in), the session is
// replayed with the same calls `openclaw-context replay` makes (bin/lib/replay.mjs: the checkpoint the host writes
// at that point, from the messages being compacted and the incremental state), and the checkpoint written at the
// compaction is rendered at the budget (800 tokens by default, post-compaction) and at 2,000 tokens (the budget of
// `compaction.mode: 'replace'`, where the restore becomes the compaction summary). Per compaction it reports:
//   - the real summary's tokens and the restore text's tokens;
//   - recall of the items the real summary kept (bin/lib/recall.mjs: file basenames, `code` spans, identifiers;
//     case-insensitive) by the restore text, and by two naive texts of the same budget:
//       last      the conversation's last N tokens (N = the budget),
//       first+last the session's first user message (at most half the budget) plus the conversation's last
//                 tokens filling the rest;
//   - the same at 2,000 tokens;
//   - whether the session's task (its first user message of its own) is in the restore;
//   - lines repeated in the restore.
// and the means over all compactions and per transcript format. A compaction whose summary is empty or names
// nothing a restore could be checked against is reported in the notes, not counted. Targets (reported, not
// asserted): mean recall >= 70% at <= 800 tokens, >= 25 points above the better naive text on average and
// above it on every compaction, the task in every restore, no repeated line.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { native } from './native.mjs'
import { replay } from './replay.mjs'
import { firstKeptIndex, parseTranscript } from './transcript.mjs'
import { recall, repeatedLines, sessionTask, summaryItems, taskPresent } from './recall.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const DEFAULT_DIR = join(root, '__test__', 'fixtures', 'transcripts')
export const DEFAULT_MAX_TOKENS = 800
/** The second budget measured: the restore as the compaction summary itself (`compaction.mode: 'replace'`). */
export const REPLACE_MAX_TOKENS = 2000

/** Problem kinds of parseTranscript that mean a line could not be read as it stands. */
const MALFORMED = new Set(['garbage', 'truncated-line', 'truncated-last-line', 'not-an-entry', 'missing-message', 'unknown-type'])

/** The *.jsonl files under each path (a file is taken as it is), sorted, each once. */
export function transcriptFiles(paths) {
  const out = []
  const walk = (p) => {
    const st = statSync(p)
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) {
        const q = join(p, name)
        if (statSync(q).isDirectory()) walk(q)
        else if (name.endsWith('.jsonl')) out.push(q)
      }
    } else out.push(p)
  }
  for (const p of paths) walk(resolve(p))
  return [...new Set(out)]
}

/** Visible text of a message as the conversation shows it: text blocks, tool calls, tool results (no thinking). */
function visible(m) {
  const c = m.content
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) {
    if (m.role === 'bashExecution') return `$ ${m.command ?? ''}\n${m.output ?? ''}`
    if (typeof m.summary === 'string') return m.summary
    return ''
  }
  const parts = []
  for (const b of c) {
    if (!b || typeof b !== 'object') continue
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text)
    else if (b.type === 'toolCall') parts.push(`${b.name ?? ''}(${JSON.stringify(b.arguments ?? {})})`)
  }
  return parts.join('\n')
}

function conversation(messages) {
  return messages
    .map((m) => {
      const t = visible(m).trim()
      return t ? `${m.role}: ${t}` : ''
    })
    .filter(Boolean)
    .join('\n\n')
}

/** The longest suffix of `text` of at most `n` tokens. */
export function lastTokens(text, n) {
  if (n <= 0) return ''
  let lo = Math.max(0, text.length - n * 16) // a token is rarely longer than 16 characters
  if (native.countTokens(text.slice(lo)) > n) {
    let hi = text.length
    // smallest start whose suffix fits
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (native.countTokens(text.slice(mid)) <= n) hi = mid
      else lo = mid + 1
    }
  } else {
    lo = 0
    let hi = Math.max(0, text.length - n * 16)
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (native.countTokens(text.slice(mid)) <= n) hi = mid
      else lo = mid + 1
    }
  }
  return text.slice(lo)
}

/** The longest prefix of `text` of at most `n` tokens. */
export function firstTokens(text, n) {
  if (native.countTokens(text) <= n) return text
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (native.countTokens(text.slice(0, mid)) <= n) lo = mid
    else hi = mid - 1
  }
  return text.slice(0, lo)
}

/** The two naive texts of a budget: the last `budget` tokens; the first user message + the last tokens. */
export function naiveTexts(conv, firstUser, budget) {
  const last = lastTokens(conv, budget)
  const head = firstUser ? `user: ${firstTokens(firstUser, budget >> 1)}\n...\n` : ''
  const firstLast = head + lastTokens(conv, budget - native.countTokens(head))
  return { last, firstLast }
}

function userText(m) {
  return m.role === 'user' ? visible(m) : ''
}

/**
 * Measures one transcript. Returns `{ file, notes: string[], compactions: [...] }`; `notes` says what was
 * skipped and why (no compaction, malformed lines).
 */
export async function evaluateTranscript(file, { maxTokens = DEFAULT_MAX_TOKENS, replaceTokens = REPLACE_MAX_TOKENS } = {}) {
  const rel = relative(process.cwd(), file)
  const name = rel && !rel.startsWith('..') ? rel : file
  const notes = []
  const parsed = parseTranscript(readFileSync(file, 'utf8'))
  for (const p of parsed.problems) {
    if (MALFORMED.has(p.kind)) notes.push(`${name}:${p.line}: malformed line (${p.kind}): ${p.detail}; the rest of the file is measured`)
  }
  if (parsed.format === 'unknown') {
    notes.push(`${name}: not a pi session transcript (no session header and no entries); skipped`)
    return { file: name, notes, compactions: [] }
  }
  const compactionAt = parsed.entries.map((e, i) => (e.entry.type === 'compaction' ? i : -1)).filter((i) => i >= 0)
  if (compactionAt.length === 0) {
    notes.push(`${name}: no compaction entry, so no real summary to compare a restore with; skipped`)
    return { file: name, notes, compactions: [] }
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'context-native-eval-'))
  const written = new Map() // compaction line -> checkpoint yaml
  try {
    const report = await replay(parsed, {
      file: name,
      stateDir,
      onCheckpoint: (cp) => {
        if (cp.trigger === 'compaction') written.set(cp.line, readFileSync(cp.path, 'utf8'))
      },
    })
    for (const e of report.errors) notes.push(`${name}:${e.line}: ${e.call} threw ${e.code}: ${e.message}`)
  } finally {
    rmSync(stateDir, { recursive: true, force: true })
  }

  const entries = parsed.entries
  const userTexts = entries.filter((e) => e.entry.type === 'message').map((e) => userText(e.entry.message)).filter((t) => t.trim())
  const firstUser = userTexts[0] ?? ''
  const out = []
  let start = 0
  for (const [k, i] of compactionAt.entries()) {
    const { line, entry } = entries[i]
    const kept = firstKeptIndex(entry, entries)
    const end = kept >= 0 && kept <= i ? kept : i
    const messages = entries.slice(start, end).filter((e) => e.entry.type === 'message').map((e) => e.entry.message)
    start = end
    const summary = typeof entry.summary === 'string' ? entry.summary : ''
    const items = summaryItems(summary)
    if (items.length === 0) {
      notes.push(
        `${name}:${line}: compaction ${k + 1}: ${summary.trim() ? 'the summary names no file, code span or identifier' : 'no real summary'} to compare a restore with; reported, not counted`,
      )
      continue
    }
    const yaml = written.get(line)
    if (yaml === undefined) {
      notes.push(`${name}:${line}: compaction ${k + 1}: no checkpoint was written (see the replay errors above); skipped`)
      continue
    }
    const restore = native.renderCheckpoint({ yaml }, { mode: 'post-compaction', maxTokens }) ?? ''
    const cp = native.readCheckpoint({ yaml })
    const conv = conversation(messages)
    const naive = naiveTexts(conv, firstUser, maxTokens)
    const wide = native.renderCheckpoint({ yaml }, { mode: 'post-compaction', maxTokens: replaceTokens, asSummary: true }) ?? ''
    const naiveWide = naiveTexts(conv, firstUser, replaceTokens)
    const task = sessionTask(entries.slice(0, i).filter((e) => e.entry.type === 'message').map((e) => userText(e.entry.message)))
    const r = recall(items, restore)
    const rl = recall(items, naive.last)
    const rf = recall(items, naive.firstLast)
    out.push({
      file: name,
      format: parsed.family ?? parsed.format,
      line,
      compaction: k + 1,
      summaryTokens: native.countTokens(summary),
      restoreTokens: native.countTokens(restore),
      items: items.length,
      recall: r.recall,
      byKind: r.byKind,
      missed: r.missed,
      naiveLast: rl.recall,
      naiveFirstLast: rf.recall,
      naiveTokens: { last: native.countTokens(naive.last), firstLast: native.countTokens(naive.firstLast) },
      replace: {
        maxTokens: replaceTokens,
        restoreTokens: native.countTokens(wide),
        recall: recall(items, wide).recall,
        betterNaive: Math.max(recall(items, naiveWide.last).recall ?? 0, recall(items, naiveWide.firstLast).recall ?? 0),
      },
      task: task ? taskPresent(task, restore) : null,
      taskText: task ? task.slice(0, 80) : null,
      repeated: repeatedLines(restore),
      checkpoint: cp
        ? { id: cp.meta.checkpointId, previous: cp.meta.previousCheckpoint ?? null, compactionCount: cp.meta.compactionCount, createdAt: cp.meta.createdAt, task: cp.working.task ?? null }
        : null,
      compactionTime: typeof entry.timestamp === 'string' ? entry.timestamp : null,
      restore,
    })
  }
  return { file: name, notes, compactions: out }
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null)
const pct = (x) => (x === null || x === undefined ? '  -  ' : `${(x * 100).toFixed(1).padStart(5)}%`)

/** Means over all compactions, and the targets as booleans (reported, not asserted). */
export function summarize(rows, maxTokens = DEFAULT_MAX_TOKENS) {
  const better = rows.map((r) => Math.max(r.naiveLast ?? 0, r.naiveFirstLast ?? 0))
  const s = {
    compactions: rows.length,
    meanSummaryTokens: mean(rows.map((r) => r.summaryTokens)),
    meanRestoreTokens: mean(rows.map((r) => r.restoreTokens)),
    maxRestoreTokens: rows.length ? Math.max(...rows.map((r) => r.restoreTokens)) : null,
    meanRecall: mean(rows.map((r) => r.recall ?? 0)),
    meanNaiveLast: mean(rows.map((r) => r.naiveLast ?? 0)),
    meanNaiveFirstLast: mean(rows.map((r) => r.naiveFirstLast ?? 0)),
    meanBetterNaive: mean(better),
    taskPresent: rows.filter((r) => r.task === true).length,
    taskChecked: rows.filter((r) => r.task !== null).length,
    repeatedLines: rows.reduce((a, r) => a + r.repeated.length, 0),
  }
  s.marginOverBetterNaive = s.meanRecall - s.meanBetterNaive
  s.replace = {
    maxTokens: rows[0]?.replace?.maxTokens ?? REPLACE_MAX_TOKENS,
    meanRestoreTokens: mean(rows.map((r) => r.replace?.restoreTokens ?? 0)),
    meanRecall: mean(rows.map((r) => r.replace?.recall ?? 0)),
    meanBetterNaive: mean(rows.map((r) => r.replace?.betterNaive ?? 0)),
  }
  s.byFormat = {}
  for (const f of [...new Set(rows.map((r) => r.format))].sort()) {
    const rs = rows.filter((r) => r.format === f)
    s.byFormat[f] = {
      compactions: rs.length,
      meanRecall: mean(rs.map((r) => r.recall ?? 0)),
      meanBetterNaive: mean(rs.map((r) => Math.max(r.naiveLast ?? 0, r.naiveFirstLast ?? 0))),
      meanReplaceRecall: mean(rs.map((r) => r.replace?.recall ?? 0)),
    }
  }
  s.targets = {
    recallAtLeast70: s.meanRecall >= 0.7 && s.maxRestoreTokens <= maxTokens,
    marginAtLeast25Points: s.marginOverBetterNaive >= 0.25,
    aboveBetterNaiveOnEach: rows.every((r, i) => (r.recall ?? 0) > better[i]),
    taskInEvery: s.taskPresent === s.taskChecked,
    noRepeatedLine: s.repeatedLines === 0,
  }
  return s
}

export function formatReport(results, s, { missed = false } = {}) {
  const lines = []
  for (const r of results) for (const n of r.notes) lines.push(`note: ${n}`)
  if (lines.length) lines.push('')
  const wide = s.replace?.maxTokens ?? REPLACE_MAX_TOKENS
  lines.push(`transcript                       line  cmp  summary  restore  items  recall   last  first+last  task  repeated  at ${wide}`)
  for (const r of results) {
    for (const c of r.compactions) {
      lines.push(
        `${c.file.slice(-32).padEnd(32)} ${String(c.line).padStart(5)}  ${String(c.compaction).padStart(3)}  ${String(c.summaryTokens).padStart(7)}  ${String(c.restoreTokens).padStart(7)}  ${String(c.items).padStart(5)}  ${pct(c.recall)} ${pct(c.naiveLast)}  ${pct(c.naiveFirstLast).padStart(10)}  ${c.task === null ? '  - ' : c.task ? ' yes' : '  NO'}  ${String(c.repeated.length).padStart(8)}  ${pct(c.replace?.recall)}`,
      )
      if (missed && c.missed.length) lines.push(`    missed: ${c.missed.join(', ')}`)
    }
  }
  if (s.compactions === 0) {
    lines.push('(no compaction measured)')
    return lines.join('\n')
  }
  lines.push('')
  lines.push(
    `mean over ${s.compactions} compactions: summary ${Math.round(s.meanSummaryTokens)} tokens, restore ${Math.round(s.meanRestoreTokens)} (max ${s.maxRestoreTokens}); recall ${pct(s.meanRecall).trim()} vs last ${pct(s.meanNaiveLast).trim()}, first+last ${pct(s.meanNaiveFirstLast).trim()} (better naive ${pct(s.meanBetterNaive).trim()}, margin ${(s.marginOverBetterNaive * 100).toFixed(1)} points); task in ${s.taskPresent}/${s.taskChecked}; repeated lines ${s.repeatedLines}`,
  )
  for (const [f, b] of Object.entries(s.byFormat)) {
    lines.push(`  ${f}: ${b.compactions} compactions, recall ${pct(b.meanRecall).trim()} (better naive ${pct(b.meanBetterNaive).trim()}); at ${wide} tokens ${pct(b.meanReplaceRecall).trim()}`)
  }
  lines.push(
    `at ${wide} tokens (compaction.mode 'replace': the restore is the summary): recall ${pct(s.replace.meanRecall).trim()}, restore ${Math.round(s.replace.meanRestoreTokens)} tokens on average, better naive ${pct(s.replace.meanBetterNaive).trim()}`,
  )
  const t = s.targets
  const mark = (b) => (b ? 'met' : 'NOT met')
  lines.push(
    `targets: recall >= 70% at <= 800 tokens ${mark(t.recallAtLeast70)}; >= 25 points over the better naive ${mark(t.marginAtLeast25Points)}; above it on each ${mark(t.aboveBetterNaiveOnEach)}; task in every restore ${mark(t.taskInEvery)}; no repeated line ${mark(t.noRepeatedLine)}`,
  )
  return lines.join('\n')
}

/** The figures as a markdown section (BENCHMARKS.md, via benchmark/cases/restore.mjs or `--markdown`). */
export function markdownSection(results, s, maxTokens = DEFAULT_MAX_TOKENS) {
  const p = (x) => (x === null || x === undefined ? '-' : `${(x * 100).toFixed(1)}%`)
  const lines = [
    `Every real \`compaction\` entry of the bundled pi and Claude Code transcripts (\`__test__/fixtures/transcripts\`, MIT), replayed with ` +
      `the calls \`openclaw-context replay\` makes; the checkpoint written at the compaction rendered at ${maxTokens} tokens ` +
      `(post-compaction). Recall: the share of the items the real LLM summary kept (file basenames, \`code\` spans, ` +
      `identifiers; \`bin/lib/recall.mjs\`) that a text contains, case-insensitively. Naive texts of the same budget: ` +
      `the conversation's last ${maxTokens} tokens ("last"), and the session's first user message (at most half) plus the ` +
      `last tokens ("first+last"). The last column renders the same checkpoint at ${s.replace?.maxTokens ?? REPLACE_MAX_TOKENS} tokens, the budget of ` +
      `\`compaction.mode: 'replace'\` (the restore becomes the compaction summary). Reproduce with \`npm run eval:restore\` ` +
      `(add a transcript by dropping it in the folder).`,
    '',
    `| transcript | compaction (line) | real summary tokens | restore tokens | items | restore recall | last | first+last | task in restore | repeated lines | recall at ${s.replace?.maxTokens ?? REPLACE_MAX_TOKENS} |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const r of results) {
    for (const c of r.compactions) {
      lines.push(
        `| ${c.file.replace(/^.*[\\/]/, '')} | ${c.compaction} (${c.line}) | ${c.summaryTokens} | ${c.restoreTokens} | ${c.items} | ${p(c.recall)} | ${p(c.naiveLast)} | ${p(c.naiveFirstLast)} | ${c.task === null ? '-' : c.task ? 'yes' : 'no'} | ${c.repeated.length} | ${p(c.replace?.recall)} |`,
      )
    }
  }
  if (s.compactions) {
    lines.push(
      `| **mean** (${s.compactions}) | | ${Math.round(s.meanSummaryTokens)} | ${Math.round(s.meanRestoreTokens)} (max ${s.maxRestoreTokens}) | | **${p(s.meanRecall)}** | ${p(s.meanNaiveLast)} | ${p(s.meanNaiveFirstLast)} | ${s.taskPresent}/${s.taskChecked} | ${s.repeatedLines} | **${p(s.replace.meanRecall)}** |`,
    )
    for (const [f, b] of Object.entries(s.byFormat)) {
      lines.push(`| mean, ${f} (${b.compactions}) | | | | | ${p(b.meanRecall)} | | better naive ${p(b.meanBetterNaive)} | | | ${p(b.meanReplaceRecall)} |`)
    }
  }
  const notes = results.flatMap((r) => r.notes)
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n.replace(/^.*[\\/](?=[^\\/]+\.jsonl)/, '')}`))
  return lines
}

