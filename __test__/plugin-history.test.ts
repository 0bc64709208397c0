// The compacted conversation kept (issue 49), plugin side: the compaction hooks of plugin/compaction.ts driven as
// OpenClaw drives them (before_compaction with the session's messages, after_compaction) on a fake plugin API, so
// that the history entry is written and the pending restore ends with its line; no line for a model that is not
// sent scratchpad_read; the restore rendered again after OpenClaw's summary keeps it; a failing write never breaks
// the compaction. `npm run test:real` runs the same in OpenClaw itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { countTokens, listObservations, readObservation } from '@openclaw/context-native'
import { registerCompaction, restoreAfterSummary } from '../plugin/compaction.ts'
import { budgetBeside, keepHistory, modelCanRead, withHistoryLine } from '../plugin/history.ts'
import { noteRunTools, processState, readRecord, updateRecord } from '../plugin/state.ts'

const stateDir = mkdtempSync(join(tmpdir(), 'context-native-plugin-history-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

const T = Date.parse('2026-12-06T07:31:00Z')
/** A session of `n` turns: the user's request, a call, its result (turn 2's result holds the port). */
const session = (n: number) =>
  Array.from({ length: n }, (_, i) => [
    { role: 'user', content: `[t${i}] step ${i}: fix the staging API`, timestamp: T + i * 60_000 },
    { role: 'assistant', content: [{ type: 'toolCall', id: `c${i}`, name: 'exec', arguments: { command: `curl localhost:${i === 2 ? 48213 : 8080}` } }], timestamp: T + i * 60_000 + 1 },
    { role: 'toolResult', toolCallId: `c${i}`, toolName: 'exec', content: [{ type: 'text', text: i === 2 ? 'curl: (7) Failed to connect to localhost port 48213' : 'ok' }], timestamp: T + i * 60_000 + 2 },
  ]).flat()

type Hook = (event: Record<string, unknown>, ctx: Record<string, unknown>) => Promise<void>
/** A fake plugin API with the compaction hooks registered; `warnings` collects what the plugin logs. */
function compactionApi(history: { enabled?: boolean; readable?: boolean; quotaBytes?: number } = {}) {
  const hooks = new Map<string, Hook>()
  const warnings: string[] = []
  const api = {
    config: {},
    logger: { warn: (m: string) => warnings.push(m), info: () => {}, error: () => {}, debug: () => {} },
    on: (name: string, fn: Hook) => hooks.set(name, fn),
    registerCompactionProvider: () => {},
  }
  registerCompaction(api as never, {
    stateDir,
    checkpoints: true,
    scratchpad: false,
    restoreMaxTokens: 800,
    mode: 'default',
    replaceMaxTokens: 2000,
    nudgeAfterCompaction: 0,
    contextWindow: () => 128_000,
    history: { stateDir, enabled: true, readable: true, quotaBytes: 512 * 1024 * 1024, ...history },
  })
  /** One compaction of `sessionKey` over `messages`, as OpenClaw runs its hooks. */
  const compact = async (sessionKey: string, messages: unknown[], runId?: string) => {
    processState().pendingCompactions = []
    await hooks.get('before_compaction')!({ messages, tokenCount: 100_000 }, { sessionKey, sessionId: 's1', ...(runId ? { runId } : {}) })
    await hooks.get('after_compaction')!({ compactedCount: messages.length }, { sessionKey, sessionId: 's1', ...(runId ? { runId } : {}) })
    return (await readRecord(stateDir, sessionKey)).restorePending
  }
  return { compact, warnings }
}

describe('plugin: the compacted messages kept as history (issue 49)', () => {
  it('a compaction writes history-1 and the pending restore ends with its line; the grep finds the compacted value', async () => {
    const { compact, warnings } = compactionApi()
    const pending = await compact('agent:main:h1', session(4))
    expect(warnings).toEqual([])
    const last = pending!.text.trimEnd().split('\n').at(-1)!
    expect(last).toMatch(/^\[Messages #1-#12 compacted: history-1 \(\d+ B\)\. Grep all: scratchpad_read \{"name":"history","pattern":"<regex>"\}\]$/)
    expect(pending!.historyLine).toBe(last)
    expect(countTokens(last)).toBeLessThanOrEqual(40)
    // the restore and its line stay within the restore's budget
    expect(countTokens(pending!.text)).toBeLessThanOrEqual(800)
    const r = await readObservation({ stateDir, sessionKey: 'agent:main:h1', name: 'history', pattern: '48213' })
    expect(r.content).toContain(':[#8 agent 2026-12-06T07:33Z] call exec {"command":"curl localhost:48213"}')
    expect(r.content).toContain(':[#9 tool exec 2026-12-06T07:33Z] curl: (7) Failed to connect to localhost port 48213')
    expect(r.matches).toBe(2)
  })

  it('a second compaction adds only the messages the first did not hold, numbered on', async () => {
    const { compact } = compactionApi()
    await compact('agent:main:h2', session(3))
    const pending = await compact('agent:main:h2', session(5))
    expect(pending!.historyLine).toMatch(/^\[Messages #10-#15 compacted: history-2 /)
    const names = (await listObservations({ stateDir, sessionKey: 'agent:main:h2' })).map((e) => e.name).sort()
    expect(names).toEqual(['context-native-history', 'context-native-session', 'history-1', 'history-2'])
    const r = await readObservation({ stateDir, sessionKey: 'agent:main:h2', name: 'history', pattern: 'step \\d:' })
    expect(r.matches).toBe(5)
  })

  it("no line for a run whose model is not sent scratchpad_read; the entry is kept all the same", async () => {
    const { compact } = compactionApi()
    noteRunTools('run-minimal', [{ name: 'read' }, { name: 'exec' }])
    const pending = await compact('agent:main:h3', session(3), 'run-minimal')
    expect(pending!.text).not.toContain('history')
    expect(pending!.historyLine).toBeUndefined()
    expect((await listObservations({ stateDir, sessionKey: 'agent:main:h3' })).some((e) => e.name === 'history-1')).toBe(true)
  })

  it("whether the model can read: the run's tools, else the last run's evidence, else whether the tool is registered", async () => {
    const s = { stateDir, enabled: true, readable: true, quotaBytes: 1 << 20 }
    noteRunTools('run-read', [{ name: 'scratchpad_read' }])
    expect(modelCanRead(s, 'run-read', { compactions: 0, compactionSerial: 0 })).toBe(true)
    expect(modelCanRead(s, 'run-unknown', { compactions: 0, compactionSerial: 0, evidence: { run: { at: '', read: false, scratchpad: true } } })).toBe(false)
    expect(modelCanRead(s, undefined, { compactions: 0, compactionSerial: 0 })).toBe(true)
    expect(modelCanRead({ ...s, readable: false }, 'run-read', { compactions: 0, compactionSerial: 0 })).toBe(false)
  })

  it('history off: nothing kept, no line', async () => {
    const { compact } = compactionApi({ enabled: false })
    const pending = await compact('agent:main:h4', session(3))
    expect(pending!.historyLine).toBeUndefined()
    expect((await listObservations({ stateDir, sessionKey: 'agent:main:h4' })).some((e) => e.name.startsWith('history'))).toBe(false)
  })

  it('a write that fails (a quota live entries fill) is warned once; the compaction and its restore go on', async () => {
    const { compact, warnings } = compactionApi({ quotaBytes: 1 })
    const pending = await compact('agent:main:h5', session(3))
    expect(pending!.text).toContain('[Post-compaction checkpoint restore]')
    expect(pending!.historyLine).toBeUndefined()
    expect(warnings.join('\n')).toMatch(/keeping the compacted messages failed \(TooLarge\)/)
    expect(await keepHistory({ stateDir, enabled: true, readable: true, quotaBytes: 1 }, 'agent:main:h5', session(1), 1, { warn: () => {} })).toBeUndefined()
  })

  it("the restore rendered again after OpenClaw's summary keeps the line at its end, within the budget", async () => {
    const { compact } = compactionApi()
    const pending = await compact('agent:main:h6', session(4))
    const messages = [{ role: 'compactionSummary', summary: 'The user works on the staging API.' }, { role: 'user', content: 'go on' }]
    const again = restoreAfterSummary(stateDir, 'agent:main:h6', pending!, messages, 800)
    expect(again.trimEnd().split('\n').at(-1)).toBe(pending!.historyLine)
    expect(countTokens(again)).toBeLessThanOrEqual(800)
    await updateRecord(stateDir, 'agent:main:h6', (r) => void delete r.restorePending)
  })

  it('the line helpers: the budget leaves room for the line; no line leaves the text as it is', () => {
    const line = '[Messages #1-#3 compacted: history-1 (1 KB). Grep all: scratchpad_read {"name":"history","pattern":"<regex>"}]'
    expect(budgetBeside(800, line)).toBe(800 - countTokens(line) - 1)
    expect(budgetBeside(800, undefined)).toBe(800)
    expect(withHistoryLine('restore', line)).toBe(`restore\n${line}`)
    expect(withHistoryLine('restore', undefined)).toBe('restore')
  })
})
