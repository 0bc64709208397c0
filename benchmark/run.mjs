// `npm run bench`: runs every case against its incumbent and writes BENCHMARKS.md.
//
//   npm run bench                          all cases, full budgets (< 10 min on 2 cores)
//   npm run bench -- tokens scratchpad     only these cases (BENCHMARKS.md is still written)
//   BENCH_SCALE=0.2 npm run bench          shorter time budgets, for a smoke run
//   BENCH_OUT=/tmp/b.md npm run bench      write the report elsewhere
//
// Measure a release build (`npm run build`); the report says which one it loaded.

import { writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'

const t0 = performance.now()
const log = (msg) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(3)} s] ${msg}\n`)

// On a fresh clone the addon is not built yet: build it once (release, as CI does), as `npm run demo` does.
let buildMs = 0
{
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  try {
    createRequire(import.meta.url)(path.join(root, 'index.js'))
  } catch (err) {
    if (!/Cannot find native binding|Cannot find module|Failed to load native binding/i.test(String(err?.message))) throw err
    log('the native addon is not built yet: building it once with `npm run build` (release; a few minutes)')
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const r = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
    if (r.status !== 0) {
      log('building the addon failed; native cases will be skipped')
    }
    buildMs = performance.now() - t0
  }
}

const { ROOT, loadError, buildInfo } = await import('./lib/native.mjs')
const { Report } = await import('./lib/report.mjs')

const CASES = {
  tokens: () => import('./cases/tokens.mjs'),
  'cold-start': () => import('./cases/cold-start.mjs'),
  gauge: () => import('./cases/gauge.mjs'),
  scratchpad: () => import('./cases/scratchpad.mjs'),
  checkpoint: () => import('./cases/checkpoint.mjs'),
  restore: () => import('./cases/restore.mjs'),
  'compaction-cost': () => import('./cases/compaction-cost.mjs'),
  observation: () => import('./cases/observation.mjs'),
  history: () => import('./cases/history.mjs'),
  memory: () => import('./cases/memory.mjs'),
  'event-loop': () => import('./cases/event-loop.mjs'),
  'plugin-turn': () => import('./cases/plugin-turn.mjs'),
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
for (const w of wanted) {
  if (!CASES[w]) {
    console.error(`unknown case ${w}; cases: ${Object.keys(CASES).join(', ')}`)
    process.exit(2)
  }
}
if (loadError) {
  log(`the addon did not load (${loadError.message.split('\n')[0]}); native cases will be skipped. Run \`npm run build\`.`)
}
const build = buildInfo()
if (build.file && !build.isRelease) log('WARNING: the loaded addon is a debug build; run `npm run build` for real figures')

const report = new Report()
let failed = false
for (const [name, load] of Object.entries(CASES)) {
  if (wanted.length && !wanted.includes(name)) continue
  const started = performance.now()
  log(`== ${name}`)
  try {
    const mod = await load()
    await mod.run({ report, log })
  } catch (e) {
    failed = true
    log(`case ${name} failed: ${e.stack ?? e}`)
    report.section(`${name}: failed`, ['```', String(e.stack ?? e), '```'])
  }
  log(`== ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

const out = process.env.BENCH_OUT ?? path.join(ROOT, 'BENCHMARKS.md')
writeFileSync(out, report.render({ elapsedMs: performance.now() - t0, buildMs }))
log(`wrote ${out}`)
for (const g of report.goals) log(`${g.status.padEnd(8)} ${g.case}: ${g.figure} (goal ${g.goal})`)
process.exitCode = failed ? 1 : 0
