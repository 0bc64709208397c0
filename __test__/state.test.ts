import { afterAll, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const native = require('../index.js')
const addon = fileURLToPath(new URL('../index.js', import.meta.url))

const roots: string[] = []
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'ctx-state-'))
  roots.push(d)
  return d
}
afterAll(() => roots.forEach((d) => rmSync(d, { recursive: true, force: true })))
const stateDirOf = (stateDir: string, key: string) => join(stateDir, 'context', 'state', native.sessionDirName(key))

describe('record calls (Layer A, 7.2)', () => {
  it('captures tools, read and modified files, failures; async and sync alike', async () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'agent:main:telegram:direct:1' }
    expect(await native.recordToolResult({ ...t, toolName: 'read', params: { path: 'src/a.ts' } })).toEqual({
      filesRead: ['src/a.ts'],
      filesModified: [],
    })
    native.recordToolResultSync({ ...t, toolName: 'edit', params: { file_path: 'src/b.ts', oldText: 'x' } })
    native.recordToolResultSync({ ...t, toolName: 'write', params: { filePath: 'out/c.json' } })
    native.recordToolResultSync({ ...t, toolName: 'bash', params: { command: 'ls' }, isError: false })
    await native.recordToolResult({ ...t, toolName: 'read', params: { paths: ['src/d.ts', 'src/a.ts'] } })
    const failed = await native.recordToolResult({
      ...t,
      toolName: 'edit',
      params: { path: 'src/e.ts' },
      isError: true,
      error: 'Could not find the exact text in src/e.ts\n  at ...',
    })
    // the failure names the call (tool and path or command) and says the first and last line of the error
    expect(failed).toEqual({ filesRead: [], filesModified: [], failure: 'edit src/e.ts: Could not find the exact text in src/e.ts … at ...' })
    native.recordToolResultSync({ ...t, toolName: 'mcp_custom', params: { path: 'gen.txt' }, access: 'write' })

    const s = native.readContextStateSync(t)
    expect(s.toolsUsed).toEqual(['write', 'bash', 'read', 'edit', 'mcp_custom'])
    expect(s.filesRead).toEqual(['src/d.ts', 'src/a.ts'])
    expect(s.filesModified).toEqual(['src/b.ts', 'out/c.json', 'gen.txt'])
    expect(s.toolFailures).toEqual(['edit src/e.ts: Could not find the exact text in src/e.ts … at ...'])
    expect(await native.readContextState(t)).toEqual(s)

    // Files are private and stamped with the writing process.
    const file = join(stateDirOf(stateDir, t.sessionKey), 'resources.json')
    const json = JSON.parse(readFileSync(file, 'utf8'))
    expect(json).toMatchObject({ schema: 'openclaw/context-state', version: 1 })
    expect(json.instance).toMatch(new RegExp(`^${process.pid}-`))
    expect(Date.parse(json.updated_at)).toBeGreaterThan(Date.now() - 60_000)
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it("reads a command's exit code: non-zero is a failure without isError (OpenClaw's exec), zero resolves it", async () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'k', toolName: 'exec', params: { command: 'npm test' } }
    const failed = await native.recordToolResult({ ...t, isError: false, exitCode: 1, error: '> pkg test\n1 failing' })
    expect(failed.failure).toBe('exec npm test: 1 failing … Command exited with code 1')
    expect(native.readContextStateSync(t).toolFailures).toEqual([failed.failure])
    expect(native.recordToolResultSync({ ...t, exitCode: 0, error: 'all passed' }).failure).toBeUndefined()
    expect(native.readContextStateSync(t).toolFailures).toEqual([])
  })

  it('rejects bad input with InvalidArg (async rejects, never throws)', async () => {
    const stateDir = fresh()
    const p = native.recordToolResult({ stateDir, sessionKey: 'k' })
    expect(p).toBeInstanceOf(Promise)
    await expect(p).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.recordToolResult({ stateDir, sessionKey: 'k', toolName: ' ' })).rejects.toMatchObject({
      code: 'InvalidArg',
    })
    expect(() => native.recordToolResultSync({ stateDir, sessionKey: 'k', toolName: 'x', access: 'rw' })).toThrow(
      expect.objectContaining({ code: 'InvalidArg' }),
    )
    expect(() => native.recordDecisionSync({ stateDir, sessionKey: 'k', what: 'x', when: 'yesterday' })).toThrow(
      /RFC 3339/,
    )
    expect(() => native.recordLearningSync({ stateDir, sessionKey: '', text: 'x' })).toThrow(
      expect.objectContaining({ code: 'InvalidArg' }),
    )
    await expect(native.recordOpenItem({ stateDir, sessionKey: 'k', text: '' })).rejects.toMatchObject({ code: 'InvalidArg' })
  })

  it('records decisions, open items and learnings with dedup, resolve and caps', async () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'caps' }
    const d1 = await native.recordDecision({ ...t, what: 'Budget hotels only', when: '2026-02-24T14:15:00Z' })
    expect(d1).toEqual({ id: 'd1', what: 'Budget hotels only', when: '2026-02-24T14:15:00Z' })
    expect(native.recordDecisionSync({ ...t, what: 'Budget hotels only' })).toEqual(d1)
    expect(native.recordOpenItemSync({ ...t, text: 'visa' })).toBe(1)
    expect(await native.recordOpenItem({ ...t, text: 'hotel' })).toBe(2)
    expect(await native.resolveOpenItem({ ...t, text: 'visa' })).toBe(true)
    expect(native.resolveOpenItemSync({ ...t, text: 'visa' })).toBe(false)
    expect(await native.recordLearning({ ...t, text: 'price-sensitive' })).toBe(1)
    for (let i = 0; i < 55; i++) native.recordDecisionSync({ ...t, what: `decision ${i}` })
    for (let i = 0; i < 105; i++) native.recordToolResultSync({ ...t, toolName: `tool_${i}`, params: { path: `f${i}` } })
    const s = native.readContextStateSync(t)
    expect(s.decisions).toHaveLength(50)
    expect(s.decisions[0].what).toBe('decision 5')
    expect(s.decisions[49]).toMatchObject({ id: 'd56', what: 'decision 54' })
    expect(s.toolsUsed).toHaveLength(100)
    expect(s.toolsUsed[0]).toBe('tool_5')
    expect(s.filesRead).toHaveLength(100)
    expect(s.openItems).toEqual(['hotel'])
    expect(s.learnings).toEqual(['price-sensitive'])

    await native.clearContextState(t)
    const empty = native.readContextStateSync(t)
    expect(empty).toEqual({ decisions: [], filesRead: [], filesModified: [], toolsUsed: [], toolFailures: [], openItems: [], learnings: [], exchanges: [] })
    // Ids keep counting after a reset.
    expect(native.recordDecisionSync({ ...t, what: 'again' }).id).toBe('d57')
  })
})

describe('recordMessages (Layer B, 7.2)', () => {
  const msg = (role: string, text: string, timestamp: number) => ({ role, content: [{ type: 'text', text }], timestamp })

  it('keeps the topic and recent exchanges and records each decision-like pattern once', async () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'layer-b' }
    const long = 'Here is the full plan with every detail. '.repeat(20) + 'Shall I use Postgres or SQLite?'
    const messages: any[] = [
      msg('user', 'Design the storage layer for the bot', 1_771_947_000_000),
      msg('assistant', long, 1_771_947_001_000),
      msg('user', 'SQLite', 1_771_947_002_000),
      { role: 'assistant', content: [{ type: 'toolCall', id: 't1', name: 'write', arguments: { path: 'db.ts' } }] },
      { role: 'toolResult', toolCallId: 't1', toolName: 'write', content: [{ type: 'text', text: 'ok' }] },
      msg('assistant', 'Done: db.ts uses SQLite.', 1_771_947_003_000),
      msg('user', '日本語でも説明してください', 1_771_947_004_000),
    ]
    const r = await native.recordMessages({ ...t, messages })
    expect(r.topic).toBe('日本語でも説明してください')
    expect(r.decisions).toEqual([
      // the decision carries the reply (a name: what was decided), the proposal it answered and the question
      { id: 'd1', what: expect.stringMatching(/^SQLite \(re: Here is the full plan with every detail\. .*; asked: Shall I use Postgres or SQLite\?\)$/), when: '2026-02-24T15:30:02.000Z' },
    ])
    // 'SQLite' answers the question: a decision, not an exchange of its own
    expect(r.exchanges.map((e: any) => e.role)).toEqual(['user', 'agent', 'agent', 'user'])
    expect(r.exchanges[1].gist.length).toBeLessThanOrEqual(120)
    // Every later context event passes the same messages again: nothing new is recorded.
    expect(native.recordMessagesSync({ ...t, messages }).decisions).toEqual([])
    await native.clearContextState(t)
    expect(native.recordMessagesSync({ ...t, messages }).decisions).toEqual([])
    for (let i = 0; i < 6; i++) messages.push(msg('user', `q${i}`, i), msg('assistant', `a${i}`, i))
    native.recordMessagesSync({ ...t, messages })
    const s = native.readContextStateSync(t)
    expect(s.topic).toBe('q5')
    expect(s.exchanges).toHaveLength(8)
    expect(s.exchanges[7]).toEqual({ role: 'agent', gist: 'a5' })
    expect(s.decisions).toEqual([])
  })
})

describe('crash safety and staleness (section 12)', () => {
  it('reads a torn state file as empty without touching it; the next write moves it aside', () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'torn' }
    native.recordDecisionSync({ ...t, what: 'keep' })
    native.recordLearningSync({ ...t, text: 'learned' })
    const dir = stateDirOf(stateDir, t.sessionKey)
    writeFileSync(join(dir, 'decisions.json'), '{"decisions":[{"id":"d1","wha')
    const s = native.readContextStateSync(t)
    expect(s.decisions).toEqual([])
    expect(s.learnings).toEqual(['learned'])
    // a read never writes (issue 12): the torn file stays until a write replaces it
    expect(readFileSync(join(dir, 'decisions.json'), 'utf8')).toBe('{"decisions":[{"id":"d1","wha')
    native.recordDecisionSync({ ...t, what: 'after' })
    const aside = readdirSync(dir).filter((n) => n.startsWith('decisions.json.corrupt-'))
    expect(aside).toHaveLength(1)
    expect(readFileSync(join(dir, aside[0]), 'utf8')).toBe('{"decisions":[{"id":"d1","wha')
    expect(native.readContextStateSync(t).decisions.map((d: any) => d.what)).toEqual(['after'])
  })

  it("bundles a crashed process's state, and discards an earlier process's state older than the latest checkpoint", async () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'agent:main:crash' }
    // A child records, then dies without any cleanup.
    await run(`
      native.recordToolResultSync({ ...t, toolName: 'read', params: { path: 'from-crashed.ts' } })
      native.recordOpenItemSync({ ...t, text: 'finish the migration' })
      process.kill(process.pid, 'SIGKILL')`, t).catch(() => {})
    let s = native.readContextStateSync(t)
    expect(s.filesRead).toEqual(['from-crashed.ts'])
    expect(s.openItems).toEqual(['finish the migration'])

    // The next checkpoint bundles it, then resets the files.
    const cp = native.writeCheckpointSync({ ...t, trigger: 'auto-80pct', tokenUsage: { inputTokens: 160_000, contextWindow: 200_000 } })
    expect(cp.written).toBe(true)
    const yaml = readFileSync(cp.path, 'utf8')
    expect(yaml).toContain('from-crashed.ts')
    expect(yaml).toContain('finish the migration')
    s = native.readContextStateSync(t)
    expect(s.filesRead).toEqual([])
    expect(s.openItems).toEqual([])

    // A state file of an earlier process, last written before that checkpoint: stale, discarded.
    const dir = stateDirOf(stateDir, t.sessionKey)
    writeFileSync(
      join(dir, 'learnings.json'),
      JSON.stringify({ schema: 'openclaw/context-state', version: 1, instance: '1-old', updated_at: '2020-01-01T00:00:00.000Z', learnings: ['stale'] }),
    )
    expect(native.readContextStateSync(t).learnings).toEqual([])
    // A record call drops the stale content before adding (it must not adopt it as its own).
    expect(native.recordLearningSync({ ...t, text: 'fresh' })).toBe(1)
    const cp2 = native.writeCheckpointSync({ ...t, trigger: 'compaction', compactionCount: 1, tokenUsage: { inputTokens: 100_000, contextWindow: 200_000 } })
    const yaml2 = readFileSync(cp2.path, 'utf8')
    expect(yaml2).toContain('fresh')
    expect(yaml2).not.toContain('stale')
  })

  it('loses nothing when 8 processes record concurrently', async () => {
    const stateDir = fresh()
    const t = { stateDir, sessionKey: 'agent:main:concurrent' }
    const per = 12 // 8 x 12 = 96 tools and files: below the caps of 100
    await Promise.all(
      Array.from({ length: 8 }, (_, p) =>
        run(
          `
          const jobs = []
          for (let i = 0; i < ${per}; i++) {
            const call = { ...t, toolName: 'tool_${p}_' + i, params: { path: 'file_${p}_' + i } }
            if (i % 2) jobs.push(native.recordToolResult(call)); else native.recordToolResultSync(call)
            if (i < 5) native.recordLearningSync({ ...t, text: 'learning ${p} ' + i })
          }
          await Promise.all(jobs)`,
          t,
        ),
      ),
    )
    const s = native.readContextStateSync(t)
    expect(s.toolsUsed).toHaveLength(8 * per)
    expect(s.filesRead).toHaveLength(8 * per)
    expect(s.learnings).toHaveLength(40)
    for (let p = 0; p < 8; p++) for (let i = 0; i < per; i++) expect(s.toolsUsed).toContain(`tool_${p}_${i}`)
    const leftovers = readdirSync(stateDirOf(stateDir, t.sessionKey)).filter((n) => n.startsWith('.tmp-') || n.includes('corrupt'))
    expect(leftovers).toEqual([])
  })

  it('refuses a symlinked session directory', () => {
    if (process.platform === 'win32') return
    const stateDir = fresh()
    const outside = fresh()
    mkdirSync(join(stateDir, 'context', 'state'), { recursive: true })
    require('node:fs').symlinkSync(outside, stateDirOf(stateDir, 'evil'))
    expect(() => native.recordLearningSync({ stateDir, sessionKey: 'evil', text: 'x' })).toThrow(
      expect.objectContaining({ code: 'UnsafePath' }),
    )
    expect(existsSync(join(outside, 'learnings.json'))).toBe(false)
  })
})

/** Runs `body` in a child Node process with `native` and `t` in scope; resolves on exit 0. */
function run(body: string, t: object): Promise<void> {
  const script = `const native = require(${JSON.stringify(addon)}); const t = ${JSON.stringify(t)};
    (async () => { ${body} })().catch((e) => { console.error(e); process.exit(1) })`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`child exited ${code ?? signal}`))))
  })
}
