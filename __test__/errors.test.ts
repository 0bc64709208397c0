import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'

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
})
