import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const native = createRequire(import.meta.url)('../index.js')

describe('errors and panics', () => {
  it('turns a Rust panic into a JS Error with code Panic, and the process lives on', () => {
    let caught: any
    try {
      native.__panicForTest()
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(Error)
    expect(caught.code).toBe('Panic')
    expect(caught.message).toMatch(/deliberate panic/)
    // the addon still works after the panic
    expect(native.countTokens('hello world')).toBe(2)
  })

  it('wrong argument types throw InvalidArg with what was expected', () => {
    expect(() => native.countTokens(42)).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    expect(() => native.countTokens('x', 'p50k_base')).toThrow(/o200k_base' or 'cl100k_base'/)
  })

  it('async calls reject, never throw synchronously', async () => {
    const p = native.warmup('nope')
    expect(p).toBeInstanceOf(Promise)
    await expect(p).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.warmup()).resolves.toBeUndefined()
  })

  it.skipIf(process.platform === 'win32')('a refused file in the state dir (a link out) is UnsafeFile, sync and async', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'ctx-errors-'))
    try {
      const t = { stateDir, sessionKey: 'refused' }
      const { entry } = native.writeObservationSync({ ...t, name: 'a', content: 'alpha' })
      const outside = join(stateDir, '..', `${entry.id}-outside`)
      writeFileSync(outside, 'SECRET')
      const dat = join(stateDir, 'context/observations', native.sessionDirName(t.sessionKey), `${entry.id}.dat`)
      rmSync(dat)
      symlinkSync(outside, dat)
      expect(() => native.readObservationSync({ ...t, name: 'a' })).toThrow(expect.objectContaining({ code: 'UnsafeFile' }))
      await expect(native.readObservation({ ...t, name: 'a' })).rejects.toMatchObject({ code: 'UnsafeFile' })
      rmSync(outside)
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  })
})
