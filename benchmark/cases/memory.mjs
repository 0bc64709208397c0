// Memory: RSS of a process holding 10,000 sessions' full scratchpads, native against the JS
// baseline, and how RSS moves over a million calls (leak check), each in a fresh child process.

import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runChild } from '../lib/child.mjs'
import { fmtBytes, fmtMs, fmtInt, SCALE } from '../lib/stats.mjs'
import { has, missing } from '../lib/native.mjs'
import { table, MET, MISSED, SKIPPED, NO_GOAL } from '../lib/report.mjs'

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'children', 'memory.mjs')

export const title = 'Memory'

export async function run({ report, log }) {
  const calls = Math.max(100_000, Math.round(1_000_000 * Math.min(1, SCALE)))
  const lines = [
    'Each figure comes from a fresh `node --expose-gc` child that fills 10,000 sessions (the registry\'s ' +
      'cap) with full scratchpads (notes ~3,900 chars, plan ~1,900 chars, 50 refs; each session its own ' +
      'strings), then makes the calls: per 50 calls, one `refs.add` (drops the oldest), one `set_plan`, ' +
      '48 `getScratchpadContent`, cycling over the sessions. RSS is read after two forced GCs.',
    '',
  ]
  const runs = {}
  const impls = has('applyScratchpadAction', 'getScratchpadContent') ? ['native', 'baseline'] : ['baseline']
  for (const impl of impls) {
    // the baseline's calls cost ~5x more (token counting in JS): fewer of them, same mix
    const n = impl === 'native' ? calls : Math.round(calls / 10)
    log(`memory: ${impl}, 10,000 sessions + ${fmtInt(n)} calls`)
    runs[impl] = await runChild(CHILD, [impl, String(n)], { timeoutMs: 240_000, nodeArgs: ['--expose-gc'] })
    if (!runs[impl].ok) log(`memory: ${impl} failed: ${runs[impl].timedOut ? 'timed out' : runs[impl].stderr}`)
  }
  const rows = []
  for (const impl of impls) {
    const r = runs[impl]
    if (!r.ok) {
      rows.push([impl, r.timedOut ? 'timed out' : `failed: ${r.stderr}`, '', '', '', ''])
      continue
    }
    const x = r.result
    const last = x.readings[x.readings.length - 1]
    const peak = Math.max(...x.readings.map((q) => q.rss))
    rows.push([
      impl === 'native' ? 'addon registry' : 'JS baseline (`Map`)',
      fmtBytes(x.before.rss),
      `${fmtBytes(x.filled.rss)} (+${fmtBytes(x.filled.rss - x.before.rss)}; JS heap ${fmtBytes(x.filled.heapUsed)})`,
      `${fmtInt(x.calls)} calls in ${fmtMs(x.callsMs)}`,
      `${fmtBytes(last.rss)} (${last.rss >= x.filled.rss ? '+' : ''}${fmtBytes(last.rss - x.filled.rss)}), peak ${fmtBytes(peak)}`,
      `${fmtMs(x.fillMs)}`,
    ])
  }
  lines.push(...table(['implementation', 'RSS before', 'RSS with 10,000 full sessions', 'calls', 'RSS after the calls (change)', 'time to fill'], rows))
  const nat = runs.native?.ok ? runs.native.result : null
  if (nat) {
    lines.push('', 'RSS of the native child along the calls:', '')
    lines.push(
      ...table(
        ['calls', 'RSS', 'V8 heap committed', 'V8 heap used', 'RSS outside the V8 heap'],
        nat.readings.map((q) => [fmtInt(q.calls), fmtBytes(q.rss), fmtBytes(q.heapTotal), fmtBytes(q.heapUsed), fmtBytes(q.rss - q.heapTotal)]),
      ),
    )
  }
  report.section(title, lines)

  if (!nat) {
    report.goal({ case: 'Memory: 10,000 full scratchpads, 1M calls', goal: 'report RSS; no growth over the calls', figure: impls.includes('native') ? 'child failed' : missing('applyScratchpadAction', 'getScratchpadContent'), status: SKIPPED })
    return
  }
  const perSession = (nat.filled.rss - nat.before.rss) / 10_000
  // growth outside the V8 heap: RSS minus the heap V8 has committed (young-generation resizes move
  // RSS by 16 MiB steps without anything leaking), fitted over all readings
  const outside = nat.readings.map((q) => ({ x: q.calls, y: q.rss - q.heapTotal }))
  const slope = fitSlope(outside) // bytes per call
  const growth = slope * 1_000_000
  const rssChange = nat.readings[nat.readings.length - 1].rss - nat.filled.rss
  report.goal({
    case: 'Memory: RSS with 10,000 full scratchpads',
    goal: 'reported (no number set)',
    figure: `${fmtBytes(nat.filled.rss)} (+${fmtBytes(nat.filled.rss - nat.before.rss)}, ~${fmtBytes(perSession)} per session)` +
      (runs.baseline?.ok ? `; JS baseline +${fmtBytes(runs.baseline.result.filled.rss - runs.baseline.result.before.rss)}` : ''),
    status: NO_GOAL,
  })
  report.goal({
    case: `Memory: RSS change over ${fmtInt(nat.calls)} calls`,
    goal: 'flat: < 4 MiB per million calls outside the V8 heap',
    figure: `${growth >= 0 ? '+' : ''}${fmtBytes(growth)} per million calls outside the V8 heap (fitted); RSS ${rssChange >= 0 ? '+' : ''}${fmtBytes(rssChange)} in total`,
    status: growth < 4 * 1024 * 1024 ? MET : MISSED,
    why: 'memory outside the V8 heap keeps rising with the number of calls, which points to memory retained per call.',
    close: 'run the same loop with a counting global allocator (or under `heaptrack`) to find the retained allocations.',
  })
}

/** Least-squares slope of y over x. */
function fitSlope(pts) {
  const mx = pts.reduce((a, p) => a + p.x, 0) / pts.length
  const my = pts.reduce((a, p) => a + p.y, 0) / pts.length
  let num = 0
  let den = 0
  for (const p of pts) {
    num += (p.x - mx) * (p.y - my)
    den += (p.x - mx) ** 2
  }
  return den ? num / den : 0
}
