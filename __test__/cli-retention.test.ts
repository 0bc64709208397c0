// `openclaw-context gc` and `openclaw-context delete` (issue 23), run as a user runs them.
import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const native = createRequire(import.meta.url)('../index.js')
const bin = path.join(__dirname, '..', 'bin', 'openclaw-context.mjs')
const root = mkdtempSync(path.join(os.tmpdir(), 'cli-retention-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const DAY = 86_400_000

function cli(args: string[], offsetDays = 0) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, OPENCLAW_CONTEXT_CLOCK_OFFSET_MS: String(offsetDays * DAY) },
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

async function session(stateDir: string, sessionKey: string) {
  await native.writeCheckpoint({ stateDir, sessionKey, trigger: 'compaction', tokenUsage: { inputTokens: 1000, contextWindow: 200_000 } })
  await native.writeObservation({ stateDir, sessionKey, name: 'log', content: 'z'.repeat(50_000) })
}

describe('openclaw-context gc / delete', () => {
  it('gc --dry-run reports idle sessions by key and removes nothing; gc removes them', async () => {
    const stateDir = path.join(root, 'gc')
    await session(stateDir, 'agent:main:old')
    const dry = cli(['gc', '--dry-run', '--json', stateDir], 31)
    expect(dry.code).toBe(0)
    const report = JSON.parse(dry.out)
    expect(report.dryRun).toBe(true)
    expect(report.removedSessions.map((s: { sessionKey: string }) => s.sessionKey)).toEqual(['agent:main:old'])
    expect(native.readCheckpoint({ stateDir, sessionKey: 'agent:main:old' })).toBeDefined()
    // Today the session is active: kept.
    expect(cli(['gc', stateDir]).out).toMatch(/removed 0 idle session\(s\)[\s\S]*kept 1 active/)
    const run = cli(['gc', '--idle-days', '30', stateDir], 31)
    expect(run.code).toBe(0)
    expect(run.out).toMatch(/removed 1 idle session\(s\)/)
    expect(run.out).toContain('agent:main:old')
    expect(native.readCheckpoint({ stateDir, sessionKey: 'agent:main:old' })).toBeUndefined()
  })

  it("gc --dry-run and inspect show each session's history (the compacted messages kept); gc never removes it from an active session", async () => {
    const stateDir = path.join(root, 'history')
    await session(stateDir, 'agent:main:h')
    const messages = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}: ${'words '.repeat(50)}`, timestamp: 1_800_000_000_000 + i }))
    const w = await native.writeHistory({ stateDir, sessionKey: 'agent:main:h', messages })
    const dry = cli(['gc', '--dry-run', stateDir])
    expect(dry.code).toBe(0)
    expect(dry.out).toMatch(/history \(compacted messages\) per session:\n\s+session\s+entries\s+size\n\s+agent:main:h\s+1\s+\d+\.\d KiB\s+kept/)
    const json = JSON.parse(cli(['gc', '--dry-run', '--json', stateDir], 31).out)
    expect(json.history).toEqual([{ dir: native.sessionDirName('agent:main:h'), sessionKey: 'agent:main:h', entries: 1, bytes: w.sizeBytes, removed: true }])
    // a gc with a quota the history alone exceeds: the parked log goes, the history stays
    await native.gcStateDir({ stateDir, quotaBytes: 1000 })
    expect((await native.historySummary({ stateDir, sessionKey: 'agent:main:h' })).bytes).toBe(w.sizeBytes)
    const inspect = cli(['inspect', stateDir, 'agent:main:h'])
    expect(inspect.out).toMatch(new RegExp(`history \\(compacted messages, scratchpad_read "history"\\): 1 entries, ${w.sizeBytes.toLocaleString('en-US')} bytes of them`))
  })

  it('delete --session removes one session by key; a bad call is a usage error', async () => {
    const stateDir = path.join(root, 'delete')
    await session(stateDir, 'agent:main:a')
    await session(stateDir, 'agent:main:b')
    const r = cli(['delete', '--session', 'agent:main:a', '--json', stateDir])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ existed: true, sessionKey: 'agent:main:a' })
    expect(native.readCheckpoint({ stateDir, sessionKey: 'agent:main:a' })).toBeUndefined()
    expect(native.readCheckpoint({ stateDir, sessionKey: 'agent:main:b' })).toBeDefined()
    expect(cli(['delete', '--session', 'agent:main:a', stateDir]).out).toContain('has nothing')
    const bad = cli(['delete', stateDir])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('--session')
    expect(cli(['gc', '--idle-days', 'soon', stateDir]).code).toBe(2)
  })
})
