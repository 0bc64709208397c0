// Crash-test writer: checkpoints, state records and observations in an endless loop, until the
// parent SIGKILLs it. Prints `ready` once the addon is loaded and the loop is about to start.
// argv: stateDir sessionKey seed
import { createRequire } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const native = createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '../../index.js'))
const [stateDir, sessionKey, seedArg] = process.argv.slice(2)
let seed = Number(seedArg) >>> 0 || 1
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32)
const target = { stateDir, sessionKey }
const big = (n, tag) => `${tag} `.repeat(Math.ceil(n / (tag.length + 1))).slice(0, n)

let i = 0
let inflight = 0
process.stdout.write('ready\n')
for (;;) {
  i++
  const r = rand()
  try {
    if (r < 0.25) {
      native.writeCheckpointSync({
        ...target,
        trigger: 'auto-80pct',
        tokenUsage: { inputTokens: 1000 + (i % 2) * 1000 + Math.floor(rand() * 50), contextWindow: 200000 },
        working: { topic: `crash loop ${seedArg} ${i}`, status: 'in_progress', nextAction: big(200 + Math.floor(rand() * 2000), 'next') },
        decisions: [{ what: `decision ${i}` }],
        learnings: [big(500, `learning${i}`)],
      })
    } else if (r < 0.35) {
      native.recordDecisionSync({ ...target, what: `decided ${i}` })
    } else if (r < 0.45) {
      native.recordToolResultSync({ ...target, toolName: 'read', params: { path: `/src/f${i % 150}.ts` } })
    } else if (r < 0.5) {
      native.recordOpenItemSync({ ...target, text: `todo ${i % 70}` })
    } else if (r < 0.55) {
      native.recordLearningSync({ ...target, text: `learned ${i % 70}` })
    } else if (r < 0.58) {
      native.recordMessagesSync({ ...target, messages: [{ role: 'user', content: `question ${i}` }, { role: 'assistant', content: [{ type: 'text', text: big(600, 'answer') }] }] })
    } else if (r < 0.75) {
      native.offloadObservationSync({ ...target, content: big(5000 + Math.floor(rand() * 40000), `obs${i}`), toolName: 'bash', quotaBytes: 300000 })
    } else if (r < 0.82) {
      native.writeObservationSync({ ...target, name: `note_${i % 5}`, content: big(1000 + Math.floor(rand() * 20000), `named${i}`), quotaBytes: 300000 })
    } else if (r < 0.86) {
      try {
        native.deleteObservationSync({ ...target, name: `note_${i % 5}` })
      } catch (e) {
        if (e.code !== 'NotFound') throw e
      }
    } else if (r < 0.89) {
      native.gcObservationsSync({ ...target, quotaBytes: 200000 })
    } else if (inflight < 4) {
      // async forms: the kill may land while a libuv thread is mid-write
      inflight++
      const p = rand() < 0.5
        ? native.offloadObservation({ ...target, content: big(8000, `async${i}`), toolName: 'grep', quotaBytes: 300000 })
        : native.recordDecision({ ...target, what: `async decision ${i}` })
      p.then(() => inflight--, (e) => {
        process.stderr.write(`async error ${e.code}: ${e.message}\n`)
        process.exit(3)
      })
      await new Promise((res) => setImmediate(res))
    }
  } catch (e) {
    process.stderr.write(`error ${e.code}: ${e.message}\n`)
    process.exit(2)
  }
}
