// Replays a real pi session (before-compaction.jsonl) turn by turn against a 200k window:
// checkpoints fire at 80% (then dedup until tokens move 5%) and at each of the two compaction
// entries; every restore text stays within maxTokens; chain, pointer and retention at the end.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempStateDir } from './checkpoint-helpers'

const native = createRequire(import.meta.url)('../index.js')
const WINDOW = 200000
const KEY = 'agent:main:replay'

type Entry = { type: string; message?: any; firstKeptEntryIndex?: number; tokensBefore?: number }

describe('replay of before-compaction.jsonl', () => {
  it('fires at 80% and at both compactions; every restore text within budget; chain intact', () => {
    const entries: Entry[] = readFileSync('__test__/fixtures/transcripts/before-compaction.jsonl', 'utf8')
      .split('\n').filter(Boolean).map((l) => JSON.parse(l))
    const { dir, cleanup } = tempStateDir('replay')
    try {
      let context: { i: number; m: any }[] = []
      let compactions = 0
      let lastTokens = 0
      const written: { id: string; trigger: string; tokens: number; at: number }[] = []
      const restoreTokens: number[] = []
      let dedups = 0
      const src = { stateDir: dir, sessionKey: KEY }
      const write = (trigger: string, tokens: number, at: number) => {
        const r = native.writeCheckpointSync({
          stateDir: dir, sessionKey: KEY, trigger, compactionCount: compactions,
          tokenUsage: { inputTokens: tokens, contextWindow: WINDOW },
          sessionFile: 'sessions/before-compaction.jsonl', channel: 'cli', agentId: 'default',
          messages: context.map((c) => c.m),
          isSplitTurn: false,
        })
        if (!r.written) {
          dedups++
          return
        }
        written.push({ id: r.checkpointId, trigger, tokens, at })
        for (const mode of ['post-compaction', 'resume']) {
          const text = native.renderCheckpoint(src, { mode })
          const n = native.countTokens(text)
          expect(n).toBeLessThanOrEqual(800)
          restoreTokens.push(n)
        }
        const tight = native.renderCheckpoint(src, { maxTokens: 300 })
        expect(native.countTokens(tight)).toBeLessThanOrEqual(300)
      }
      entries.forEach((e, i) => {
        if (e.type === 'compaction') {
          compactions++
          write('compaction', e.tokensBefore ?? lastTokens, i)
          context = context.filter((c) => c.i >= (e.firstKeptEntryIndex ?? i))
          return
        }
        if (e.type !== 'message') return
        context.push({ i, m: e.message })
        const u = e.message.role === 'assistant' ? e.message.usage : undefined
        const tokens = u ? (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0) : 0
        if (tokens > 0) {
          lastTokens = tokens
          if (tokens / WINDOW >= 0.8) write('auto-80pct', tokens, i)
        }
      })

      const compactionWrites = written.filter((w) => w.trigger === 'compaction')
      expect(compactionWrites.map((w) => w.at)).toEqual([359, 628])
      // the first auto checkpoint fires at the first turn over 80%, before each compaction
      const firstOver = entries.findIndex((e) => {
        const u = e.message?.role === 'assistant' ? e.message.usage : undefined
        return u && (u.input + u.cacheRead + u.cacheWrite) / WINDOW >= 0.8
      })
      expect(written[0]).toMatchObject({ trigger: 'auto-80pct', at: firstOver })
      for (const c of compactionWrites) {
        expect(written.some((w) => w.trigger === 'auto-80pct' && w.at < c.at && w.at > c.at - 120)).toBe(true)
      }
      for (const w of written.filter((x) => x.trigger === 'auto-80pct')) expect(w.tokens / WINDOW).toBeGreaterThanOrEqual(0.8)
      expect(dedups).toBeGreaterThan(50)
      // consecutive auto checkpoints are 5% apart (dedup)
      for (let k = 1; k < written.length; k++) {
        if (written[k].trigger === 'auto-80pct' && written[k - 1].trigger === 'auto-80pct') {
          expect(Math.abs(written[k].tokens - written[k - 1].tokens)).toBeGreaterThanOrEqual(0.05 * written[k - 1].tokens)
        }
      }

      // chain, pointer, retention
      const n = written.length
      expect(written.map((w) => w.id)).toEqual(Array.from({ length: n }, (_, k) => `cp_${String(k + 1).padStart(3, '0')}`))
      const sd = join(dir, 'context', 'checkpoints', native.sessionDirName(KEY))
      const kept = readdirSync(sd).filter((f) => f.endsWith('.yaml')).sort()
      expect(kept).toEqual(written.slice(-5).map((w) => `${w.id}.yaml`))
      expect(JSON.parse(readFileSync(join(sd, '_latest.json'), 'utf8')).checkpoint_id).toBe(written[n - 1].id)
      const latest = native.readCheckpoint(src)
      expect(latest.meta.checkpointId).toBe(written[n - 1].id)
      expect(latest.meta.compactionCount).toBe(2)
      let cur = latest
      for (let k = n - 1; k > n - 5; k--) {
        expect(cur.meta.previousCheckpoint).toBe(written[k - 1].id)
        cur = native.readCheckpoint({ yaml: readFileSync(join(sd, `${cur.meta.previousCheckpoint}.yaml`), 'utf8') })
      }
      // the extracted thread is real content, not empty
      expect(latest.thread.keyExchanges.length).toBeGreaterThanOrEqual(2)
      // (the briefing's sentences: at most 40, crates/checkpoint MAX_EXCHANGES)
      expect(latest.thread.keyExchanges.length).toBeLessThanOrEqual(40)
      expect(latest.working.topic.length).toBeGreaterThan(0)
      expect(latest.resources.toolsUsed).toContain('read')
      console.log(`replay: ${n} checkpoints (${compactionWrites.length} compaction), ${dedups} dedup skips; restore tokens min ${Math.min(...restoreTokens)} max ${Math.max(...restoreTokens)}`)
    } finally {
      cleanup()
    }
  })
})
