// Retention / clock child (issue 23): one process instance doing one job, so state files carry its own instance id.
// argv: mode stateDir sessionKey [arg]; the clock offset comes from OPENCLAW_CONTEXT_CLOCK_OFFSET_MS in the env.
//   persist <n> <tag>   waits for "go" on stdin, then persists n spaces `openclaw:test:<tag>:<i>` as the plugin does
//   checkpoint          writes one checkpoint (a compaction, so it is never a dedup)
//   record <text>       records a decision and an open item <text>
// Prints one JSON line with what it did.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const native = createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '../../index.js'))
const [mode, stateDir, sessionKey, arg, tag] = process.argv.slice(2)
const t = { stateDir, sessionKey }

if (mode === 'persist') {
  await new Promise((res) => process.stdin.once('data', res))
  let done = 0
  for (let i = 0; i < Number(arg); i++) {
    const entries = [{ customType: `openclaw:test:${tag}:${i}`, data: `value ${i}` }]
    if (i % 2) await native.persistScratchpad({ ...t, entries })
    else native.persistScratchpadSync({ ...t, entries })
    done++
  }
  console.log(JSON.stringify({ done }))
} else if (mode === 'checkpoint') {
  const r = await native.writeCheckpoint({
    ...t,
    trigger: 'compaction',
    compactionCount: Number(arg),
    tokenUsage: { inputTokens: 1000 * Number(arg), contextWindow: 200000 },
    working: { topic: 'clock test', status: 'in_progress' },
  })
  console.log(JSON.stringify(r))
} else if (mode === 'record') {
  const d = native.recordDecisionSync({ ...t, what: arg })
  native.recordOpenItemSync({ ...t, text: arg })
  console.log(JSON.stringify(d))
} else {
  throw new Error(`unknown mode ${mode}`)
}
