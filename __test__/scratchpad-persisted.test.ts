// Issue 28 through the binding: applyPersistedScratchpadAction applies each call to the persisted scratchpad under
// the session's lock (not to this process's copy), with the version on disk; offloadObservation's keepLive.
import { afterAll, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const native = createRequire(import.meta.url)('../index.js')
const root = mkdtempSync(path.join(os.tmpdir(), 'persisted-vitest-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('applyPersistedScratchpadAction', () => {
  it('applies to what is on disk, whatever this process held, and keeps the version there', async () => {
    const t = { stateDir: root, sessionKey: 'agent:main:persisted-1' }
    const a = await native.applyPersistedScratchpadAction({ ...t, action: { action: 'append_notes', content: 'first' } })
    expect(a.ok).toBe(true)
    expect(a.usage.version).toBe(1)
    // Another process's write lands on disk; this process's registry is stale.
    await native.persistScratchpad({ ...t, entries: [{ customType: 'openclaw:scratchpad:notes', data: 'first\nfrom another process' }] })
    const b = await native.applyPersistedScratchpadAction({ ...t, action: { action: 'append_notes', content: 'third' } })
    expect(b.ok).toBe(true)
    expect((await native.readPersistedScratchpad(t))['openclaw:scratchpad:notes']).toBe('first\nfrom another process\nthird')
    expect(native.getScratchpadContent(t.sessionKey)).toContain('from another process\nthird')
    // expectedVersion compares with the version on disk.
    const stale = await native.applyPersistedScratchpadAction({ ...t, action: { action: 'set_plan', content: 'p', expectedVersion: 0 } })
    expect(stale.ok).toBe(false)
    expect(stale.message).toMatch(/version 2/)
    expect((await native.readPersistedScratchpad(t))['openclaw:scratchpad:version']).toBe('2')
    // A malformed call changes nothing and throws nothing.
    const bad = await native.applyPersistedScratchpadAction({ ...t, action: { action: 'nope' } })
    expect(bad.ok).toBe(false)
    expect(bad.persist).toEqual([])
  })

  it('bad input is a rejection with a stable code', async () => {
    await expect(native.applyPersistedScratchpadAction({ stateDir: root, sessionKey: '', action: {} })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.applyPersistedScratchpadAction({ stateDir: root, sessionKey: 'k', action: {}, limits: { notesMaxChars: 0 } })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.applyPersistedScratchpadAction({ sessionKey: 'k', action: {} })).rejects.toMatchObject({ code: 'InvalidArg' })
  })
})

describe('offloadObservation keepLive', () => {
  it('never evicts a live entry: over the quota it rejects with TooLarge and stores nothing', async () => {
    const t = { stateDir: root, sessionKey: 'agent:main:keep-live', toolName: 'read', thresholdBytes: 2048, quotaBytes: 1_048_576, keepLive: true }
    const chunk = 'x'.repeat(400_000)
    const first = await native.offloadObservation({ ...t, content: chunk })
    await native.offloadObservation({ ...t, content: chunk })
    await expect(native.offloadObservation({ ...t, content: chunk })).rejects.toMatchObject({ code: 'TooLarge' })
    const left = native.listObservationsSync({ stateDir: root, sessionKey: t.sessionKey })
    expect(left.length).toBe(2)
    expect(left.map((e: { id: string }) => e.id)).toContain(first.entry.id)
  })
})
