// Several processes write checkpoints for one session key at once: every id is unique, the
// pointer names the newest, retention is exact, the chain is unbroken.
import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { tempStateDir } from './checkpoint-helpers'

const native = createRequire(import.meta.url)('../index.js')
const addon = resolve('index.js')

function child(stateDir: string, worker: number, writes: number): Promise<string[]> {
  const script = `
    const n = require(${JSON.stringify(addon)});
    const ids = [];
    (async () => {
      for (let i = 0; i < ${writes}; i++) {
        const input = {
          stateDir: ${JSON.stringify(stateDir)}, sessionKey: 'agent:main:shared', trigger: 'compaction',
          compactionCount: ${worker} * 1000 + i + 1, tokenUsage: { inputTokens: 150000, contextWindow: 200000 },
          openItems: ['from worker ${worker} write ' + i],
        };
        const r = i % 2 ? n.writeCheckpointSync(input) : await n.writeCheckpoint(input);
        if (!r.written) throw new Error('not written');
        ids.push(r.checkpointId);
      }
      process.stdout.write(JSON.stringify(ids));
    })().catch((e) => { console.error(e); process.exit(1); });
  `
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => (out += d))
    p.stderr.on('data', (d) => (err += d))
    p.on('exit', (code) => (code === 0 ? res(JSON.parse(out)) : rej(new Error(`worker ${worker}: ${err}`))))
  })
}

describe('concurrent checkpoint writers', () => {
  it('4 processes x 12 writes: unique ids, no lost pointer update, exact retention', async () => {
    const { dir, cleanup } = tempStateDir('procs')
    try {
      const results = await Promise.all([0, 1, 2, 3].map((w) => child(dir, w, 12)))
      const nums = results.flat().map((id) => Number(id.slice(3))).sort((a, b) => a - b)
      expect(nums).toEqual(Array.from({ length: 48 }, (_, i) => i + 1))
      const sd = join(dir, 'context', 'checkpoints', native.sessionDirName('agent:main:shared'))
      const files = readdirSync(sd)
      expect(files.filter((f) => f.endsWith('.yaml')).sort()).toEqual(
        ['cp_044.yaml', 'cp_045.yaml', 'cp_046.yaml', 'cp_047.yaml', 'cp_048.yaml'],
      )
      expect(files.filter((f) => f.startsWith('.tmp-'))).toEqual([])
      expect(JSON.parse(readFileSync(join(sd, '_latest.json'), 'utf8')).checkpoint_id).toBe('cp_048')
      for (let n = 45; n <= 48; n++) {
        const cp = native.readCheckpoint({ yaml: readFileSync(join(sd, `cp_0${n}.yaml`), 'utf8') })
        expect(cp.meta.previousCheckpoint).toBe(`cp_0${n - 1}`)
      }
    } finally {
      cleanup()
    }
  })
})
