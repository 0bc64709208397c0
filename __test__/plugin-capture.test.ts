// The plugin's capture buffer (plugin/capture.ts): a turn's tool results kept in memory and written once, in one
// batch (`recordToolResults`), at agent_end, before a checkpoint, or synchronously when the process exits;
// dropped on a reset. `npm run test:real` checks the same in OpenClaw's own `--local` processes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readContextStateSync } from '@openclaw/context-native'
import { bufferToolResult, bufferedCaptures, dropCaptures, flushAllCapturesSync, flushCaptures } from '../plugin/capture.ts'

const stateDir = mkdtempSync(join(tmpdir(), 'context-native-capture-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))
const state = (sessionKey: string) => readContextStateSync({ stateDir, sessionKey })

describe('capture buffer', () => {
  it('writes nothing per result, then the whole turn in one flush', async () => {
    const k = 'agent:main:test:capture-1'
    bufferToolResult(stateDir, k, { toolName: 'read', params: { path: 'src/a.rs' } })
    bufferToolResult(stateDir, k, { toolName: 'edit', params: { file_path: 'src/b.rs' } })
    bufferToolResult(stateDir, k, { toolName: 'bash', params: { command: 'cargo test' }, isError: true, error: 'failed\nexit 101' })
    expect(bufferedCaptures(stateDir, k)).toBe(3)
    expect(state(k).toolsUsed).toEqual([])
    // Two flushes at once (agent_end and a checkpoint): both resolve with everything on disk, written once.
    await Promise.all([flushCaptures(stateDir, k), flushCaptures(stateDir, k)])
    expect(bufferedCaptures(stateDir, k)).toBe(0)
    const s = state(k)
    expect(s.toolsUsed).toEqual(['read', 'edit', 'bash'])
    expect(s.filesRead).toEqual(['src/a.rs'])
    expect(s.filesModified).toEqual(['src/b.rs'])
    expect(s.toolFailures).toEqual(['bash cargo test: failed … exit 101'])
  })

  it('keeps captures that arrive during a write for the next one', async () => {
    const k = 'agent:main:test:capture-2'
    bufferToolResult(stateDir, k, { toolName: 'read', params: { path: 'one.txt' } })
    const first = flushCaptures(stateDir, k)
    bufferToolResult(stateDir, k, { toolName: 'read', params: { path: 'two.txt' } })
    await first
    expect(bufferedCaptures(stateDir, k)).toBe(1)
    await flushCaptures(stateDir, k)
    expect(state(k).filesRead).toEqual(['one.txt', 'two.txt'])
  })

  it('writes what is left synchronously at exit, and nothing after a reset dropped it', async () => {
    const k = 'agent:main:test:capture-3'
    const gone = 'agent:main:test:capture-reset'
    bufferToolResult(stateDir, k, { toolName: 'read', params: { path: 'late.txt' } })
    bufferToolResult(stateDir, gone, { toolName: 'read', params: { path: 'old-conversation.txt' } })
    await dropCaptures(stateDir, gone)
    flushAllCapturesSync()
    expect(state(k).filesRead).toEqual(['late.txt'])
    expect(state(gone).filesRead).toEqual([])
    expect(bufferedCaptures(stateDir, k)).toBe(0)
  })

  it('writes a batch on its own when no agent_end comes (64 captures buffered)', async () => {
    const k = 'agent:main:test:capture-5'
    for (let i = 0; i < 64; i++) bufferToolResult(stateDir, k, { toolName: 'read', params: { path: `f${i}.txt` } })
    // No flush asked: the 64th capture started the write.
    for (let i = 0; i < 100 && state(k).filesRead.length < 64; i++) await new Promise((r) => setTimeout(r, 20))
    expect(state(k).filesRead).toHaveLength(64)
    // A written file's content is not carried into the capture: 1 KB of each string argument is.
    bufferToolResult(stateDir, k, { toolName: 'write', params: { path: 'big.txt', content: 'x'.repeat(100_000) } })
    await flushCaptures(stateDir, k)
    expect(state(k).filesModified).toEqual(['big.txt'])
  })

  it('a bad capture rejects its flush and does not block the next ones', async () => {
    const k = 'agent:main:test:capture-4'
    bufferToolResult(stateDir, k, { toolName: ' ', params: {} })
    await expect(flushCaptures(stateDir, k)).rejects.toMatchObject({ code: 'InvalidArg' })
    bufferToolResult(stateDir, k, { toolName: 'read', params: { path: 'ok.txt' } })
    await flushCaptures(stateDir, k)
    expect(state(k).filesRead).toEqual(['ok.txt'])
  })
})
