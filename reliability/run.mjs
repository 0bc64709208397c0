#!/usr/bin/env node
// `npm run test:reliability`: crashes, concurrency, faults, bad input and prompt injection against
// the built addon (issue 8). The short form runs in CI through `npm test`; `--heavy` runs the long
// form (2,000 kills). `--only <group>` runs one group. Prints a table of cases, then exactly one
// closing line `reliability: N passed, N failed`; exits non-zero on any failure.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTemps, root } from './lib.mjs'
import crash from './cases/crash.mjs'
import concurrency from './cases/concurrency.mjs'
import faults from './cases/faults.mjs'
import badInput from './cases/bad-input.mjs'
import injection from './cases/injection.mjs'
import hostile from './cases/hostile.mjs'
import retention from './cases/retention.mjs'
import pluginStore from './cases/plugin-store.mjs'

const argv = process.argv.slice(2)
const heavy = argv.includes('--heavy')
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined
const json = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : undefined
const opts = { heavy }

const groups = { crash, concurrency, faults, 'bad-input': badInput, injection, hostile, retention, store: pluginStore }
const results = []
let failed = 0
const t0 = Date.now()
for (const [name, make] of Object.entries(groups)) {
  if (only && only !== name) continue
  for (const c of make(opts)) {
    const start = Date.now()
    let status = 'pass'
    let detail = ''
    try {
      detail = (await c.run()) ?? ''
    } catch (e) {
      status = 'FAIL'
      detail = `${e?.message ?? e} @ ${e?.stack?.split('\n')[1]?.trim() ?? ''}`
      failed++
    } finally {
      cleanupTemps()
    }
    const ms = Date.now() - start
    results.push({ group: c.group, name: c.name, status, ms, detail })
    console.log(`${status === 'pass' ? 'ok  ' : 'FAIL'} [${c.group}] ${c.name} (${ms} ms)${detail ? ` - ${detail}` : ''}`)
  }
}
if (json) writeFileSync(json.startsWith('/') ? json : join(root, json), `${JSON.stringify({ heavy, ms: Date.now() - t0, results, badInputRows: globalThis.__badInputRows ?? [] }, null, 2)}\n`)
console.log(`\n${results.length} cases in ${((Date.now() - t0) / 1000).toFixed(1)} s${heavy ? ' (heavy)' : ''}`)
console.log(`reliability: ${results.length - failed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
