import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { randomUUID } from 'node:crypto'

const require = createRequire(import.meta.url)
const addon = require.resolve('../index.js')
const native = require(addon) as typeof import('../index')

const LIMITS = { notesMaxChars: 100_000, refsMax: 1_000, maxTokens: 100_000 }
const WORKERS = 4
const OPS = 40

// Each worker alternates appends, refs.add and set_plan on ONE shared session, while reading
// the block; it reports every change it made with the version the change produced.
const workerCode = `
const { parentPort, workerData } = require('node:worker_threads')
const n = require(workerData.addon)
const { session, w, ops, limits } = workerData
const done = []
let bad = 0
for (let i = 0; i < ops; i++) {
  const kind = i % 3
  const action =
    kind === 0 ? { action: 'append_notes', content: 'w' + w + '-' + i } :
    kind === 1 ? { action: 'refs.add', ref: 'src/w' + w + '/f' + i + '.ts' } :
                 { action: 'set_plan', content: 'worker ' + w + ' at step ' + i }
  const r = n.applyScratchpadAction(session, action, limits)
  if (!r.ok) throw new Error('rejected: ' + r.message)
  done.push({ version: r.usage.version, action })
  const block = n.getScratchpadContent(session)
  if (!block.startsWith('[Session Scratchpad - your persistent working memory]\\n') || !block.endsWith('\\n[End Scratchpad]')) bad++
}
parentPort.postMessage({ done, bad })
`

function run(session: string, w: number): Promise<{ done: Array<{ version: number; action: any }>; bad: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerCode, { eval: true, workerData: { addon, session, w, ops: OPS, limits: LIMITS } })
    worker.once('message', resolve)
    worker.once('error', reject)
    worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)))
  })
}

describe('scratchpad under worker_threads', () => {
  it('four workers hammering one session: no crash, and the final state is a serial order', async () => {
    const session = `workers-${randomUUID()}`
    const results = await Promise.all(Array.from({ length: WORKERS }, (_, w) => run(session, w)))
    expect(results.map((r) => r.bad)).toEqual([0, 0, 0, 0])

    // every change got its own version: 1..N with no gaps or repeats (no lost update)
    const all = results.flatMap((r) => r.done).sort((a, b) => a.version - b.version)
    expect(all.map((c) => c.version)).toEqual(Array.from({ length: WORKERS * OPS }, (_, i) => i + 1))
    // each worker's own changes happened in its program order
    for (const r of results) {
      const v = r.done.map((c) => c.version)
      expect(v).toEqual([...v].sort((a, b) => a - b))
    }

    // replaying the changes serially, in version order, gives exactly the shared final state
    const replay = `replay-${randomUUID()}`
    for (const c of all) expect(native.applyScratchpadAction(replay, c.action, LIMITS).ok).toBe(true)
    expect(native.getScratchpadContent(session)).toBe(native.getScratchpadContent(replay))
    expect(native.getScratchpadUsage(session)).toEqual(native.getScratchpadUsage(replay))
    const u = native.getScratchpadUsage(session)!
    expect(u.refs).toBe(results.flatMap((r) => r.done).filter((c) => c.action.action === 'refs.add').length)
  })
})
