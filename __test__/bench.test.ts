// Smoke test of the benchmark baselines: each runs once and behaves as seed 002 / seed 001 say,
// so the incumbents `npm run bench` measures against are faithful and stay working.
// No timing assertions here: timing goals live in BENCHMARKS.md only.

import { describe, expect, it, afterAll } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
// @ts-ignore plain .mjs baselines, typed by use
import { ScratchpadStore, BLOCK_OPEN, BLOCK_CLOSE, NOTES_KEY, PLAN_KEY, REFS_KEY, LEGACY_KEY } from '../benchmark/baselines/scratchpad.mjs'
// @ts-ignore
import * as cp from '../benchmark/baselines/checkpoint.mjs'
// @ts-ignore
import { summarize, speedup } from '../benchmark/lib/stats.mjs'

describe('scratchpad baseline (seed 002)', () => {
  it('keeps three spaces and renders only the non-empty ones between seed 000 markers', () => {
    const s = new ScratchpadStore()
    expect(s.getContent('x')).toBeUndefined()
    const r = s.apply('x', { action: 'set_plan', content: '1. Fix auth bug\n2. Add test' })
    expect(r.ok).toBe(true)
    expect(r.persist).toEqual([{ customType: PLAN_KEY, data: '1. Fix auth bug\n2. Add test' }])
    expect(r.usage).toMatchObject({ notesChars: 0, planChars: 27, refs: 0, version: 1 })
    expect(r.usage.tokens).toBeGreaterThan(0)
    const block = s.getContent('x')
    expect(block.startsWith(`${BLOCK_OPEN}\n`)).toBe(true)
    expect(block.endsWith(BLOCK_CLOSE)).toBe(true)
    expect(block).toContain('1. Fix auth bug')
    expect(block).not.toContain('[Notes')
    expect(s.getContentCached('x')).toBe(block)
  })

  it('set_notes truncates with a warning; append_notes over the limit is rejected and changes nothing', () => {
    const s = new ScratchpadStore()
    const big = 'a'.repeat(4100)
    const set = s.apply('x', { action: 'set_notes', content: big })
    expect(set.ok).toBe(true)
    expect(set.truncated).toBe(true)
    expect(set.usage.notesChars).toBeLessThanOrEqual(4000)
    expect(set.message).toMatch(/truncated/)
    const before = s.getContent('x')
    const app = s.apply('x', { action: 'append_notes', content: 'more' })
    expect(app.ok).toBe(false)
    expect(app.persist).toEqual([])
    expect(s.getContent('x')).toBe(before)
    const small = new ScratchpadStore()
    small.apply('y', { action: 'set_notes', content: 'one' })
    const ok = small.apply('y', { action: 'append_notes', content: 'two' })
    expect(ok.persist).toEqual([{ customType: NOTES_KEY, data: 'one\ntwo' }])
  })

  it('counts characters as JS string length and never splits a surrogate pair', () => {
    const s = new ScratchpadStore()
    const r = s.apply('x', { action: 'set_plan', content: 'a'.repeat(1999) + '😀' }, { planMaxChars: 2000 })
    expect(r.usage.planChars).toBe(1999)
  })

  it('enforces the token budget over the whole block', () => {
    const s = new ScratchpadStore()
    const r = s.apply('x', { action: 'set_notes', content: 'lorem ipsum '.repeat(300) }, { maxTokens: 100 })
    expect(r.ok).toBe(true)
    expect(r.truncated).toBe(true)
    expect(r.usage.tokens).toBeLessThanOrEqual(100)
  })

  it('refs: add drops the oldest at 50, remove fails when missing, set keeps the first 50 strings', () => {
    const s = new ScratchpadStore()
    for (let i = 0; i < 51; i++) s.apply('x', { action: 'refs.add', ref: `r${i}` })
    const last = s.apply('x', { action: 'refs.add', ref: 'r51' })
    expect(last.usage.refs).toBe(50)
    expect(last.persist[0].customType).toBe(REFS_KEY)
    expect(last.persist[0].data[0]).toBe('r2')
    expect(s.apply('x', { action: 'refs.remove', ref: 'r0' }).ok).toBe(false)
    expect(s.apply('x', { action: 'refs.remove', ref: 'r2' }).usage.refs).toBe(49)
    const items = [1, 'a', null, ...Array.from({ length: 60 }, (_, i) => `s${i}`)]
    const set = s.apply('x', { action: 'refs.set', items })
    expect(set.usage.refs).toBe(50)
    expect(set.persist[0].data.slice(0, 2)).toEqual(['a', 's0'])
  })

  it('escapes content lines that would close the block, and restores (legacy key into notes)', () => {
    const s = new ScratchpadStore()
    s.apply('x', { action: 'set_notes', content: 'x\n[End Scratchpad]\ny' })
    const block = s.getContent('x')
    expect(block.split('\n').filter((l: string) => l === BLOCK_CLOSE)).toHaveLength(1)
    const u = s.restore('z', [
      { type: 'custom', customType: LEGACY_KEY, data: 'old notes' },
      { type: 'custom', customType: REFS_KEY, data: ['a', 'b'] },
    ])
    expect(u).toMatchObject({ notesChars: 9, refs: 2 })
  })
})

describe('checkpoint baseline (seed 001)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-test-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const input = (inputTokens: number, extra = {}) => ({
    stateDir: dir,
    sessionKey: 'telegram:user123',
    trigger: 'auto-80pct',
    tokenUsage: { inputTokens, contextWindow: 200000 },
    working: { topic: 'Helping user plan a trip to Japan', status: 'in_progress', nextAction: 'Answer: visa?' },
    decisions: [{ what: 'User prefers budget options over luxury', when: '2026-02-24T14:15:00Z' }],
    resources: { toolsUsed: ['web_search'] },
    thread: { summary: 'Planning Japan trip.' },
    openItems: ['Visa requirements for Serbian passport'],
    learnings: ['User is price-sensitive'],
    ...extra,
  })

  it('writes cp_001.yaml with schema v1, block scalars for free text, and _latest.json', async () => {
    const r = await cp.writeCheckpoint(input(162431), { fsync: false })
    expect(r).toMatchObject({ written: true, checkpointId: 'cp_001', pruned: [] })
    const text = readFileSync(r.path, 'utf8')
    expect(text).toMatch(/^# OpenClaw Checkpoint Schema v1/)
    expect(text).toContain('schema: "openclaw/checkpoint"')
    expect(text).toMatch(/topic: \|/)
    expect(text).toContain('- "web_search"')
    const parsed = cp.parseCheckpoint(text)
    expect(parsed.meta).toMatchObject({ checkpoint_id: 'cp_001', session_key: 'telegram:user123', previous_checkpoint: null })
    expect(parsed.meta.token_usage.utilization).toBe(0.8122)
    expect(parsed.decisions[0]).toMatchObject({ id: 'd1', what: 'User prefers budget options over luxury' })
    const latest = JSON.parse(readFileSync(path.join(path.dirname(r.path), '_latest.json'), 'utf8'))
    expect(latest.checkpoint_id).toBe('cp_001')
    expect(path.basename(path.dirname(r.path))).toBe('telegram_user123')
  })

  it('skips a duplicate (< 5 % token delta), chains previous_checkpoint, keeps the newest 5', async () => {
    expect(await cp.writeCheckpoint(input(165000), { fsync: true })).toMatchObject({ written: false, reason: 'dedup' })
    let last
    for (let i = 1; i <= 6; i++) last = await cp.writeCheckpoint(input(162431 * (1 + i * 0.1)), { fsync: i % 2 === 0 })
    expect(last.checkpointId).toBe('cp_007')
    expect(last.pruned).toEqual(['cp_002'])
    const files = readdirSync(path.dirname(last.path)).filter((f) => f.endsWith('.yaml'))
    expect(files.sort()).toEqual(['cp_003.yaml', 'cp_004.yaml', 'cp_005.yaml', 'cp_006.yaml', 'cp_007.yaml'])
    expect(readdirSync(path.dirname(last.path)).filter((f) => f.startsWith('.tmp-'))).toEqual([])
    const read = await cp.readCheckpoint({ stateDir: dir, sessionKey: 'telegram:user123' })
    expect(read.meta.previous_checkpoint).toBe('cp_006')
  })

  it('renders the restore text of section 8.2', async () => {
    const text = await cp.renderCheckpoint({ stateDir: dir, sessionKey: 'telegram:user123' })
    expect(text.split('\n')[0]).toBe('[Post-compaction checkpoint restore]')
    expect(text).toContain('Working on: Helping user plan a trip to Japan')
    expect(text).toContain('Status: in_progress')
    expect(text).toContain('- User prefers budget options over luxury (14:15)')
    expect(text).toContain('Open items:\n- Visa requirements for Serbian passport')
    expect(text).toContain('Learnings (consider storing to long-term memory):\n- User is price-sensitive')
    expect(await cp.renderCheckpoint({ stateDir: dir, sessionKey: 'nobody' })).toBeUndefined()
  })
})

describe('bench harness', () => {
  it('every case module loads and exposes a title and run()', async () => {
    for (const name of ['tokens', 'cold-start', 'gauge', 'scratchpad', 'checkpoint', 'restore', 'observation', 'memory']) {
      const mod = await import(`../benchmark/cases/${name}.mjs`)
      expect(typeof mod.run, name).toBe('function')
      expect(typeof mod.title, name).toBe('string')
    }
  })

  it('the pathological inputs are 1 MB and deterministic', async () => {
    // @ts-ignore
    const { PATHOLOGICAL, ONE_MB } = await import('../benchmark/lib/fixtures.mjs')
    const a = PATHOLOGICAL.base64.make()
    expect(a.length).toBe(ONE_MB)
    expect(a).toMatch(/^[A-Za-z0-9+/]+$/)
    expect(PATHOLOGICAL.base64.make()).toBe(a)
    expect(PATHOLOGICAL['repeated-char'].make()).toBe('a'.repeat(ONE_MB))
  })
})

describe('bench statistics', () => {
  it('median, spread and speed-up', () => {
    const s = summarize([4, 1, 3, 2, 5])
    expect(s).toMatchObject({ n: 5, median: 3, p25: 2, p75: 4, min: 1, max: 5 })
    expect(s.spread).toBeCloseTo(1 / 3)
    expect(speedup(10, 2)).toBe(5)
    expect(speedup({ median: 3 }, { median: 0 })).toBeNaN()
  })
})
