// Hostile-files child (issue 12). `fifo <stateDir> <key>`: reads and writes a session whose
// `_latest.json`, `decisions.json` and `catalog.json` are FIFOs; prints one JSON line of what each
// call gave (the parent bounds this process with a timeout: a hang is the failure).
// `race <role> <stateDir> <key> <ms>`: one participant of the store-deletion race (writer, reader,
// deleter); loops for <ms> and prints one JSON line of its counts by outcome.
import { createRequire } from 'node:module'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const native = createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '../../index.js'))
const [mode, ...args] = process.argv.slice(2)

const outcome = (f) => {
  try {
    const v = f()
    return { ok: true, value: v }
  } catch (e) {
    return { ok: false, code: e.code, message: String(e.message).slice(0, 200) }
  }
}

if (mode === 'fifo') {
  const [stateDir, sessionKey] = args
  const t = { stateDir, sessionKey }
  const out = {}
  out.readCheckpoint = outcome(() => native.readCheckpoint(t)?.meta.checkpointId)
  out.readContextState = outcome(() => native.readContextStateSync(t).decisions.length)
  out.listObservations = outcome(() => native.listObservationsSync(t).length)
  out.recordDecision = outcome(() => native.recordDecisionSync({ ...t, what: 'after the fifo' }).id)
  out.writeCheckpoint = outcome(() => native.writeCheckpointSync({ ...t, trigger: 'auto-80pct', tokenUsage: { inputTokens: 77777, contextWindow: 200000 } }).checkpointId)
  console.log(JSON.stringify(out))
} else if (mode === 'race') {
  const [role, stateDir, sessionKey, msArg] = args
  const t = { stateDir, sessionKey }
  const counts = {}
  const bump = (k) => {
    counts[k] = (counts[k] ?? 0) + 1
  }
  const until = Date.now() + Number(msArg)
  let i = 0
  while (Date.now() < until) {
    let r
    if (role.startsWith('writer')) r = outcome(() => native.writeObservationSync({ ...t, name: `${role}_${i % 5}`, content: `${role} #${i} `.repeat(40), durable: false }))
    else if (role === 'reader') r = outcome(() => native.readObservationSync({ ...t, name: 'writer0_0', mode: 'full' }))
    else r = outcome(() => native.deleteObservationSessionSync(t))
    bump(r.ok ? 'ok' : `${r.code}: ${r.message.replace(/[0-9a-f]{16}/g, '<id>').slice(0, 120)}`)
    i++
  }
  console.log(JSON.stringify(counts))
}
