// Restore quality (issue 11): the figures of `npm run eval:restore` (scripts/eval-restore.mjs) in BENCHMARKS.md.
// Not a timing: recall of what the real compaction summaries kept, against two naive texts of the same budget.
import { DEFAULT_DIR, evaluateTranscript, markdownSection, summarize, transcriptFiles } from '../../scripts/eval-restore.mjs'
import { MET, MISSED } from '../lib/report.mjs'

export const title = 'Restore quality (npm run eval:restore)'

export async function run({ report, log }) {
  const results = []
  for (const f of transcriptFiles([DEFAULT_DIR])) {
    log(`restore: ${f}`)
    results.push(await evaluateTranscript(f))
  }
  const rows = results.flatMap((r) => r.compactions)
  const s = summarize(rows)
  const pct = (x) => `${(x * 100).toFixed(1)}%`
  const status = (b) => (b ? MET : MISSED)
  report.goal({
    case: `Restore recall of the real compaction summaries (${s.compactions} compactions)`,
    goal: '>= 70% at <= 800 tokens',
    figure: `${pct(s.meanRecall)} at <= ${s.maxRestoreTokens} tokens (real summaries: ${Math.round(s.meanSummaryTokens)} tokens on average)`,
    status: status(s.targets.recallAtLeast70),
  })
  report.goal({
    case: 'Restore recall over the better naive text of the same budget',
    goal: '>= 25 points on average, above it on each compaction',
    figure: `+${((s.meanRecall - s.meanBetterNaive) * 100).toFixed(1)} points (${pct(s.meanBetterNaive)}); above on ${rows.filter((r) => r.recall > Math.max(r.naiveLast, r.naiveFirstLast)).length} of ${rows.length}`,
    status: status(s.targets.marginAtLeast25Points && s.targets.aboveBetterNaiveOnEach),
  })
  report.goal({
    case: 'Restore: the session task in every restore, no repeated line',
    goal: 'all',
    figure: `task in ${s.taskPresent}/${s.taskChecked}; ${s.repeatedLines} repeated lines`,
    status: status(s.targets.taskInEvery && s.targets.noRepeatedLine),
  })
  report.section(title, markdownSection(results, s))
}
