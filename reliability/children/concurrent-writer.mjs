// Concurrency writer: `history` (3 writeHistory of one shared conversation, growing), `checkpoints` (100 writeCheckpoint, each a compaction with a unique count so
// none is a duplicate) or `state` (100 state records of which everything stays below the caps even at the peak (6 open items each, 48 < 50)).
// Prints one JSON line with what it wrote. argv: mode stateDir sessionKey index
import { createRequire } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const native = createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '../../index.js'))
const [mode, stateDir, sessionKey, indexArg] = process.argv.slice(2)
const p = Number(indexArg)
const t = { stateDir, sessionKey }

// Start together: wait for the parent's go (a line on stdin).
await new Promise((res) => process.stdin.once('data', res))

if (mode === 'history') {
  // Every writer compacts the same conversation at the same three points (a plugin in a gateway and a --local turn
  // compacting one session, a retried hook): the history must hold each message once.
  const msgs = Array.from({ length: 90 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} of the shared conversation`, timestamp: 1_800_000_000_000 + i }))
  const names = []
  for (const upTo of [30, 60, 90]) {
    const r = p % 2 ? native.writeHistorySync({ ...t, messages: msgs.slice(0, upTo), durable: false }) : await native.writeHistory({ ...t, messages: msgs.slice(0, upTo), durable: false })
    if (r.written) names.push(r.name)
  }
  console.log(JSON.stringify({ names }))
} else if (mode === 'checkpoints') {
  const ids = []
  for (let i = 0; i < 100; i++) {
    const input = {
      ...t,
      trigger: 'compaction',
      compactionCount: p * 1000 + i + 1,
      tokenUsage: { inputTokens: 1000, contextWindow: 200000 },
      working: { topic: `writer ${p} #${i}`, status: 'in_progress' },
    }
    const r = i % 2 ? native.writeCheckpointSync(input) : await native.writeCheckpoint(input)
    if (!r.written) throw new Error(`write ${p}/${i} skipped: ${r.reason}`)
    ids.push(r.checkpointId)
  }
  console.log(JSON.stringify({ ids }))
} else {
  const calls = []
  for (let j = 0; j < 6; j++) calls.push(() => native.recordDecisionSync({ ...t, what: `decision ${p}.${j}` }))
  for (let j = 0; j < 6; j++) calls.push(() => native.recordOpenItem({ ...t, text: `item ${p}.${j}` }))
  for (let j = 0; j < 3; j++) calls.push(() => native.resolveOpenItemSync({ ...t, text: `item ${p}.${j}` }))
  for (let j = 0; j < 6; j++) calls.push(() => native.recordLearningSync({ ...t, text: `learning ${p}.${j}` }))
  for (let j = 0; j < 12; j++) calls.push(() => native.recordToolResultSync({ ...t, toolName: `reader${p}x${j}`, params: { path: `/read/${p}/${j}` }, access: 'read' }))
  for (let j = 0; j < 67; j++) calls.push(() => native.recordToolResult({ ...t, toolName: 'edit', params: { path: `/mod/${p}/${j % 12}` } }))
  // resolves must follow their records: keep the order of each group, interleave the groups
  for (const c of calls) await c()
  console.log(JSON.stringify({ calls: calls.length }))
}
