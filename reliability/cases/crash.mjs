// Crashes: a child writes checkpoints, state records and observations in a loop and is SIGKILLed
// at a random moment. After each kill: every cp_*.yaml parses (npm yaml and the native reader),
// _latest.json names a valid checkpoint, every observation listed is readable, no state file was
// torn, and after the next write of each kind no temp file survives.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { YAML, assert, cpFiles, cpInput, native, root, sessionDir, snapshot, tempDir, tempFiles } from '../lib.mjs'

const KEY = 'agent:main:crash:direct:1'

function runChild(stateDir, seed, killAfterMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'reliability/children/crash-writer.mjs'), stateDir, KEY, String(seed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    let timer
    child.stderr.on('data', (d) => (stderr += d))
    child.stdout.once('data', () => {
      timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL') resolve()
      else reject(new Error(`writer exited on its own (code ${code}): ${stderr.split("\n").filter((l) => /Error|code|error/.test(l)).join(" ").slice(0, 600)}`))
    })
  })
}

function verify(stateDir, kill) {
  const where = `after kill ${kill}`
  const cpDir = sessionDir(stateDir, 'checkpoints', KEY)
  const files = cpFiles(cpDir)
  assert(files.length > 0, `${where}: no checkpoint left`)
  for (const f of files) {
    const text = readFileSync(join(cpDir, f), 'utf8')
    const doc = YAML.parse(text)
    assert(doc?.schema === 'openclaw/checkpoint', `${where}: ${f} does not parse as a checkpoint (npm yaml)`)
    const cp = native.readCheckpoint({ yaml: text })
    assert(cp && `${cp.meta.checkpointId}.yaml` === f, `${where}: ${f} does not read back natively`)
  }
  const pointer = JSON.parse(readFileSync(join(cpDir, '_latest.json'), 'utf8'))
  assert(files.includes(`${pointer.checkpoint_id}.yaml`), `${where}: _latest.json names ${pointer.checkpoint_id}, not on disk (${files})`)
  const latest = native.readCheckpoint({ stateDir, sessionKey: KEY })
  assert(latest, `${where}: readCheckpoint found nothing`)
  const n = (id) => Number(id.slice(3))
  assert(n(latest.meta.checkpointId) >= n(pointer.checkpoint_id), `${where}: read an older checkpoint than the pointer`)
  assert(files.length <= 6, `${where}: retention left ${files.length} checkpoints`)

  for (const e of native.listObservationsSync({ stateDir, sessionKey: KEY, includeExpired: true })) {
    const r = native.readObservationSync({ stateDir, sessionKey: KEY, id: e.id, mode: 'head', n: 100 })
    assert(r.totalBytes === e.sizeBytes, `${where}: observation ${e.name} reads ${r.totalBytes} bytes, listed ${e.sizeBytes}`)
    const t = native.readObservationSync({ stateDir, sessionKey: KEY, id: e.id, mode: 'tail', n: 100 })
    assert(t.end === e.chars, `${where}: observation ${e.name} tail ends at ${t.end}, not ${e.chars}`)
  }
  native.readContextStateSync({ stateDir, sessionKey: KEY })
  const corrupt = [...snapshot(stateDir).keys()].filter((k) => k.includes('.corrupt-'))
  assert(corrupt.length === 0, `${where}: a state file was torn: ${corrupt}`)

  // The next write of each kind: no temp file of a crashed write survives it.
  native.writeCheckpointSync(cpInput(stateDir, KEY, { trigger: 'compaction', compactionCount: 1000 + kill }))
  native.recordDecisionSync({ stateDir, sessionKey: KEY, what: `after kill ${kill}` })
  native.offloadObservationSync({ stateDir, sessionKey: KEY, content: 'z'.repeat(6000), quotaBytes: 300000 })
  const temps = tempFiles(stateDir)
  assert(temps.length === 0, `${where}: temp files survived the next write: ${temps.join(', ')}`)
}

export default function crashCases({ heavy }) {
  const kills = Number(process.env.RELIABILITY_KILLS) || (heavy ? 2000 : 200)
  return [
    {
      group: 'crash',
      name: `SIGKILL at random moments x${kills}: checkpoints, pointer, observations, state, temp files`,
      async run() {
        const stateDir = tempDir('crash')
        native.writeCheckpointSync(cpInput(stateDir, KEY))
        let seed = 12345
        const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32)
        const parallel = 1
        for (let k = 0; k < kills; k += parallel) {
          // One writer at a time, so every kill is checked on its own.
          await Promise.all(Array.from({ length: Math.min(parallel, kills - k) }, (_, j) => runChild(stateDir, k + j + 1, Math.floor(rand() * 150))))
          verify(stateDir, k + 1)
        }
        const cps = cpFiles(sessionDir(stateDir, 'checkpoints', KEY))
        return `${kills} kills; ${cps.length} checkpoints kept, newest ${cps.at(-1)}`
      },
    },
  ]
}
