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
report({ importAndCountMs: t1 - t0, sinceStartMs: t1, tokens })
