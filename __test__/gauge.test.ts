import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const native = createRequire(import.meta.url)('../index.js')
const fixtures = fileURLToPath(new URL('./fixtures/transcripts/', import.meta.url))

describe('evaluateContextUsage', () => {
  const evaluate = native.evaluateContextUsage

  it('applies the 70% / 80% thresholds and formats the line', () => {
    expect(evaluate({ tokens: 100_000, contextWindow: 200_000 })).toEqual({
      utilization: 0.5,
      action: 'none',
      source: 'tokens',
    })
    expect(evaluate({ tokens: 140_000, contextWindow: 200_000 })).toMatchObject({
      action: 'gauge',
      line: '[Context: 70% | 140k/200k tokens]',
    })
    // 79.99% stays 'gauge' and never shows 80%.
    expect(evaluate({ tokens: 159_999, contextWindow: 200_000 })).toMatchObject({
      action: 'gauge',
      line: '[Context: 79% | 159k/200k tokens]',
    })
    expect(evaluate({ tokens: 162_431, contextWindow: 200_000 }, { checkpointSaved: true })).toEqual({
      utilization: 162_431 / 200_000,
      action: 'checkpoint',
      source: 'tokens',
      line: '[Context: 81% | 162k/200k tokens | Checkpoint saved]',
    })
    expect(evaluate({ tokens: 162_431, contextWindow: 200_000 }).line).toBe('[Context: 81% | 162k/200k tokens]')
  })

  it('prefers the SDK percent and tolerates unknown usage', () => {
    expect(evaluate({ tokens: 1000, contextWindow: 200_000, percent: 85 })).toMatchObject({
      utilization: 0.85,
      action: 'checkpoint',
      source: 'percent',
    })
    expect(evaluate({ tokens: null, contextWindow: 200_000, percent: 75.5 }).line).toBe(
      '[Context: 75% | 151k/200k tokens]',
    )
    expect(evaluate({ tokens: null, contextWindow: 200_000, percent: null })).toEqual({
      utilization: 0,
      action: 'none',
      source: 'unknown',
    })
    expect(evaluate({ contextWindow: 200_000 }).source).toBe('unknown')
  })

  it('takes custom thresholds and rejects invalid numbers with InvalidArg', () => {
    expect(evaluate({ tokens: 110, contextWindow: 200 }, { gaugeAt: 0.5, checkpointAt: 0.6 }).action).toBe('gauge')
    expect(evaluate({ tokens: 130, contextWindow: 200 }, { gaugeAt: 0.5, checkpointAt: 0.6 }).action).toBe(
      'checkpoint',
    )
    const bad: any[] = [
      [{ tokens: NaN, contextWindow: 200_000 }],
      [{ tokens: -1, contextWindow: 200_000 }],
      [{ tokens: 1, contextWindow: 0 }],
      [{ tokens: 1, contextWindow: -2 }],
      [{ tokens: 1 }],
      [{ percent: -5, contextWindow: 10 }],
      [{ tokens: '5', contextWindow: 10 }],
      [{ tokens: 1, contextWindow: 10 }, { gaugeAt: 0.9, checkpointAt: 0.8 }],
      [{ tokens: 1, contextWindow: 10 }, { checkpointAt: 80 }],
      ['x'],
    ]
    for (const args of bad) {
      expect(() => evaluate(...args), JSON.stringify(args)).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    }
  })
})

describe('ContextEstimator', () => {
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] })
  const assistant = (text: string, context?: number) => ({
    role: 'assistant',
    content: [{ type: 'text', text }],
    stopReason: 'stop',
    ...(context ? { usage: { input: 3, output: 10, cacheRead: context - 3, cacheWrite: 0 } } : {}),
  })

  it('adds usage and exact trailing counts, forks, resets, and matches the stateless form', () => {
    const e = new native.ContextEstimator()
    const n1 = e.addMessage(user('hello world'))
    expect(n1).toBe(native.countTokens('hello world') + 4)
    e.addMessage(assistant('hi there', 5000))
    const n3 = e.addMessage(user('tell me more about it'))
    const est = e.estimate()
    expect(est.usageTokens).toBe(5000)
    expect(est.lastUsageIndex).toBe(1)
    expect(est.correction).toBe(1)
    expect(est.trailingTokens).toBe(native.countTokens('hi there') + 4 + n3)
    expect(est.tokens).toBe(est.usageTokens + est.trailingTokens)
    expect(e.messageCount).toBe(3)

    const f = e.fork()
    f.addMessages([assistant('a'.repeat(50)), user('b')])
    expect(f.messageCount).toBe(5)
    expect(e.messageCount).toBe(3)
    expect(f.estimate().tokens).toBeGreaterThan(est.tokens)

    const all = [user('hello world'), assistant('hi there', 5000), user('tell me more about it')]
    expect(native.estimateContextTokens(all)).toEqual(est)

    // Usage ignored on request; aborted turns never count.
    const g = new native.ContextEstimator({ encoding: 'cl100k_base' })
    g.addMessages(all, { ignoreUsage: true })
    g.addMessage({ ...assistant('x', 9999), stopReason: 'aborted' })
    expect(g.estimate().lastUsageIndex).toBeUndefined()
    expect(g.estimate().usageTokens).toBe(0)

    e.reset()
    expect(e.messageCount).toBe(0)
    // Without usage, the learned overhead (system prompt, tools: 5000 minus what preceded the usage) remains.
    expect(e.estimate()).toMatchObject({ tokens: 5000 - n1, overheadTokens: 5000 - n1, trailingTokens: 0 })
    const n4 = e.addMessage(user('after compaction'))
    expect(e.estimate().tokens).toBe(5000 - n1 + n4)
  })

  it('compact(keep, summary): the kept messages at the size the provider measured, the summary counted', () => {
    const e = new native.ContextEstimator()
    const [q1, a1, q2] = [user('first question'), assistant('first answer', 5000), user('second question '.repeat(40))]
    const n = (m: any) => e.fork().addMessage(m)
    const span = n(a1) + n(q2)
    const u2 = 5000 + Math.round(1.2 * span) // the provider reads a1 + q2 at 1.2 tokens per counted token
    const [a2, q3] = [assistant('second answer', u2), user('third question')]
    e.addMessages([q1, a1, q2, a2, q3])
    const c = e.estimate().correction
    expect(c).toBeCloseTo((u2 - 5000) / span, 10)
    const summary = { role: 'compactionSummary', summary: 'what happened so far '.repeat(10), tokensBefore: u2 }
    // The compaction kept q2, a2, q3 (the last 3 added).
    e.compact(3, [summary])
    expect(e.messageCount).toBe(1)
    const est = e.estimate()
    // Kept span: the context at its end (u2 + corrected a2, q3) minus the context at its start
    // (5000 + corrected a1): the provider's own figures but for the few tokens after each usage.
    expect(est.carriedTokens).toBe(Math.round(u2 + c * (n(a2) + n(q3)) - (5000 + c * n(a1))))
    expect(est.trailingTokens).toBe(Math.round(c * n(summary)))
    // The overhead: the median over the usages with the smallest counts in front of them (here both).
    const o1 = 5000 - c * n(q1)
    const o2 = u2 - c * (n(q1) + n(a1) + n(q2))
    expect(est.overheadTokens).toBe(Math.round((o1 + o2) / 2))
    expect(est.lastUsageIndex).toBeUndefined()
    expect(est.tokens).toBe(est.overheadTokens + est.carriedTokens + est.trailingTokens)
    // Kept nothing (a Claude Code compaction): overhead + summary.
    const g = e.fork()
    g.compact(0, [summary])
    expect(g.estimate().carriedTokens).toBe(0)
    expect(g.estimate().tokens).toBe(est.overheadTokens + est.trailingTokens)
    // Bad input: InvalidArg, nothing changes.
    for (const bad of [-1, 1.5, 'two', Number.NaN, null]) {
      expect(() => e.compact(bad as any, [summary])).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    }
    expect(() => e.compact(0, [{ summary: 'no role' }])).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    expect(e.estimate()).toEqual(est)
    e.reset()
    expect(e.estimate().carriedTokens).toBe(0)
  })

  it('rejects what is not a message, atomically for addMessages', () => {
    const e = new native.ContextEstimator()
    expect(() => e.addMessage('hello')).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    expect(() => e.addMessage({ content: 'x' })).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    expect(() => e.addMessages([user('a'), 5])).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    expect(e.messageCount).toBe(0)
    expect(() => new native.ContextEstimator({ encoding: 'p50k' })).toThrow(/o200k_base/)
    expect(() => native.estimateContextTokens([null])).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
  })
})

// ---- Accuracy against provider-reported usage in real transcripts ----

type Msg = any
const providerContext = (m: Msg): number | undefined => {
  if (m.role !== 'assistant' || !m.usage || m.stopReason === 'aborted' || m.stopReason === 'error') return undefined
  const u = m.usage
  const t = (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)
  return t > 0 ? t : undefined
}
const stripUsage = (m: Msg) => (m.role === 'assistant' && m.usage ? { ...m, usage: undefined } : m)

interface Errors {
  total: number[]
  totalChars4: number[]
  trailing: number[]
  trailingChars4: number[]
  noUsage: number[]
  noUsageChars4: number[]
  cold: number
}

/**
 * Replays a pi v1 transcript as the host would: before each assistant turn with usage, estimate
 * its context from the messages before it, with the usage of the last `k` reported turns hidden,
 * and compare with the reported `input + cacheRead + cacheWrite`. The baseline is pi's own
 * `estimateContextTokens` (last usage + chars/4) on the same view. A compaction replaces the
 * context with the summary and the kept messages, whose usage predates it (hidden from pi's; ours
 * carries the kept messages at the size the usages measured, `compact`).
 */
function replay(file: string, k: number, piEstimate: (messages: Msg[]) => { tokens: number }): Errors {
  const lines = readFileSync(fixtures + file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
  const out: Errors = { total: [], totalChars4: [], trailing: [], trailingChars4: [], noUsage: [], noUsageChars4: [], cold: 0 }
  let ctx: Msg[] = []
  let visible: number[] = []
  let keptEnd = 0 // messages before this index came through a compaction: usage stale
  let usagesSeen = 0
  const v = new native.ContextEstimator()
  let fed = 0
  lines.forEach((line, li) => {
    if (line.type === 'compaction') {
      const kept = lines.slice(line.firstKeptEntryIndex, li).filter((l) => l.type === 'message').map((l) => l.message)
      // The host has seen every message (and usage) up to the compaction; the compaction keeps the
      // last `kept.length` of them and puts the summary in front.
      while (fed < ctx.length) v.addMessage(ctx[fed++])
      const summary = { role: 'compactionSummary', summary: line.summary }
      v.compact(kept.length, [summary])
      ctx = [summary, ...kept]
      fed = keptEnd = ctx.length
      visible = []
      return
    }
    if (line.type !== 'message') return
    const m = line.message
    const actual = providerContext(m)
    if (actual !== undefined) {
      let cutoff = visible.length >= k ? visible[visible.length - k] : (visible[0] ?? ctx.length)
      cutoff = Math.max(cutoff, fed)
      while (fed < cutoff) {
        if (providerContext(ctx[fed]) !== undefined) usagesSeen++
        v.addMessage(ctx[fed++])
      }
      const f = v.fork()
      f.addMessages(ctx.slice(fed), { ignoreUsage: true })
      const est = f.estimate()
      const view = ctx.map((x, i) => (i < keptEnd || i >= cutoff ? stripUsage(x) : x))
      const base = piEstimate(view).tokens
      const err = (x: number) => Math.abs(x - actual) / actual
      if (usagesSeen === 0) {
        out.cold++
      } else if (est.lastUsageIndex === undefined) {
        out.noUsage.push(err(est.tokens))
        out.noUsageChars4.push(err(base))
      } else {
        out.total.push(err(est.tokens))
        out.totalChars4.push(err(base))
        const delta = actual - est.usageTokens
        if (delta >= 200) {
          out.trailing.push(Math.abs(est.tokens - actual) / delta)
          out.trailingChars4.push(Math.abs(base - actual) / delta)
        }
      }
    }
    if (actual !== undefined) visible.push(ctx.length)
    ctx.push(m)
  })
  return out
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p: number) => s[Math.round((s.length - 1) * p)] * 100
  return { n: s.length, mean: (s.reduce((a, b) => a + b, 0) / s.length) * 100, median: q(0.5), p90: q(0.9) }
}
const fmt = (x: { n: number; mean: number; median: number; p90: number }) =>
  `n=${x.n} mean ${x.mean.toFixed(2)}% median ${x.median.toFixed(2)}% p90 ${x.p90.toFixed(2)}%`

describe('estimator accuracy on real transcripts (vs pi chars/4)', async () => {
  const compaction = await import(
    pathToFileURL(
      fileURLToPath(new URL('../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js', import.meta.url)),
    ).href
  )
  for (const file of ['before-compaction.jsonl', 'large-session.jsonl']) {
    it(`${file}: beats chars/4 on the estimated part and in total`, () => {
      const r = replay(file, 3, compaction.estimateContextTokens)
      const [t, tb] = [stats(r.total), stats(r.totalChars4)]
      const [p, pb] = [stats(r.trailing), stats(r.trailingChars4)]
      console.log(
        `${file} (usage of the last 3 turns hidden, ${r.cold} cold turns skipped)\n` +
          `  total      ours ${fmt(t)} | chars/4 ${fmt(tb)}\n` +
          `  estimated  ours ${fmt(p)} | chars/4 ${fmt(pb)}`,
      )
      expect(t.n).toBeGreaterThan(400)
      // The part actually estimated (messages after the last visible usage).
      expect(p.mean).toBeLessThan(pb.mean / 2)
      expect(p.median).toBeLessThan(pb.median / 3)
      expect(p.median).toBeLessThan(8)
      expect(t.mean).toBeLessThan(tb.mean * 0.75)
      expect(t.p90).toBeLessThan(tb.p90)
      if (r.noUsage.length) {
        const [n, nb] = [stats(r.noUsage), stats(r.noUsageChars4)]
        console.log(`  after compaction, no usage: ours ${fmt(n)} | chars/4 ${fmt(nb)}`)
        expect(n.mean).toBeLessThan(3)
        expect(n.mean).toBeLessThan(nb.mean / 10)
      }
    })
  }

  it('costs little per message when replayed one message per turn', () => {
    const lines = readFileSync(fixtures + 'large-session.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    const messages = lines.filter((l) => l.type === 'message').map((l) => l.message)
    native.countTokens('warm up')
    const e = new native.ContextEstimator()
    const times: number[] = []
    let last: any
    for (const m of messages) {
      const t0 = process.hrtime.bigint()
      e.addMessage(m)
      last = e.estimate()
      times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
    const s = [...times].sort((a, b) => a - b)
    console.log(
      `per turn (addMessage + estimate, ${messages.length} messages, final estimate ${last.tokens}): ` +
        `mean ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(3)} ms, ` +
        `p50 ${s[s.length >> 1].toFixed(3)} ms, p99 ${s[Math.floor(s.length * 0.99)].toFixed(3)} ms, max ${s[s.length - 1].toFixed(3)} ms`,
    )
    expect(last.tokens).toBeGreaterThan(100_000)
  })
})
