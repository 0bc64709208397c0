// Retention, scratchpad persistence across processes, big async inputs and clocks (issue 23): a gateway that runs
// for weeks. Short form in `npm test`; `--heavy` runs the sizes (500 abandoned sessions, 600 persists per
// process, 100 MB and 50,000 messages).
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { measureLoop, bigLog, manyMessages } from '../../benchmark/lib/loop.mjs'
import { assert, native, root, snapshot, tempDir } from '../lib.mjs'

const DAY = 86_400_000
const CLOCK = 'OPENCLAW_CONTEXT_CLOCK_OFFSET_MS'
const MiB = (b) => `${(b / (1 << 20)).toFixed(1)} MiB`

/** Bytes of every file under `dir`. */
function bytesUnder(dir) {
  let n = 0
  for (const v of snapshot(dir).values()) if (v.startsWith('file:')) n += Number(v.slice(5))
  return n
}

/** Runs `fn` with this process's package clock shifted by `ms`. */
async function withClock(ms, fn) {
  const before = process.env[CLOCK]
  process.env[CLOCK] = String(ms)
  try {
    return await fn()
  } finally {
    if (before === undefined) delete process.env[CLOCK]
    else process.env[CLOCK] = before
  }
}

function child(args, { offsetMs = 0, go = false } = {}) {
  const p = spawn(process.execPath, [join(root, 'reliability/children/retention-child.mjs'), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, [CLOCK]: String(offsetMs) },
  })
  let out = ''
  let err = ''
  p.stdout.on('data', (d) => (out += d))
  p.stderr.on('data', (d) => (err += d))
  const done = new Promise((resolve, reject) =>
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`child ${args[0]} exit ${code}: ${err.slice(0, 600)}`)))),
  )
  if (!go) p.stdin.end()
  return { p, done }
}

/** A session as the plugin leaves it: 3 x 300 KB tool results, 2-3 checkpoints, state, the persisted scratchpad. */
async function abandonedSession(stateDir, sessionKey, i) {
  const log = bigLog(300_000)
  for (let k = 0; k < 3; k++) {
    await native.offloadObservation({ stateDir, sessionKey, content: `${k}${log}`, toolName: 'exec', durable: false, protect: ['context-native-scratchpad'] })
  }
  native.recordDecisionSync({ stateDir, sessionKey, what: `use plan ${i}` })
  for (let c = 1; c <= 2 + (i % 2); c++) {
    await native.writeCheckpoint({ stateDir, sessionKey, trigger: 'compaction', compactionCount: c, tokenUsage: { inputTokens: 10_000 * c, contextWindow: 200_000 }, messages: manyMessages(30) })
  }
  await native.persistScratchpad({ stateDir, sessionKey, entries: [{ customType: 'openclaw:scratchpad:notes', data: `notes of ${i}` }] })
}

export default function retentionCases({ heavy }) {
  const sessions = heavy ? 500 : 30
  return [
    {
      group: 'retention',
      name: `${sessions} abandoned sessions + 1 active: gcStateDir 31 days later reclaims the abandoned ones, keeps the active one's checkpoint and scratchpad`,
      async run() {
        const stateDir = tempDir('ret-reclaim')
        for (let i = 0; i < sessions; i++) await abandonedSession(stateDir, `agent:main:abandoned:${i}`, i)
        const active = 'agent:main:active'
        // Active 29 days after the others (its three offloads expired long since).
        await withClock(29 * DAY, () => abandonedSession(stateDir, active, 1))
        const before = bytesUnder(stateDir)
        const t0 = Date.now()
        let removed = 0
        let calls = 0
        let r
        await withClock(31 * DAY, async () => {
          do {
            r = await native.gcStateDir({ stateDir, maxDirs: 200 })
            removed += r.removedSessions.length
            calls++
          } while (r.more && calls < 50)
        })
        const ms = Date.now() - t0
        const after = bytesUnder(stateDir)
        assert(removed === sessions, `removed ${removed} of ${sessions} abandoned sessions`)
        assert(r.errors.length === 0, `errors: ${r.errors.join('; ')}`)
        assert(native.renderCheckpoint({ stateDir, sessionKey: active }) !== undefined, 'the active session lost its checkpoint')
        const pad = await native.readPersistedScratchpad({ stateDir, sessionKey: active })
        assert(pad?.['openclaw:scratchpad:notes'] === 'notes of 1', 'the active session lost its scratchpad')
        const left = await native.listObservations({ stateDir, sessionKey: active, includeExpired: true })
        assert(left.length === 1 && left[0].name === 'context-native-scratchpad', `active store kept ${left.map((e) => e.name)}`)
        assert(native.renderCheckpoint({ stateDir, sessionKey: 'agent:main:abandoned:0' }) === undefined, 'an abandoned checkpoint still renders')
        assert(after < 200_000, `${after} bytes left`)
        return `${MiB(before)} -> ${MiB(after)} in ${ms} ms (${calls} gcStateDir calls of <= 200 dirs)`
      },
    },
    {
      group: 'retention',
      name: 'deleteSession by key: tool results no longer read, the checkpoint no longer renders, nothing of it is left; other sessions untouched',
      async run() {
        const stateDir = tempDir('ret-delete')
        await abandonedSession(stateDir, 'agent:main:gone', 0)
        await abandonedSession(stateDir, 'agent:main:other', 1)
        const ids = (await native.listObservations({ stateDir, sessionKey: 'agent:main:gone' })).map((e) => e.id)
        const otherBefore = bytesUnder(join(stateDir, 'context/observations', native.sessionDirName('agent:main:other')))
        const r = await native.deleteSession({ stateDir, sessionKey: 'agent:main:gone' })
        assert(r.existed && r.removedBytes > 900_000, JSON.stringify(r))
        for (const id of ids) {
          const read = await native.readObservation({ stateDir, sessionKey: 'agent:main:gone', id }).then(() => 'read', (e) => e.code)
          assert(read === 'NotFound', `entry ${id} after delete: ${read}`)
        }
        assert(native.renderCheckpoint({ stateDir, sessionKey: 'agent:main:gone' }) === undefined, 'its checkpoint still renders')
        const dir = native.sessionDirName('agent:main:gone')
        const leftover = [...snapshot(stateDir).keys()].filter((p) => p.includes(dir))
        assert(leftover.length === 0, `left: ${leftover.join(', ')}`)
        const otherAfter = bytesUnder(join(stateDir, 'context/observations', native.sessionDirName('agent:main:other')))
        assert(otherAfter === otherBefore, 'the other session changed')
        return `${r.removedFiles} files, ${MiB(r.removedBytes)} removed`
      },
    },
    {
      group: 'retention',
      name: `two processes x ${heavy ? 600 : 150} persistScratchpad on one session, different spaces: no update lost`,
      async run() {
        const stateDir = tempDir('ret-persist')
        const key = 'agent:main:two-gateways'
        const n = heavy ? 600 : 150
        const kids = ['a', 'b'].map((tag) => child(['persist', stateDir, key, String(n), tag], { go: true }))
        setTimeout(() => kids.forEach((k) => k.p.stdin.end('go\n')), 300)
        await Promise.all(kids.map((k) => k.done))
        const spaces = await native.readPersistedScratchpad({ stateDir, sessionKey: key })
        const lost = []
        for (const tag of ['a', 'b']) for (let i = 0; i < n; i++) if (spaces[`openclaw:test:${tag}:${i}`] !== `value ${i}`) lost.push(`${tag}:${i}`)
        assert(lost.length === 0, `${lost.length} of ${2 * n} updates lost, e.g. ${lost.slice(0, 5)}`)
        return `${2 * n} updates, 0 lost`
      },
    },
    {
      group: 'retention',
      name: `big async inputs (${heavy ? '100 MB string, 50,000 messages' : '32 MB string, 20,000 messages'}): the calls complete and the event loop keeps turning`,
      async run() {
        const stateDir = tempDir('ret-loop')
        const sessionKey = 'agent:main:big'
        const text = bigLog(heavy ? 100_000_000 : 32_000_000)
        const messages = manyMessages(heavy ? 50_000 : 20_000)
        const runs = {
          offload: await measureLoop(() => native.offloadObservation({ stateDir, sessionKey, content: text, toolName: 'exec', durable: false })),
          writeCheckpoint: await measureLoop(() =>
            native.writeCheckpoint({ stateDir, sessionKey, trigger: 'compaction', tokenUsage: { inputTokens: 150_000, contextWindow: 200_000 }, messages }),
          ),
          recordMessages: await measureLoop(() => native.recordMessages({ stateDir, sessionKey, messages })),
        }
        const parts = []
        for (const [name, m] of Object.entries(runs)) {
          assert(!m.error, `${name} failed: ${m.error?.code} ${m.error?.message}`)
          assert(m.ticks >= 3, `${name}: the loop turned ${m.ticks} times in ${m.totalMs.toFixed(0)} ms`)
          parts.push(`${name} ${m.totalMs.toFixed(0)} ms, longest block ${m.maxGapMs.toFixed(1)} ms, ${m.ticks} ticks`)
        }
        const back = await native.readObservation({ stateDir, sessionKey, id: runs.offload.value.entry.id, mode: 'tail', n: 40 })
        assert(text.endsWith(back.content), 'the offloaded text does not end as it should')
        assert(runs.writeCheckpoint.value.written, 'the checkpoint was not written')
        return parts.join('; ')
      },
    },
    {
      group: 'retention',
      name: 'clock a year ahead, then fixed: an offload expires its TTL after now, not a year later; session activity from the future counts as now',
      async run() {
        const stateDir = tempDir('ret-clock-ttl')
        const sessionKey = 'agent:main:clock'
        await withClock(365 * DAY, () => native.offloadObservation({ stateDir, sessionKey, content: bigLog(10_000), toolName: 'exec', ttlSeconds: 3600, durable: false }))
        // The clock is fixed: within the hour the entry stays, and its activity is brought back to now.
        let r = await native.gcStateDir({ stateDir })
        assert(r.keptSessions === 1 && r.removedEntries === 0, JSON.stringify(r))
        const [e] = await native.listObservations({ stateDir, sessionKey, includeExpired: true })
        const hoursLeft = (Date.parse(e.expiresAt) - Date.now()) / 3_600_000
        assert(hoursLeft > 0.9 && hoursLeft <= 1.01, `expires in ${hoursLeft.toFixed(2)} h`)
        r = await withClock(2 * 3_600_000, () => native.gcStateDir({ stateDir }))
        assert(r.removedEntries === 1, `2 h later: ${JSON.stringify(r)}`)
        // 31 days later the session is idle (its activity was recorded a year ahead).
        r = await withClock(31 * DAY, () => native.gcStateDir({ stateDir }))
        assert(r.removedSessions.length === 1, `31 days later: ${JSON.stringify(r)}`)
        return 'TTL rebased to now + 1 h; idle after 31 days'
      },
    },
    {
      group: 'retention',
      name: 'checkpoint written a day ahead, clock fixed: the next checkpoint (another process) keeps the decisions and open items recorded after',
      async run() {
        const stateDir = tempDir('ret-clock-cp')
        const key = 'agent:main:clock-cp'
        const first = await child(['checkpoint', stateDir, key, '1'], { offsetMs: DAY }).done
        assert(first.written, 'the first checkpoint was not written')
        await child(['record', stateDir, key, 'after the clock was fixed'], { offsetMs: 0 }).done
        const second = await child(['checkpoint', stateDir, key, '2'], { offsetMs: 0 }).done
        assert(second.written && second.checkpointId === 'cp_002', JSON.stringify(second))
        const cp = native.readCheckpoint({ stateDir, sessionKey: key })
        const decisions = cp.decisions.map((d) => d.what)
        assert(decisions.includes('after the clock was fixed'), `decisions: ${JSON.stringify(decisions)}`)
        assert(cp.openItems.includes('after the clock was fixed'), `open items: ${JSON.stringify(cp.openItems)}`)
        return 'decision and open item kept'
      },
    },
  ]
}
