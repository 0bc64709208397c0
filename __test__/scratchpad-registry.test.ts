import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { randomUUID } from 'node:crypto'

const native = createRequire(import.meta.url)('../index.js') as typeof import('../index')

const CAP = 10_000 // documented idle-session cap of the process-wide registry

describe('scratchpad registry bound', () => {
  it('evicts the least recently used sessions beyond 10,000, keeps the active ones, and restore recovers', () => {
    const tag = randomUUID()
    const idle = `idle-${tag}`
    const hot = `hot-${tag}`
    const r = native.applyScratchpadAction(idle, { action: 'set_plan', content: 'idle plan' })
    native.applyScratchpadAction(hot, { action: 'set_plan', content: 'hot plan' })
    // CAP + 300 new sessions (a nudge evaluation is the cheapest call that creates one),
    // while the hot session is read before every user message as a host does
    for (let i = 0; i < CAP + 300; i++) {
      native.evaluateScratchpadNudge(`s-${tag}-${i}`, { kind: 'turn_start' })
      if (i % 100 === 0) expect(native.getScratchpadContent(hot)).toContain('hot plan')
    }
    expect(native.getScratchpadUsage(idle)).toBeUndefined()
    expect(native.getScratchpadContent(idle)).toBeUndefined()
    expect(native.getScratchpadContent(hot)).toContain('hot plan')
    expect(native.getScratchpadUsage(`s-${tag}-${CAP + 299}`)).toBeDefined()
    let held = 0
    for (let i = 0; i < CAP + 300; i++) if (native.getScratchpadUsage(`s-${tag}-${i}`)) held++
    expect(held).toBeLessThanOrEqual(CAP)
    expect(held).toBeGreaterThan(CAP - 400)
    // the evicted session comes back from its entries
    const entries = r.persist.map((p, i) => ({ type: 'custom', id: `e${i}`, parentId: null, ...p }))
    native.restoreScratchpad(idle, entries)
    expect(native.getScratchpadContent(idle)).toContain('idle plan')
  })
})
