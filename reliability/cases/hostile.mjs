// Hostile files (issue 12): the state dir's own files turned against the caller by a hostile local
// process or a damaged disk: links planted at temp names, content files and lock files; huge files,
// /dev/zero and FIFOs in place of the pointer, state files and catalog; a store deleted while in
// use; 100,000 paths in one tool call; reads on a read-only dir and deletes on a full disk.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, statfsSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { assert, attempt, canMount, cpInput, expectCode, mount, native, root, sessionDir, snapshot, tempDir, umount } from '../lib.mjs'

const KEY = 'agent:main:hostile:direct:12'
const CHILD = join(root, 'reliability/children/hostile.mjs')

const obs = (S, extra = {}) => ({ stateDir: S, sessionKey: KEY, ...extra })

function mkfifo(p) {
  const r = spawnSync('mkfifo', [p])
  assert(r.status === 0, `mkfifo ${p}: ${r.stderr}`)
}

/** Replaces `path` by a link or special file of kind `how`; `outside` is a file outside the state dir. */
function plant(path, how, outside) {
  rmSync(path, { force: true })
  if (how === 'symlink') symlinkSync(outside, path)
  else if (how === 'hardlink') linkSync(outside, path)
  else if (how === 'dangling') symlinkSync(`${outside}.created`, path)
  else if (how === 'zero') symlinkSync('/dev/zero', path)
  else if (how === 'fifo') mkfifo(path)
  else if (how === 'huge') {
    writeFileSync(path, '')
    truncateSync(path, 1 << 30) // sparse: 1 GiB that costs no disk
  } else throw new Error(how)
}

/** Runs `f` and returns [its outcome, ms]. */
async function timed(f) {
  const t0 = performance.now()
  const r = await attempt(f)
  return [r, performance.now() - t0]
}

function child(args, timeoutMs) {
  const r = spawnSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', timeout: timeoutMs })
  assert(!r.error && r.signal === null, `child ${args[0]} did not finish within ${timeoutMs} ms (a FIFO read hangs): ${r.error?.code ?? r.signal}`)
  assert(r.status === 0, `child ${args[0]} exit ${r.status}: ${r.stderr.slice(0, 400)}`)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

function raceChild(role, S, ms) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [CHILD, 'race', role, S, KEY, String(ms)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    c.stdout.on('data', (d) => (out += d))
    c.stderr.on('data', (d) => (err += d))
    const timer = setTimeout(() => c.kill('SIGKILL'), ms + 60000)
    c.on('exit', (code, sig) => {
      clearTimeout(timer)
      code === 0 ? resolve({ role, counts: JSON.parse(out.trim().split('\n').pop()) }) : reject(new Error(`${role} exit ${code ?? sig}: ${err.slice(0, 400)}`))
    })
  })
}

/** A file outside any state dir (`secret.txt` in a folder of its own, `O`) holding `text`: what a planted link points at. */
function outsideFile(text) {
  const O = tempDir('outside')
  const outside = join(O, 'secret.txt')
  writeFileSync(outside, text)
  return { O, outside }
}

export default function hostileCases(opts) {
  const cases = []
  cases.push({
    group: 'hostile',
    name: 'links planted at the catalog temp names (.tmp-catalog.json-<pid>-<n>, n 0..99: symlink, hard link, dangling symlink) x read, edit, delete, gc: 12 cases; writes sweep them',
    async run() {
      let held = 0
      for (const how of ['symlink', 'hardlink', 'dangling']) {
        for (const call of ['read', 'edit', 'delete', 'gc']) {
          const S = tempDir('tmpln')
          const O = tempDir('outside')
          const outside = join(O, 'victim.txt')
          writeFileSync(outside, 'outside content')
          native.writeObservationSync(obs(S, { name: 'a', content: 'alpha '.repeat(100), durable: false }))
          native.writeObservationSync(obs(S, { name: 'b', content: 'beta '.repeat(100), durable: false }))
          const dir = sessionDir(S, 'observations', KEY)
          for (let n = 0; n < 100; n++) plant(join(dir, `.tmp-catalog.json-${process.pid}-${n}`), how, outside)
          if (call === 'read') native.readObservationSync(obs(S, { name: 'a', mode: 'full' }))
          if (call === 'edit') native.editObservationSync(obs(S, { name: 'a', content: 'edited' }))
          if (call === 'delete') native.deleteObservationSync(obs(S, { name: 'b' }))
          if (call === 'gc') native.gcObservationsSync({ stateDir: S, sessionKey: KEY, quotaBytes: 700 })
          const what = `${how} x ${call}`
          assert(readFileSync(outside, 'utf8') === 'outside content', `${what}: the outside file was overwritten`)
          assert(!existsSync(`${outside}.created`), `${what}: a file was created at the dangling link's target`)
          const cat = lstatSync(join(dir, 'catalog.json'))
          assert(cat.isFile() && !cat.isSymbolicLink(), `${what}: catalog.json is not a regular file`)
          // writes sweep them under the lock; a read leaves them (random temp names never meet them)
          const left = readdirSync(dir).filter((n) => n.startsWith('.tmp-'))
          const expected = call === 'read' ? 100 : 0
          assert(left.length === expected, `${what}: ${left.length} temp names left, expected ${expected}`)
          assert(native.listObservationsSync(obs(S)).length >= 1, `${what}: store unreadable`)
          held++
        }
      }
      return `${held} of 12 held: the outside file untouched, catalog.json a regular file, planted names swept by the writes`
    },
  })
  cases.push({
    group: 'hostile',
    name: 'huge (1 GiB sparse), /dev/zero and outside links in place of _latest.json, the 5 state files and catalog.json: bounded, refused or skipped, never followed',
    async run() {
      const rows = []
      let slowest = 0
      for (const how of ['huge', 'zero', 'symlink', 'hardlink']) {
        const S = tempDir('big')
        const O = tempDir('outside')
        const outside = join(O, 'secret.json')
        writeFileSync(outside, JSON.stringify({ checkpoint_id: 'cp_001', decisions: [{ id: 'd1', what: 'SECRET' }], entries: [] }))
        native.writeCheckpointSync(cpInput(S, KEY))
        native.writeCheckpointSync(cpInput(S, KEY, { tokenUsage: { inputTokens: 50000, contextWindow: 200000 } }))
        native.writeObservationSync(obs(S, { name: 'a', content: 'alpha', durable: false }))
        const cpDir = sessionDir(S, 'checkpoints', KEY)
        plant(join(cpDir, '_latest.json'), how, outside)
        let [r, ms] = await timed(() => native.readCheckpoint(obs(S)))
        slowest = Math.max(slowest, ms)
        assert(r.ok && r.value?.meta.checkpointId === 'cp_002', `${how} _latest.json: readCheckpoint ${r.ok ? r.value?.meta.checkpointId : r.error.code}`)
        ;[r, ms] = await timed(() => native.writeCheckpointSync(cpInput(S, KEY, { tokenUsage: { inputTokens: 90000, contextWindow: 200000 } })))
        slowest = Math.max(slowest, ms)
        assert(r.ok && r.value.checkpointId === 'cp_003', `${how} _latest.json: the next write ${r.ok ? r.value.checkpointId : r.error.code}`)
        const stDir = sessionDir(S, 'state', KEY)
        for (const f of ['decisions.json', 'thread.json', 'resources.json', 'open_items.json', 'learnings.json']) {
          native.recordDecisionSync(obs(S, { what: `seed ${f}` }))
          plant(join(stDir, f), how, outside)
          ;[r, ms] = await timed(() => native.readContextStateSync(obs(S)))
          slowest = Math.max(slowest, ms)
          expectCode(r, ['UnsafeFile'], `${how} ${f}: readContextState`)
          // a record call moves the refused file aside and goes on
          native.recordDecisionSync(obs(S, { what: `after ${how} ${f}` }))
          native.recordToolResultSync(obs(S, { toolName: 'read', params: { path: '/x' } }))
          native.recordOpenItemSync(obs(S, { text: 'item' }))
          native.recordLearningSync(obs(S, { text: 'learning' }))
          native.recordMessagesSync(obs(S, { messages: [{ role: 'user', content: 'hi' }] }))
          const s = native.readContextStateSync(obs(S))
          assert(!JSON.stringify(s).includes('SECRET'), `${how} ${f}: the outside content was read`)
        }
        const obsDir = sessionDir(S, 'observations', KEY)
        plant(join(obsDir, 'catalog.json'), how, outside)
        for (const [name, f] of [['list', () => native.listObservationsSync(obs(S))], ['read', () => native.readObservationSync(obs(S, { name: 'a' }))], ['write', () => native.writeObservationSync(obs(S, { name: 'b', content: 'x' }))]]) {
          ;[r, ms] = await timed(f)
          slowest = Math.max(slowest, ms)
          expectCode(r, ['UnsafeFile'], `${how} catalog.json: ${name}`)
        }
        assert(native.deleteObservationSessionSync(obs(S)) === true, `${how}: the store could not be deleted`)
        native.writeObservationSync(obs(S, { name: 'a', content: 'again' }))
        assert(readFileSync(outside, 'utf8').includes('SECRET'), `${how}: the outside file changed`)
        rows.push(how)
      }
      return `${rows.join(', ')}: pointer skipped (cp_002 read, cp_003 written), state files UnsafeFile on read and moved aside by the next record, catalog UnsafeFile until the store is deleted; slowest call ${slowest.toFixed(1)} ms`
    },
  })
  cases.push({
    group: 'hostile',
    name: 'FIFOs in place of _latest.json, decisions.json and catalog.json (in a child bounded by a 30 s timeout): nothing blocks, the next writer of the key is not held up',
    async run() {
      const S = tempDir('fifo')
      native.writeCheckpointSync(cpInput(S, KEY))
      native.recordDecisionSync(obs(S, { what: 'seed' }))
      native.writeObservationSync(obs(S, { name: 'a', content: 'alpha' }))
      for (const [kind, f] of [['checkpoints', '_latest.json'], ['state', 'decisions.json'], ['observations', 'catalog.json']]) plant(join(sessionDir(S, kind, KEY), f), 'fifo')
      const t0 = Date.now()
      const out = child(['fifo', S, KEY], 30000)
      const ms = Date.now() - t0
      assert(out.readCheckpoint.ok && out.readCheckpoint.value === 'cp_001', `readCheckpoint: ${JSON.stringify(out.readCheckpoint)}`)
      assert(out.readContextState.code === 'UnsafeFile', `readContextState: ${JSON.stringify(out.readContextState)}`)
      assert(out.listObservations.code === 'UnsafeFile', `listObservations: ${JSON.stringify(out.listObservations)}`)
      assert(out.recordDecision.ok, `recordDecision: ${JSON.stringify(out.recordDecision)}`)
      assert(out.writeCheckpoint.ok && out.writeCheckpoint.value === 'cp_002', `writeCheckpoint: ${JSON.stringify(out.writeCheckpoint)}`)
      const d = native.recordDecisionSync(obs(S, { what: 'next writer' }))
      assert(d.id, 'the next writer failed')
      return `child done in ${ms} ms: pointer skipped, decisions.json UnsafeFile then moved aside by the next record, catalog UnsafeFile; next writer ${d.id}`
    },
  })
  cases.push({
    group: 'hostile',
    name: '<id>.dat as a symlink or hard link to an outside file: every read mode UnsafeFile, the outside content never returned; a dangling .lock link: UnsafeFile, nothing created at its target',
    async run() {
      const S = tempDir('dat')
      const { O, outside } = outsideFile('SECRET '.repeat(10))
      native.writeCheckpointSync(cpInput(S, KEY))
      const e = native.writeObservationSync(obs(S, { name: 'a', content: 'alpha '.repeat(10) })).entry
      const dir = sessionDir(S, 'observations', KEY)
      let n = 0
      for (const how of ['symlink', 'hardlink']) {
        plant(join(dir, `${e.id}.dat`), how, outside)
        for (const mode of ['head', 'tail', 'full', 'range', 'lines', 'grep']) {
          const r = await attempt(() => native.readObservationSync(obs(S, { name: 'a', mode, pattern: 'S' })))
          expectCode(r, ['UnsafeFile'], `${how} ${mode}`)
          assert(!r.error.message.includes('SECRET'), 'outside content in the message')
          n++
        }
        const x = await attempt(() => native.expandObservationRefsSync(obs(S, { value: '{{observation:a}}' })))
        expectCode(x, ['UnsafeFile'], `${how} expand`)
        n++
      }
      const locks = []
      for (const kind of ['observations', 'checkpoints']) {
        const lock = join(sessionDir(S, kind, KEY), '.lock')
        plant(lock, 'dangling', join(O, `lock-${kind}`))
        const call = kind === 'observations' ? () => native.writeObservationSync(obs(S, { name: 'b', content: 'x' })) : () => native.recordDecisionSync(obs(S, { what: 'x' }))
        expectCode(await attempt(call), ['UnsafeFile'], `dangling .lock in ${kind}`)
        assert(!existsSync(join(O, `lock-${kind}.created`)), `a file was created at the ${kind} .lock link's target`)
        locks.push(kind)
      }
      return `${n} reads refused; dangling .lock links in ${locks.join(' and ')} refused, nothing created outside`
    },
  })
  cases.push({
    group: 'hostile',
    name: 'history entries damaged (truncated, not UTF-8, missing, a link to an outside file) and their index garbage: reads Corrupt or UnsafeFile, never a crash or the outside content; the search over all says which one it could not read; the next write rebuilds the index',
    async run() {
      const S = tempDir('history')
      const { outside } = outsideFile('SECRET step '.repeat(10))
      const turn = (i) => [{ role: 'user', content: `step ${i}: deploy`, timestamp: 1_800_000_000_000 + i }]
      for (let i = 1; i <= 5; i++) native.writeHistorySync(obs(S, { messages: turn(i), durable: false }))
      const dir = sessionDir(S, 'observations', KEY)
      const entries = native.listObservationsSync(obs(S))
      const file = (name) => {
        const e = entries.find((x) => x.name === name)
        return join(dir, `${e.id}.dat`)
      }
      writeFileSync(file('history-1'), 'short') // truncated: the catalog says more bytes
      writeFileSync(file('history-2'), Buffer.alloc(readFileSync(file('history-2')).length, 0xff)) // not UTF-8
      rmSync(file('history-3'))
      plant(file('history-4'), 'symlink', outside)
      const codes = []
      for (const name of ['history-1', 'history-2', 'history-3', 'history-4']) {
        const r = await attempt(() => native.readObservationSync(obs(S, { name, pattern: 'step' })))
        expectCode(r, ['Corrupt', 'UnsafeFile'], name)
        assert(!r.error.message.includes('SECRET'), 'outside content in the message')
        codes.push(`${name} ${r.error.code}`)
      }
      const all = native.readObservationSync(obs(S, { name: 'history', pattern: 'step' }))
      assert(all.matches === 1 && all.content.includes('step 5: deploy'), `the search reads the sound entry: ${all.content}`)
      for (const name of ['history-1', 'history-2', 'history-3', 'history-4']) assert(all.content.includes(`== ${name} could not be read`), `the search names ${name}: ${all.content}`)
      assert(!all.content.includes('SECRET'), 'outside content in the search')
      const index = entries.find((x) => x.name === 'context-native-history')
      // (rewritten at every write: its current revision is the one .dat file of its id)
      writeFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith(index.id) && f.endsWith('.dat'))), '{'.repeat(10))
      const w = native.writeHistorySync(obs(S, { messages: turn(6), durable: false }))
      assert(w.written && w.repaired && w.name === 'history-6', `the next write: ${JSON.stringify(w)}`)
      assert(readFileSync(outside, 'utf8') === 'SECRET step '.repeat(10), 'the outside file was changed')
      return `${codes.join(', ')}; the search read history-5 and named the others; the index rebuilt by the next write (history-6)`
    },
  })
  const raceMs = opts.heavy ? 8000 : 2000
  cases.push({
    group: 'hostile',
    name: `deleteObservationSession racing 2 writers and 1 reader (4 processes, ${raceMs / 1000} s): no write fails, reads only find the entry or NotFound, no delete fails`,
    async run() {
      const S = tempDir('race')
      native.writeObservationSync(obs(S, { name: 'writer0_0', content: 'seed' }))
      const outs = await Promise.all(['writer0', 'writer1', 'reader', 'deleter'].map((role) => raceChild(role, S, raceMs)))
      const by = Object.fromEntries(outs.map((o) => [o.role, o.counts]))
      const bad = []
      for (const [role, counts] of Object.entries(by)) {
        for (const k of Object.keys(counts)) {
          const fine = k === 'ok' || (role === 'reader' && k.startsWith('NotFound'))
          if (!fine) bad.push(`${role} ${counts[k]} x ${k}`)
        }
      }
      assert(bad.length === 0, bad.join('; '))
      const w = (by.writer0.ok ?? 0) + (by.writer1.ok ?? 0)
      assert(w > 20 && (by.deleter.ok ?? 0) > 20, `too little happened: ${JSON.stringify(by)}`)
      const tombsOf = () => readdirSync(join(S, 'context/observations')).filter((n) => n.startsWith('.'))
      const leftByDeletes = tombsOf().map((t) => `${t}: [${readdirSync(join(S, 'context/observations', t)).join(' ')}]`)
      native.gcObservationsSync({ stateDir: S })
      assert(tombsOf().length === 0, `tombstones left after gc: ${tombsOf()}`)
      return `${w} writes ok, reads ${by.reader.ok ?? 0} ok / ${Object.entries(by.reader).filter(([k]) => k !== 'ok').reduce((a, [, v]) => a + v, 0)} NotFound, ${by.deleter.ok} deletes ok; tombstones left by deletes: ${leftByDeletes.length ? leftByDeletes.join('; ') : 'none'} (gc removes them)`
    },
  })
  cases.push({
    group: 'hostile',
    name: 'recordToolResult with 10,000 and 100,000 paths in one call: the last 100 recorded, linear (best of 5: time ratio under 50 for 10x the paths; quadratic was ~100)',
    async run() {
      const S = tempDir('paths')
      const call = (n) => {
        const paths = Array.from({ length: n }, (_, i) => `/src/dir${i % 97}/file${i}.ts`)
        const t0 = performance.now()
        const r = native.recordToolResultSync(obs(S, { toolName: 'read', params: { paths } }))
        const ms = performance.now() - t0
        assert(r.filesRead.length === 100 && r.filesRead[99] === paths[n - 1], `${n}: recorded ${r.filesRead.length}`)
        return ms
      }
      const best = (n) => Math.min(...Array.from({ length: 5 }, () => call(n)))
      const small = best(10000)
      const large = best(100000)
      const ratio = large / Math.max(small, 1)
      assert(ratio < 50, `100,000 paths took ${large.toFixed(0)} ms, ${ratio.toFixed(1)}x 10,000 (${small.toFixed(0)} ms): not linear`)
      return `10,000 paths ${small.toFixed(1)} ms, 100,000 paths ${large.toFixed(1)} ms (x${ratio.toFixed(1)})`
    },
  })
  if (canMount()) {
    cases.push({
      group: 'hostile',
      name: 'read-only state dir (tmpfs remounted ro): reads of a never-used key answer empty and create nothing',
      async run() {
        const S = tempDir('ro12')
        const mnt = join(S, 'mnt')
        mkdirSync(mnt)
        try {
          mount(['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt])
          native.writeCheckpointSync(cpInput(mnt, 'used'))
          native.recordDecisionSync({ stateDir: mnt, sessionKey: 'used', what: 'x' })
          native.writeObservationSync({ stateDir: mnt, sessionKey: 'used', name: 'a', content: 'x' })
          mount(['-o', 'remount,ro', mnt])
          const before = snapshot(mnt)
          const t = { stateDir: mnt, sessionKey: 'never-used' }
          const s = native.readContextStateSync(t)
          assert(s.decisions.length === 0 && s.filesRead.length === 0, 'state of a never-used key is not empty')
          assert(native.readCheckpoint(t) == null, 'checkpoint of a never-used key')
          assert(native.listObservationsSync(t).length === 0, 'observations of a never-used key')
          // and the used key still reads
          assert(native.readContextStateSync({ stateDir: mnt, sessionKey: 'used' }).decisions.length === 1, 'used key state')
          const after = snapshot(mnt)
          assert([...after.keys()].join() === [...before.keys()].join(), 'a read changed the read-only tree')
          return 'readContextStateSync, readCheckpoint, listObservationsSync of a never-used key: empty, nothing created'
        } finally {
          umount(mnt)
        }
      },
    })
    cases.push({
      group: 'hostile',
      name: 'full disk (2 MiB tmpfs, 101 entries, filled to ENOSPC): deleteObservation frees space one entry at a time (a large entry, then a small one whose catalog is rewritten in place), gc works',
      async run() {
        const S = tempDir('full12')
        const mnt = join(S, 'mnt')
        mkdirSync(mnt)
        try {
          mount(['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt])
          const t = { stateDir: mnt, sessionKey: KEY, durable: false }
          native.writeObservationSync({ ...t, name: 'big', content: 'b'.repeat(100000) })
          for (let i = 0; i < 100; i++) native.writeObservationSync({ ...t, name: `small_${i}`, content: `s${i}` })
          const filler = join(mnt, 'filler')
          try {
            for (;;) writeFileSync(filler, Buffer.alloc(4096), { flag: 'a' })
          } catch (e) {
            assert(e.code === 'ENOSPC', `filling: ${e.code}`)
          }
          const free0 = statfsSync(mnt).bfree
          const w = await attempt(() => native.writeObservationSync({ ...t, name: 'more', content: 'm'.repeat(20000) }))
          expectCode(w, ['NoSpace'], 'a write on the full disk')
          native.deleteObservationSync({ stateDir: mnt, sessionKey: KEY, name: 'big' })
          const free1 = statfsSync(mnt).bfree
          assert(free1 > free0, `no space freed by deleting the large entry (${free0} -> ${free1} blocks)`)
          // fill again, then delete a small entry: the catalog (~20 KB) cannot be written anew
          try {
            for (;;) writeFileSync(filler, Buffer.alloc(4096), { flag: 'a' })
          } catch {}
          try {
            for (;;) writeFileSync(filler, Buffer.alloc(512), { flag: 'a' })
          } catch {}
          const catalog = join(sessionDir(mnt, 'observations', KEY), 'catalog.json')
          const catBefore = statSync(catalog).size
          native.deleteObservationSync({ stateDir: mnt, sessionKey: KEY, name: 'small_7' })
          // rewritten in place: same length, padded (an atomic rewrite would be shorter)
          const catAfter = statSync(catalog).size
          assert(catAfter === catBefore, `catalog ${catBefore} -> ${catAfter} bytes: not rewritten in place`)
          const names = native.listObservationsSync({ stateDir: mnt, sessionKey: KEY }).map((e) => e.name)
          assert(names.length === 99 && !names.includes('small_7') && !names.includes('big'), `after deletes: ${names.length} entries`)
          assert(native.readObservationSync({ stateDir: mnt, sessionKey: KEY, name: 'small_8', mode: 'full' }).content === 's8', 'a kept entry is unreadable')
          const g = native.gcObservationsSync({ stateDir: mnt, sessionKey: KEY, quotaBytes: 100 })
          assert(g.removed.length > 0, 'gc removed nothing on the full disk')
          rmSync(filler)
          return `deleted 'big' (${free1 - free0} blocks freed) and 'small_7' (catalog of ${catBefore} bytes rewritten in place) on a full disk; gc removed ${g.removed.length}`
        } finally {
          umount(mnt)
        }
      },
    })
  }
  return cases
}
