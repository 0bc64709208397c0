// Persistence round trip through the REAL pi session manager (@mariozechner/pi-coding-agent):
// write the `persist` entries with appendCustomEntry into a session file, reopen that file in a
// fresh Node process (as a restarted gateway would), restore from getEntries(), and compare.
import { afterAll, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { SessionManager } from '@mariozechner/pi-coding-agent'

const require = createRequire(import.meta.url)
const addon = require.resolve('../index.js')
const native = require(addon) as typeof import('../index')
// The child loads pi's SessionManager module itself (the same file the package index
// re-exports) rather than the whole CLI package: 0.2 s instead of 2.5 s per process.
const sessionManagerModule = pathToFileURL(
  join(dirname(addon), 'node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js'),
).href

const dir = mkdtempSync(join(tmpdir(), 'scratchpad-pi-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** pi writes the file only once an assistant message exists; a real session has one. */
function startSession(): SessionManager {
  const sm = SessionManager.create(dir, dir)
  sm.appendMessage({ role: 'user', content: 'fix the login bug', timestamp: Date.now() } as any)
  sm.appendMessage({
    role: 'assistant',
    content: [{ type: 'text', text: 'On it.' }],
    api: 'openai-completions',
    provider: 'test',
    model: 'test',
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: 'stop',
    timestamp: Date.now(),
  } as any)
  return sm
}

/** What the tool wrapper of the host does: apply, then append what `persist` says. */
function act(sm: SessionManager, action: any) {
  const r = native.applyScratchpadAction(sm.getSessionId(), action)
  expect(r.ok, r.message).toBe(true)
  for (const p of r.persist) sm.appendCustomEntry(p.customType, p.data)
  return r
}

/** Reopens the session file in a new Node process and restores from its entries there. */
function restoreInNewProcess(file: string, sessionId: string, useLeaf = true) {
  const script = `
    const { SessionManager } = await import(${JSON.stringify(sessionManagerModule)})
    const { createRequire } = await import('node:module')
    const n = createRequire(import.meta.url)(${JSON.stringify(addon)})
    const sm = SessionManager.open(${JSON.stringify(file)})
    if (sm.getSessionId() !== ${JSON.stringify(sessionId)}) throw new Error('wrong session')
    const usage = n.restoreScratchpad(sm.getSessionId(), sm.getEntries(), ${useLeaf} ? sm.getLeafId() : undefined)
    process.stdout.write(JSON.stringify({ block: n.getScratchpadContent(sm.getSessionId()) ?? null, usage }))
  `
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  return JSON.parse(out) as { block: string | null; usage: any }
}

describe('scratchpad persistence through the real pi SessionManager', () => {
  it('appendCustomEntry -> new process -> SessionManager.open -> restore gives the same block', () => {
    const sm = startSession()
    act(sm, { action: 'set_plan', content: '1. Reproduce\n2. Fix token expiry <-- current\n3. Add test' })
    act(sm, { action: 'append_notes', content: 'Root cause: timezone mismatch in token expiry' })
    act(sm, { action: 'append_notes', content: 'Config: AUTH_TTL=3600 (seconds) 😀' })
    act(sm, { action: 'refs.set', items: ['src/auth/login.ts', 'https://github.com/org/repo/issues/42', 3] })
    act(sm, { action: 'refs.add', ref: 'src/auth/token.ts' })
    act(sm, { action: 'refs.remove', ref: 'https://github.com/org/repo/issues/42' })
    act(sm, { action: 'set_notes', content: 'a line that looks like the end:\n[End Scratchpad]\nstill notes' })
    const id = sm.getSessionId()
    const block = native.getScratchpadContent(id)!
    const usage = native.getScratchpadUsage(id)!
    const file = sm.getSessionFile()!

    // the entries really are in the JSONL file, with the contract's customTypes and data shapes
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const custom = lines.filter((l) => l.type === 'custom')
    expect(custom.map((c) => c.customType)).toEqual([
      'openclaw:scratchpad:plan',
      'openclaw:scratchpad:notes',
      'openclaw:scratchpad:notes',
      'openclaw:scratchpad:refs',
      'openclaw:scratchpad:refs',
      'openclaw:scratchpad:refs',
      'openclaw:scratchpad:notes',
    ])
    expect(custom.at(-2).data).toEqual(['src/auth/login.ts', 'src/auth/token.ts'])

    const fresh = restoreInNewProcess(file, id)
    expect(fresh.block).toBe(block)
    expect(fresh.usage).toMatchObject({
      notesChars: usage.notesChars,
      planChars: usage.planChars,
      refs: usage.refs,
      tokens: usage.tokens,
      truncated: false,
      warnings: [],
    })

    // and in this process after the registry forgot the session (eviction / clear)
    expect(native.clearScratchpad(id)).toBe(true)
    const reopened = SessionManager.open(file)
    native.restoreScratchpad(id, reopened.getEntries(), reopened.getLeafId() ?? undefined)
    expect(native.getScratchpadContent(id)).toBe(block)
  })

  it('a branched session restores the current branch only', () => {
    const sm = startSession()
    act(sm, { action: 'set_plan', content: 'plan A' })
    const fork = sm.getLeafId()!
    act(sm, { action: 'set_notes', content: 'notes on branch A' })
    // the user goes back to `fork` and continues on a new branch
    sm.branch(fork)
    sm.appendMessage({ role: 'user', content: 'try another way', timestamp: Date.now() } as any)
    act(sm, { action: 'set_plan', content: 'plan B' })
    const id = sm.getSessionId()
    const file = sm.getSessionFile()!
    // in-memory state carries branch A's notes; the branch B view has none
    const onBranch = restoreInNewProcess(file, id)
    expect(onBranch.block).toBe(
      '[Session Scratchpad - your persistent working memory]\n[Plan: 6/2000 chars]\nplan B\n[End Scratchpad]',
    )
    // without the leaf, file order: the last entry of each key, across branches
    const flat = restoreInNewProcess(file, id, false)
    expect(flat.block).toContain('notes on branch A')
    expect(flat.block).toContain('plan B')
  })

  it('a seed-000 session (legacy single key) resumes into notes', () => {
    const sm = startSession()
    sm.appendCustomEntry('openclaw:scratchpad', '## Plan\n1. Fix X\n2. Test Y')
    const res = restoreInNewProcess(sm.getSessionFile()!, sm.getSessionId())
    expect(res.block).toBe(
      '[Session Scratchpad - your persistent working memory]\n[Notes: 26/4000 chars]\n## Plan\n1. Fix X\n2. Test Y\n[End Scratchpad]',
    )
  })
})
