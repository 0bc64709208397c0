// Issue 23 through the binding: gcStateDir / deleteSession, persistScratchpad / readPersistedScratchpad, the clock
// override, and the Promise forms that gather big strings and message arrays across event-loop turns (the
// gathered input must be exactly what the direct conversion gives).
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const native = createRequire(import.meta.url)('../index.js')
const root = mkdtempSync(path.join(os.tmpdir(), 'retention-vitest-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const CLOCK = 'OPENCLAW_CONTEXT_CLOCK_OFFSET_MS'
afterEach(() => {
  delete process.env[CLOCK]
})
const DAY = 86_400_000

let n = 0
function where() {
  n += 1
  return { stateDir: path.join(root, `s${n}`), sessionKey: `agent:main:ret:${n}` }
}
const cp = (t: { stateDir: string; sessionKey: string }, extra: Record<string, unknown> = {}) => ({
  ...t,
  trigger: 'compaction',
  tokenUsage: { inputTokens: 1000, contextWindow: 200_000 },
  ...extra,
})

describe('gcStateDir / deleteSession', () => {
  it('reports, then removes, a session idle longer than idleDays; keeps an active one', async () => {
    const a = where()
    const b = { stateDir: a.stateDir, sessionKey: `${a.sessionKey}:active` }
    await native.writeCheckpoint(cp(a))
    await native.writeObservation({ ...a, name: 'log', content: 'x'.repeat(10_000) })
    process.env[CLOCK] = String(10 * DAY)
    await native.writeCheckpoint(cp(b))
    process.env[CLOCK] = String(31 * DAY)
    const dry = await native.gcStateDir({ stateDir: a.stateDir, dryRun: true })
    expect(dry.dryRun).toBe(true)
    expect(dry.removedSessions.map((s: { sessionKey: string }) => s.sessionKey)).toEqual([a.sessionKey])
    expect(native.readCheckpoint(a)).toBeDefined()
    const r = native.gcStateDirSync({ stateDir: a.stateDir })
    expect(r.removedSessions).toHaveLength(1)
    expect(r.removedBytes).toBeGreaterThan(10_000)
    expect(r.keptSessions).toBe(1)
    expect(native.readCheckpoint(a)).toBeUndefined()
    expect(native.readCheckpoint(b)).toBeDefined()
  })

  it('touchSession keeps a session that only reads from counting as idle', async () => {
    const t = where()
    await native.writeCheckpoint(cp(t))
    process.env[CLOCK] = String(29 * DAY)
    expect(await native.touchSession(t)).toBe(true)
    expect(native.touchSessionSync(t)).toBe(false) // at most one rewrite a minute
    process.env[CLOCK] = String(31 * DAY)
    const r = await native.gcStateDir({ stateDir: t.stateDir })
    expect(r.removedSessions).toEqual([])
    expect(native.readCheckpoint(t)).toBeDefined()
    await expect(native.touchSession({ stateDir: t.stateDir, sessionKey: '' })).rejects.toMatchObject({ code: 'InvalidArg' })
  })

  it('bounds the directories visited per call and continues where it stopped', async () => {
    const t = where()
    for (let i = 0; i < 3; i++) await native.writeCheckpoint(cp({ ...t, sessionKey: `${t.sessionKey}:${i}` }))
    const seen = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const r = await native.gcStateDir({ stateDir: t.stateDir, maxDirs: 1, dryRun: false, idleDays: 30 })
      expect(r.visited).toBe(1)
      expect(r.totalDirs).toBe(3)
      expect(r.more).toBe(true)
      seen.add(`${i}`)
    }
    expect(seen.size).toBe(3)
  })

  it('rejects bad input with InvalidArg, never throws synchronously', async () => {
    await expect(native.gcStateDir({ stateDir: '', idleDays: 1 })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.gcStateDir({ stateDir: root, idleDays: -1 })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.gcStateDir({ stateDir: root, maxDirs: 0 })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.deleteSession({ stateDir: root, sessionKey: '' })).rejects.toMatchObject({ code: 'InvalidArg' })
    expect(() => native.deleteSessionSync({ stateDir: root })).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
  })

  it('deleteSession removes checkpoints, state, observations, the persisted and in-memory scratchpad', async () => {
    const t = where()
    native.applyScratchpadAction(t.sessionKey, { action: 'set_notes', content: 'remember' })
    await native.persistScratchpad({ ...t, entries: [{ customType: 'openclaw:scratchpad:notes', data: 'remember' }] })
    await native.writeCheckpoint(cp(t))
    native.recordDecisionSync({ ...t, what: 'use sqlite' })
    const obs = await native.offloadObservation({ ...t, content: 'y'.repeat(20_000), toolName: 'read' })
    const r = await native.deleteSession(t)
    expect(r.existed).toBe(true)
    expect(r.dir).toBe(native.sessionDirName(t.sessionKey))
    expect(native.getScratchpadContent(t.sessionKey)).toBeUndefined()
    expect(await native.readPersistedScratchpad(t)).toBeUndefined()
    expect(native.readCheckpoint(t)).toBeUndefined()
    expect((await native.readContextState(t)).decisions).toEqual([])
    await expect(native.readObservation({ ...t, id: obs.entry.id })).rejects.toMatchObject({ code: 'NotFound' })
    expect((await native.deleteSession(t)).existed).toBe(false)
  })
})

describe('persistScratchpad / readPersistedScratchpad', () => {
  it('merges spaces; a later entry of the same type wins', async () => {
    const t = where()
    expect(await native.readPersistedScratchpad(t)).toBeUndefined()
    await native.persistScratchpad({ ...t, entries: [{ customType: 'openclaw:scratchpad:notes', data: 'a' }] })
    const r = native.persistScratchpadSync({
      ...t,
      entries: [
        { customType: 'openclaw:scratchpad:refs', data: ['x', 'y'] },
        { customType: 'openclaw:scratchpad:notes', data: 'b' },
      ],
    })
    expect(r.spaces).toEqual({ 'openclaw:scratchpad:notes': 'b', 'openclaw:scratchpad:refs': ['x', 'y'] })
    expect(native.readPersistedScratchpadSync(t)).toEqual(r.spaces)
  })

  it('refuses with TooLarge what its reader could not read, writing nothing; bad entries are InvalidArg', async () => {
    const t = where()
    await native.persistScratchpad({ ...t, entries: [{ customType: 'openclaw:scratchpad:notes', data: 'kept' }] })
    const huge = '\u0001'.repeat(11_200_000) // 6 characters each once JSON-escaped: over 64 Mi
    await expect(native.persistScratchpad({ ...t, entries: [{ customType: 'openclaw:scratchpad:notes', data: huge }] })).rejects.toMatchObject({ code: 'TooLarge' })
    expect((await native.readPersistedScratchpad(t))['openclaw:scratchpad:notes']).toBe('kept')
    await expect(native.persistScratchpad({ ...t, entries: [{ customType: 'x', data: 5 }] })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.persistScratchpad({ ...t, entries: [{ customType: '', data: 'x' }] })).rejects.toMatchObject({ code: 'InvalidArg' })
  })
})

describe('big inputs gathered across event-loop turns', () => {
  it('a string over 4M UTF-16 units arrives intact (non-ASCII, pairs across slice boundaries, lone surrogates as U+FFFD)', async () => {
    const t = where()
    const unit = 2 ** 21 // the slice size: put a surrogate pair across the first boundary
    const text = 'a'.repeat(unit - 1) + '🦊' + 'é中'.repeat(1_200_000) + 'x\uD800y' + 'end'
    expect(text.length).toBeGreaterThan(2 ** 22)
    const r = await native.offloadObservation({ ...t, content: text, toolName: 'read' })
    expect(r.offloaded).toBe(true)
    const expected = Buffer.from(text.replace('\uD800', '\uFFFD'), 'utf8')
    expect(r.sizeBytes).toBe(expected.length)
    const around = await native.readObservation({ ...t, id: r.entry.id, mode: 'range', start: unit - 3, end: unit + 3 })
    expect(around.content).toBe('aa🦊é中é')
    const tail = await native.readObservation({ ...t, id: r.entry.id, mode: 'tail', n: 6 })
    expect(tail.content).toBe('x\uFFFDyend')
    const w = await native.writeObservation({ ...t, name: 'big', content: text })
    expect(w.entry.sizeBytes).toBe(expected.length)
  })

  it('a message array over 2,048 items gives the same checkpoint and state as the direct conversion', async () => {
    const msgs: unknown[] = []
    for (let i = 0; i < 3000; i++) {
      msgs.push({ role: 'user', content: [{ type: 'text', text: `request ${i} \uD83E\uDD8A` }], timestamp: 1_771_947_000_000 + i })
      msgs.push({ role: 'assistant', content: [{ type: 'text', text: `${'Long proposal. '.repeat(40)}Shall I go with plan ${i}?` }], skip: undefined })
    }
    msgs.push({ role: 'user', content: [{ type: 'text', text: 'yes \uD800' }], timestamp: 1_771_947_999_000 })
    const a = where()
    const b = where()
    const big = await native.recordMessages({ ...a, messages: msgs })
    const direct = native.recordMessagesSync({ ...b, messages: msgs })
    expect(big).toEqual(direct)
    // Every later 'request i' answers the agent's question before it (issue 21: an answer is not the topic).
    expect(big.topic).toBe('request 0 🦊')
    const w1 = await native.writeCheckpoint(cp(a, { messages: msgs }))
    const w2 = native.writeCheckpointSync(cp(b, { messages: msgs }))
    expect(w1.written && w2.written).toBe(true)
    const r1 = native.readCheckpoint(a)
    const r2 = native.readCheckpoint(b)
    expect({ ...r1, meta: { ...r1.meta, createdAt: 0, sessionKey: 0 } }).toEqual({ ...r2, meta: { ...r2.meta, createdAt: 0, sessionKey: 0 } })
    const bad = [...msgs, { n: 10n }]
    await expect(native.writeCheckpoint(cp(a, { messages: bad }))).rejects.toMatchObject({ code: 'InvalidArg' })
  })
})
