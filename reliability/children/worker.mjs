// A worker_thread of the concurrency case: 200 scratchpad calls on a shared session (100 refs.add,
// 100 append_notes) interleaved with countTokens checked against the main thread's counts.
import { createRequire } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parentPort, workerData } from 'node:worker_threads'

const native = createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '../../index.js'))
const { w, session, texts, expected, n } = workerData
let tokenMismatches = 0
const versions = []
for (let i = 0; i < n; i++) {
  const action = i % 2 ? { action: 'refs.add', ref: `w${w}-ref-${i}` } : { action: 'append_notes', content: `w${w} line ${i / 2}` }
  const r = native.applyScratchpadAction(session, action)
  if (!r.ok) throw new Error(`worker ${w} call ${i}: ${r.message}`)
  versions.push(r.usage.version)
  for (let t = 0; t < texts.length; t++) {
    if (native.countTokens(texts[t]) !== expected[t][0]) tokenMismatches++
    if (native.countTokens(texts[t], 'cl100k_base') !== expected[t][1]) tokenMismatches++
  }
}
parentPort.postMessage({ w, versions, tokenMismatches })
