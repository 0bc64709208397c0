import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain ES module of the CLI, without types
import { briefingMeans, oracle, rouge, tokens, writtenText } from '../bin/lib/briefing.mjs'

describe('briefing overlap (bin/lib/briefing.mjs, the definitions of ../shared/measures/briefing-overlap.mjs)', () => {
  it('tokenizes words lower-cased and each CJK character apart', () => {
    expect(tokens('Fixed auth.ts — 定时任务 OK')).toEqual(['fixed', 'auth', 'ts', '定', '时', '任', '务', 'ok'])
  })

  it('scores ROUGE-1 and ROUGE-2 recall and F1', () => {
    const ref = tokens('the deploy failed on the missing key')
    expect(rouge(ref, 'the deploy failed on the missing key')).toMatchObject({ r1: 1, r2: 1, f1: 1, f2: 1 })
    const half = rouge(ref, 'the deploy failed')
    expect(half.r2).toBeCloseTo(2 / 6)
    expect(half.f2).toBeCloseTo((2 * (2 / 6) * 1) / (2 / 6 + 1))
    expect(rouge(ref, 'lunch was good').f2).toBe(0)
  })

  it('the oracle picks the lines that overlap the summary within the budget', () => {
    const ref = tokens('the deploy failed on the missing key; the cache was cleared')
    const picked = oracle(ref, ['lunch was good today', 'the deploy failed on the missing key', 'the cache was cleared'], 800)
    expect(picked.split('\n').sort()).toEqual(['the cache was cleared', 'the deploy failed on the missing key'])
    expect(oracle(ref, ['the deploy failed on the missing key', 'the cache was cleared'], 9)).toBe('the deploy failed on the missing key')
  })

  it("leaves out what the host appends to any summary", () => {
    expect(writtenText('## Goal\nship it\n## Recent turns preserved verbatim\nUser: hi')).toBe('## Goal\nship it')
  })

  it('means: the share of the oracle, the ratio to the naive text, the identifier precision', () => {
    const at = (f2: number, tail: number, orc: number, ids: number, useful: number) => ({ restore: { f1: 0, f2, r2: 0, ids, useful }, tail: { f2: tail }, oracle: { f2: orc } })
    const rows = [{ default: at(0.2, 0.1, 0.4, 4, 3) }, { default: at(0.1, 0.1, 0.2, 6, 3) }]
    const m = briefingMeans(rows, 'default')
    expect(m.shareOfOracle).toBeCloseTo(0.5)
    expect(m.overTail).toBeCloseTo(1.5)
    expect(m.identifierPrecision).toBeCloseTo(0.6)
  })
})
