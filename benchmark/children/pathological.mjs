// Child: counts one pathological input with one tokenizer, growing the input from 2 KB to
// 1 MB; when one size takes longer than the step budget it jumps to the full 1 MB, so a
// super-linear tokenizer still yields figures (time per size, growth exponent) before the parent
// kills it at its time limit.
// argv: <tokenizer> <input> <stepBudgetMs>

import { performance } from 'node:perf_hooks'
import { TOKENIZERS } from '../lib/tokenizers.mjs'
import { PATHOLOGICAL, ONE_MB } from '../lib/fixtures.mjs'
import { report } from '../lib/child.mjs'

const [name, input, stepBudget = '2000'] = process.argv.slice(2)
const count = await TOKENIZERS[name].load()
const full = PATHOLOGICAL[input].make()
count('warm up') // table building is not part of the figure

const points = []
const emit = (done) => report({ points, done })
for (let size = 2048; size <= ONE_MB; size *= 2) {
  const text = full.slice(0, size)
  const t0 = performance.now()
  const tokens = count(text)
  const ms = performance.now() - t0
  points.push({ size, ms, tokens })
  // report after every point: if the parent kills us during the next size, it still has these
  if (size === ONE_MB && ms < 300) {
    // fast enough to repeat: the figure is the median of five counts of the full 1 MB
    const runs = [ms]
    for (let k = 0; k < 4; k++) {
      const t1 = performance.now()
      count(text)
      runs.push(performance.now() - t1)
    }
    runs.sort((a, b) => a - b)
    points[points.length - 1] = { size, ms: runs[2], tokens, runs }
  }
  emit(size === ONE_MB)
  if (size < ONE_MB && ms * 4 > Number(stepBudget)) {
    // the doubling series would blow its budget: try the full 1 MB at once; the parent kills
    // this process when its time limit is up, and keeps the points reported so far
    const t1 = performance.now()
    const tokens1 = count(full)
    points.push({ size: ONE_MB, ms: performance.now() - t1, tokens: tokens1 })
    emit(true)
    break
  }
}
