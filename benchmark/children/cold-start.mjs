// Child: import + first count, in a process that has loaded nothing else.
// argv: <tokenizer>. `performance.now()` counts from process start, so `sinceStartMs` also
// includes Node's own boot; `importAndCountMs` is what the host pays for the tokenizer.

import { performance } from 'node:perf_hooks'
import { report } from '../lib/child.mjs'

const name = process.argv[2]
const t0 = performance.now()
const { TOKENIZERS } = await import('../lib/tokenizers.mjs')
const count = await TOKENIZERS[name].load()
const tokens = count('Hello, world! How many tokens is this sentence?')
const t1 = performance.now()
// then the first count of real text (4 KB of a transcript) and the same count again: what the
// host pays on its first real message, beyond the one-sentence figure
const { transcriptText } = await import('../lib/fixtures.mjs')
const sample = transcriptText().slice(0, 4096)
const t2 = performance.now()
count(sample)
const t3 = performance.now()
count(sample)
const t4 = performance.now()
report({ importAndCountMs: t1 - t0, sinceStartMs: t1, tokens, firstRealMs: t3 - t2, againRealMs: t4 - t3 })
