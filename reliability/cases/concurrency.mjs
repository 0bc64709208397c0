// Concurrency: 8 processes x 100 writeCheckpoint on one session key; 8 x 100 state records on one
// session key; four worker_threads sharing the addon on one scratchpad and on token counting.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { assert, cpFiles, native, root, sessionDir, tempDir, tempFiles } from '../lib.mjs'

function runWriters(mode, stateDir, key, n) {
  const kids = Array.from({ length: n }, (_, p) => {
    const child = spawn(process.execPath, [join(root, 'reliability/children/concurrent-writer.mjs'), mode, stateDir, key, String(p)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const done = new Promise((resolve, reject) =>
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`writer ${p} exit ${code}: ${err.split("\n").filter((l) => /Error|code/.test(l)).join(" ").slice(0, 600)}`)))),
    )
    return { child, done }
  })
  // let them all load the addon, then start them together
  setTimeout(() => kids.forEach((k) => k.child.stdin.end('go\n')), 300)
  return Promise.all(kids.map((k) => k.done))
}

function runWorker(data) {
  return new Promise((resolve, reject) => {
    const w = new Worker(join(root, 'reliability/children/worker.mjs'), { workerData: data })
    w.once('message', resolve)
    w.once('error', reject)
    w.once('exit', (code) => code !== 0 && reject(new Error(`worker exit ${code}`)))
  })
}

export default function concurrencyCases() {
  return [
    {
      group: 'concurrency',
      name: '8 processes compacting the same session three times (writeHistory of one growing conversation): each message held once',
      async run() {
        const [stateDir, key] = [tempDir('conc-history'), 'agent:main:concurrent:history']
        const names = (await runWriters('history', stateDir, key, 8)).flatMap((o) => o.names)
        assert(new Set(names).size === names.length, `an entry name written twice: ${names}`)
        const s = await native.historySummary({ stateDir, sessionKey: key })
        assert(s.messages === 90, `${s.messages} messages held, not 90`)
        for (const i of [0, 45, 89]) {
          const r = native.readObservationSync({ stateDir, sessionKey: key, name: 'history', pattern: `message ${i} of`, context: 0 })
          assert(r.matches === 1, `message ${i}: ${r.matches} copies`)
        }
        assert(tempFiles(stateDir).length === 0, 'temp files left')
        return `${s.entries} entries (${names.join(', ')}), 90 messages each held once`
      },
    },
    {
      group: 'concurrency',
      name: '8 processes x 100 writeCheckpoint on one session key: unique ids, pointer = highest, retention exact',
      async run() {
        const stateDir = tempDir('conc-cp')
        const key = 'agent:main:concurrent:cp'
        const outs = await runWriters('checkpoints', stateDir, key, 8)
        const ids = outs.flatMap((o) => o.ids)
        assert(ids.length === 800, `${ids.length} ids`)
        const nums = ids.map((id) => Number(id.slice(3))).sort((a, b) => a - b)
        assert(new Set(nums).size === 800, 'duplicate checkpoint ids')
        assert(nums[0] === 1 && nums[799] === 800, `ids span ${nums[0]}..${nums[799]}, not 1..800`)
        const dir = sessionDir(stateDir, 'checkpoints', key)
        const pointer = JSON.parse(readFileSync(join(dir, '_latest.json'), 'utf8'))
        assert(pointer.checkpoint_id === 'cp_800', `pointer names ${pointer.checkpoint_id}`)
        const files = cpFiles(dir)
        assert(files.join() === 'cp_796.yaml,cp_797.yaml,cp_798.yaml,cp_799.yaml,cp_800.yaml', `kept ${files}`)
        const cp = native.readCheckpoint({ stateDir, sessionKey: key })
        assert(cp.meta.checkpointId === 'cp_800' && cp.meta.previousCheckpoint === 'cp_799', 'chain broken at the head')
        for (const f of files.slice(1)) {
          const c = native.readCheckpoint({ yaml: readFileSync(join(dir, f), 'utf8') })
          const n = Number(f.slice(3, -5))
          assert(c.meta.previousCheckpoint === `cp_${String(n - 1).padStart(3, '0')}`, `${f}: previous ${c.meta.previousCheckpoint}`)
        }
        assert(tempFiles(stateDir).length === 0, 'temp files left')
        return '800 unique ids cp_001..cp_800, pointer cp_800, 5 kept, chain intact'
      },
    },
    {
      group: 'concurrency',
      name: '8 processes x 100 state records on one session key: nothing lost below the caps',
      async run() {
        const stateDir = tempDir('conc-state')
        const key = 'agent:main:concurrent:state'
        const outs = await runWriters('state', stateDir, key, 8)
        assert(outs.every((o) => o.calls === 100), 'a writer did not make 100 calls')
        const s = native.readContextStateSync({ stateDir, sessionKey: key })
        const want = (f) => Array.from({ length: 8 }, (_, p) => f(p)).flat()
        const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort())
        const decisions = want((p) => Array.from({ length: 6 }, (_, j) => `decision ${p}.${j}`))
        assert(same(s.decisions.map((d) => d.what), decisions), `decisions: ${s.decisions.length} of 48`)
        assert(new Set(s.decisions.map((d) => d.id)).size === 48, 'decision ids not unique')
        const items = want((p) => Array.from({ length: 3 }, (_, j) => `item ${p}.${j + 3}`))
        assert(same(s.openItems, items), `open items: ${s.openItems.length} of 24 (resolved ones must be gone)`)
        const learnings = want((p) => Array.from({ length: 6 }, (_, j) => `learning ${p}.${j}`))
        assert(same(s.learnings, learnings), `learnings: ${s.learnings.length} of 48`)
        const read = want((p) => Array.from({ length: 12 }, (_, j) => `/read/${p}/${j}`))
        assert(same(s.filesRead, read), `files read: ${s.filesRead.length} of 96`)
        const mod = want((p) => Array.from({ length: 12 }, (_, j) => `/mod/${p}/${j}`))
        assert(same(s.filesModified, mod), `files modified: ${s.filesModified.length} of 96`)
        const tools = [...want((p) => Array.from({ length: 12 }, (_, j) => `reader${p}x${j}`)), 'edit']
        assert(same(s.toolsUsed, tools), `tools: ${s.toolsUsed.length} of 97`)
        return '48 decisions (unique ids), 24 open items (24 resolved), 48 learnings, 96 + 96 files, 97 tools'
      },
    },
    {
      group: 'concurrency',
      name: 'four worker_threads share the addon: one scratchpad (refs.add, append_notes) and countTokens',
      async run() {
        const session = `rel-workers-${process.pid}`
        native.clearScratchpad(session)
        native.applyScratchpadAction(session, { action: 'set_notes', content: 'start' }, { notesMaxChars: 100000, refsMax: 1000, maxTokens: 100000 })
        const texts = ['hello world', 'The quick brown fox 🦊 jumps', 'x'.repeat(300), 'مرحبا بالعالم', '```js\nconst a = 1\n```']
        const expected = texts.map((t) => [native.countTokens(t), native.countTokens(t, 'cl100k_base')])
        const results = await Promise.all([0, 1, 2, 3].map((w) => runWorker({ w, session, texts, expected, n: 200 })))
        for (const r of results) assert(r.tokenMismatches === 0, `worker ${r.w}: ${r.tokenMismatches} token count mismatches`)
        const versions = results.flatMap((r) => r.versions).sort((a, b) => a - b)
        assert(new Set(versions).size === versions.length, 'two calls saw the same version')
        const u = native.getScratchpadUsage(session)
        assert(u.refs === 400, `refs ${u.refs} of 400`)
        assert(u.version === versions.at(-1), `final version ${u.version} vs last seen ${versions.at(-1)}`)
        const block = native.getScratchpadContent(session)
        for (let w = 0; w < 4; w++) for (let i = 0; i < 100; i++) assert(block.includes(`\nw${w} line ${i}\n`) || block.includes(`\nw${w} line ${i}[`), `lost note line w${w} ${i}`)
        native.clearScratchpad(session)
        return `800 scratchpad calls without a lost update (version ${u.version}), ${4 * 200 * texts.length * 2} token counts exact`
      },
    },
  ]
}
