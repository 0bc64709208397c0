// plugin/retention.ts, the plugin's retention schedule and scratchpad persistence (issue 23), against the built addon.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

vi.mock('@openclaw/context-native', () => createRequire(import.meta.url)('../index.js'))
const native = createRequire(import.meta.url)('../index.js')
const { scheduleRetention, resolveRetentionSettings, persistEntries, readPersisted } = await import('../plugin/retention.ts')

const root = mkdtempSync(path.join(os.tmpdir(), 'plugin-retention-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
  return cond()
}

describe('plugin retention', () => {
  it('resolves the manifest defaults', () => {
    expect(resolveRetentionSettings({})).toEqual({ enabled: true, idleDays: 30, intervalMinutes: 60, maxDirsPerRun: 200, firstRunDelaySeconds: 60 })
    expect(resolveRetentionSettings({ retention: { idleDays: 7 } }).idleDays).toBe(7)
    expect(() => resolveRetentionSettings({ retention: { idleDays: 0 } })).toThrow(/retention.idleDays/)
  })

  it('runs gcStateDir off the turn on an unref\'d timer, once per interval however often it is registered', async () => {
    const stateDir = path.join(root, 'schedule')
    await native.writeCheckpoint({ stateDir, sessionKey: 'agent:main:idle', trigger: 'compaction', tokenUsage: { inputTokens: 1, contextWindow: 100 } })
    process.env.OPENCLAW_CONTEXT_CLOCK_OFFSET_MS = String(31 * 86_400_000)
    const logs: string[] = []
    const logger = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(`warn ${m}`) }
    const api = { logger, pluginConfig: { retention: { firstRunDelaySeconds: 0, intervalMinutes: 60 } } } as never
    const stop = scheduleRetention(api, stateDir)
    const stop2 = scheduleRetention(api, stateDir)
    try {
      expect(await until(() => logs.length > 0)).toBe(true)
      expect(logs[0]).toMatch(/retention removed 1 idle session/)
      expect(native.readCheckpoint({ stateDir, sessionKey: 'agent:main:idle' })).toBeUndefined()
      await new Promise((r) => setTimeout(r, 200))
      expect(logs).toHaveLength(1)
    } finally {
      stop()
      stop2()
      delete process.env.OPENCLAW_CONTEXT_CLOCK_OFFSET_MS
    }
  })

  it('persists concurrent updates of different spaces without losing one, and deletes the session whole', async () => {
    const stateDir = path.join(root, 'persist')
    const key = 'agent:main:p'
    await Promise.all(Array.from({ length: 40 }, (_, i) => persistEntries(stateDir, key, [{ customType: `openclaw:test:${i}`, data: `v${i}` }])))
    const saved = await readPersisted(stateDir, key)
    expect(Object.keys(saved)).toHaveLength(40)
    await native.deleteSession({ stateDir, sessionKey: key })
    expect(await readPersisted(stateDir, key)).toEqual({})
  })
})
