// Faults: a read-only state directory and a full disk (real mounts when `mount` works here,
// otherwise an injected failure: the target file name taken by a directory), a corrupt
// _latest.json, a truncated checkpoint and a torn state file.
import { mkdirSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { assert, attempt, canMount, cpFiles, cpInput, expectCode, mount, native, sessionDir, snapshot, tempDir, tempFiles, umount } from '../lib.mjs'

const KEY = 'agent:main:faults:direct:7'
const mountable = canMount()

/** Writes cp_001 (and state) in `stateDir`; returns what must survive a failed write. */
function seed(stateDir) {
  native.writeCheckpointSync(cpInput(stateDir, KEY))
  native.recordDecisionSync({ stateDir, sessionKey: KEY, what: 'keep this decision' })
  native.offloadObservationSync({ stateDir, sessionKey: KEY, content: 'o'.repeat(6000), name: 'kept' })
  const dir = sessionDir(stateDir, 'checkpoints', KEY)
  return { dir, yaml: readFileSync(join(dir, 'cp_001.yaml'), 'utf8'), pointer: readFileSync(join(dir, '_latest.json'), 'utf8') }
}

function intact(stateDir, before, what) {
  assert(readFileSync(join(before.dir, 'cp_001.yaml'), 'utf8') === before.yaml, `${what}: cp_001.yaml changed`)
  assert(readFileSync(join(before.dir, '_latest.json'), 'utf8') === before.pointer, `${what}: _latest.json changed`)
  const cp = native.readCheckpoint({ stateDir, sessionKey: KEY })
  assert(cp?.meta.checkpointId === 'cp_001', `${what}: previous checkpoint not readable`)
  assert(native.renderCheckpoint({ stateDir, sessionKey: KEY })?.includes('<checkpoint-data>'), `${what}: not renderable`)
  const s = native.readContextStateSync({ stateDir, sessionKey: KEY })
  assert(s.decisions.some((d) => d.what === 'keep this decision'), `${what}: recorded decision lost`)
  const r = native.readObservationSync({ stateDir, sessionKey: KEY, name: 'kept', mode: 'full' })
  assert(r.content === 'o'.repeat(6000), `${what}: observation lost`)
}

async function everyWrite(stateDir, codes, what) {
  const seen = new Set()
  const n = () => 5000 + Math.floor(Math.random() * 100000)
  const big = 'b'.repeat(200000)
  const calls = {
    writeCheckpointSync: () => native.writeCheckpointSync(cpInput(stateDir, KEY, { tokenUsage: { inputTokens: n(), contextWindow: 200000 }, learnings: [big.slice(0, 900)], openItems: [big.slice(0, 20000)] })),
    writeCheckpoint: () => native.writeCheckpoint(cpInput(stateDir, KEY, { tokenUsage: { inputTokens: n(), contextWindow: 200000 }, openItems: [big.slice(0, 20000)] })),
    recordDecisionSync: () => native.recordDecisionSync({ stateDir, sessionKey: KEY, what: `new ${big.slice(0, 990)}` }),
    recordToolResult: () => native.recordToolResult({ stateDir, sessionKey: KEY, toolName: 'edit', params: { paths: Array.from({ length: 100 }, (_, i) => `/${i}/${big.slice(0, 500)}`) } }),
    offloadObservationSync: () => native.offloadObservationSync({ stateDir, sessionKey: KEY, content: big }),
    writeObservation: () => native.writeObservation({ stateDir, sessionKey: KEY, name: 'other', content: big }),
  }
  for (const [name, f] of Object.entries(calls)) {
    const r = await attempt(f)
    seen.add(`${name}:${expectCode(r, codes, `${what} ${name}`)}`)
  }
  return [...seen].join(', ')
}

function withMount(tag, opts, body) {
  return async () => {
    const stateDir = tempDir(tag)
    const parent = join(stateDir, 'mnt')
    mkdirSync(parent)
    try {
      return await body(stateDir, parent)
    } finally {
      umount(parent)
    }
  }
}

export default function faultCases() {
  const cases = []
  if (mountable) {
    cases.push({
      group: 'faults',
      name: 'read-only state directory (tmpfs remounted ro): every write fails PermissionDenied, previous checkpoint intact',
      run: withMount('ro', {}, async (_, mnt) => {
        mount(['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt])
        const before = seed(mnt)
        mount(['-o', 'remount,ro', mnt])
        const seen = await everyWrite(mnt, ['PermissionDenied'], 'read-only')
        intact(mnt, before, 'read-only')
        const snap = snapshot(mnt)
        assert(![...snap.keys()].some((k) => k.includes('.tmp-')), 'temp file on a read-only mount')
        return `codes: ${seen}`
      }),
    })
    cases.push({
      group: 'faults',
      name: 'full disk (64 KiB tmpfs filled): writes fail NoSpace, previous checkpoint intact, no temp file, writes resume once freed',
      run: withMount('full', {}, async (_, mnt) => {
        mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt])
        const before = seed(mnt)
        // fill what is left
        const filler = join(mnt, 'filler')
        let size = 0
        try {
          for (;;) {
            writeFileSync(filler, Buffer.alloc(1024), { flag: 'a' })
            size += 1024
          }
        } catch (e) {
          assert(e.code === 'ENOSPC', `filling: ${e.code}`)
        }
        const seen = await everyWrite(mnt, ['NoSpace'], 'full disk')
        intact(mnt, before, 'full disk')
        assert(tempFiles(mnt).length === 0, `temp files left on the full disk: ${tempFiles(mnt)}`)
        rmSync(filler)
        const r = native.writeCheckpointSync(cpInput(mnt, KEY, { tokenUsage: { inputTokens: 50000, contextWindow: 200000 } }))
        assert(r.written && r.checkpointId === 'cp_002', `after freeing space: ${JSON.stringify(r)}`)
        return `filled ${size} bytes; codes: ${seen}`
      }),
    })
  } else {
    cases.push({
      group: 'faults',
      name: 'injected write failure (mount not permitted: the target name is a directory): stable code, previous checkpoint intact',
      async run() {
        const stateDir = tempDir('inject')
        const before = seed(stateDir)
        mkdirSync(join(before.dir, 'cp_002.yaml'))
        const r = await attempt(() => native.writeCheckpointSync(cpInput(stateDir, KEY, { tokenUsage: { inputTokens: 90000, contextWindow: 200000 } })))
        const code = expectCode(r, undefined, 'injected')
        rmSync(join(before.dir, 'cp_002.yaml'), { recursive: true })
        intact(stateDir, before, 'injected')
        return `code ${code}`
      },
    })
  }
  cases.push(
    {
      group: 'faults',
      name: 'corrupt _latest.json (garbage, torn, wrong id, path escape, missing): reads fall back to the newest valid checkpoint',
      async run() {
        const stateDir = tempDir('latest')
        for (let i = 1; i <= 3; i++) native.writeCheckpointSync(cpInput(stateDir, KEY, { trigger: 'compaction', compactionCount: i }))
        const dir = sessionDir(stateDir, 'checkpoints', KEY)
        const variants = ['\u0000\u00ff garbage', '{"checkpoint_id":"cp_0', '{"checkpoint_id":"cp_009"}', '{"checkpoint_id":"../../../etc/passwd"}', '{"checkpoint_id":"cp_001"}', '[]', '', null]
        for (const v of variants) {
          if (v === null) rmSync(join(dir, '_latest.json'))
          else writeFileSync(join(dir, '_latest.json'), v)
          const cp = native.readCheckpoint({ stateDir, sessionKey: KEY })
          assert(cp?.meta.checkpointId === 'cp_003', `pointer ${JSON.stringify(v)}: read ${cp?.meta.checkpointId}`)
          assert(native.renderCheckpoint({ stateDir, sessionKey: KEY }), `pointer ${JSON.stringify(v)}: no restore text`)
        }
        const w = native.writeCheckpointSync(cpInput(stateDir, KEY, { trigger: 'compaction', compactionCount: 9 }))
        assert(w.checkpointId === 'cp_004', `next write after a broken pointer: ${w.checkpointId}`)
        assert(JSON.parse(readFileSync(join(dir, '_latest.json'), 'utf8')).checkpoint_id === 'cp_004', 'pointer not repaired')
        assert(native.readCheckpoint({ stateDir, sessionKey: KEY }).meta.previousCheckpoint === 'cp_003', 'chain broken')
        return `${variants.length} pointer variants fell back to cp_003; the next write repaired it`
      },
    },
    {
      group: 'faults',
      name: 'truncated checkpoint (newest cut in half, then emptied): reads fall back to the one before; the next write continues the numbering',
      async run() {
        const stateDir = tempDir('trunc')
        for (let i = 1; i <= 3; i++) native.writeCheckpointSync(cpInput(stateDir, KEY, { trigger: 'compaction', compactionCount: i, learnings: ['x'.repeat(400)] }))
        const dir = sessionDir(stateDir, 'checkpoints', KEY)
        const f = join(dir, 'cp_003.yaml')
        const len = readFileSync(f).length
        for (const cut of [Math.floor(len / 2), 10, 0]) {
          truncateSync(f, cut)
          const cp = native.readCheckpoint({ stateDir, sessionKey: KEY })
          assert(cp?.meta.checkpointId === 'cp_002', `cut to ${cut}: read ${cp?.meta.checkpointId}`)
          assert(native.renderCheckpoint({ stateDir, sessionKey: KEY })?.includes('cp_002') !== false, 'render')
        }
        const w = native.writeCheckpointSync(cpInput(stateDir, KEY, { trigger: 'compaction', compactionCount: 9 }))
        assert(w.checkpointId === 'cp_004', `next id ${w.checkpointId}`)
        const cp = native.readCheckpoint({ stateDir, sessionKey: KEY })
        assert(cp.meta.previousCheckpoint === 'cp_002', `new checkpoint chains to ${cp.meta.previousCheckpoint}, not the last valid cp_002`)
        return 'fell back to cp_002 at 3 cut lengths; cp_004 chains to cp_002'
      },
    },
    {
      group: 'faults',
      name: 'torn state file (each of the 5 files cut mid-JSON): a read leaves it in place and reads on; the next write to it moves it aside to <name>.corrupt-<ms> with its bytes',
      async run() {
        const stateDir = tempDir('torn')
        const t = { stateDir, sessionKey: KEY }
        native.recordDecisionSync({ ...t, what: 'd' })
        native.recordMessagesSync({ ...t, messages: [{ role: 'user', content: 'Please add a retry to the upload client' }] })
        native.recordToolResultSync({ ...t, toolName: 'read', params: { path: '/a' } })
        native.recordOpenItemSync({ ...t, text: 'o' })
        native.recordLearningSync({ ...t, text: 'l' })
        const dir = sessionDir(stateDir, 'state', KEY)
        const writeTo = {
          'decisions.json': () => native.recordDecisionSync({ ...t, what: 'd2' }),
          // a request with content of its own: a one-word reply records nothing (issue 11), so writes nothing
          'thread.json': () => native.recordMessagesSync({ ...t, messages: [{ role: 'user', content: 'Now make the retry count configurable' }] }),
          'resources.json': () => native.recordToolResultSync({ ...t, toolName: 'read', params: { path: '/b' } }),
          'open_items.json': () => native.recordOpenItemSync({ ...t, text: 'o2' }),
          'learnings.json': () => native.recordLearningSync({ ...t, text: 'l2' }),
        }
        for (const [name, write] of Object.entries(writeTo)) {
          const bytes = readFileSync(join(dir, name))
          const torn = bytes.subarray(0, Math.floor(bytes.length / 2))
          writeFileSync(join(dir, name), torn)
          const s = native.readContextStateSync(t)
          assert(s, 'no state')
          // a read never writes (issue 12): the torn file is still there, as it was
          assert(Buffer.compare(readFileSync(join(dir, name)), torn) === 0, `${name}: a read changed the torn file`)
          assert(readdirSync(dir).filter((n) => n.startsWith(`${name}.corrupt-`)).length === 0, `${name}: a read moved it aside`)
          write()
          const aside = readdirSync(dir).filter((n) => n.startsWith(`${name}.corrupt-`))
          assert(aside.length === 1, `${name}: ${aside.length} moved-aside copies`)
          assert(Buffer.compare(readFileSync(join(dir, aside[0])), torn) === 0, `${name}: moved-aside bytes differ`)
        }
        // writes go on, the torn copies stay for inspection
        native.recordDecisionSync({ ...t, what: 'after the tear' })
        const s = native.readContextStateSync(t)
        assert(s.decisions.some((d) => d.what === 'after the tear'), 'write after tear lost')
        assert(readdirSync(dir).filter((n) => n.includes('.corrupt-')).length === 5, 'a moved-aside copy vanished')
        return '5 files left in place by reads, moved aside byte-exact by the next write; later writes fine'
      },
    },
  )
  return cases
}
