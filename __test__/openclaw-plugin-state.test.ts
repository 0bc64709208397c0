// The plugin's host-independent pieces (plugin/state.ts, tools.ts, compaction.ts) without OpenClaw: the Tool
// Search bridge seen through, the compaction provider's messages matched to the right session when several
// compact at once, the durable session record's read-modify-write, OpenClaw's housekeeping runs told from the
// session's, and the session model's window where a hook carries no model. `npm run test:real` runs them in
// OpenClaw itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { claimPending, compactionSummaryOf, currentContext } from '../plugin/compaction.ts'
import { configuredWindow, gaugeThresholds, sessionWindow } from '../plugin/gauge.ts'
import { isHousekeeping, processState, readRecord, updateRecord } from '../plugin/state.ts'
import { innerToolCall, unbridgeMessages } from '../plugin/tools.ts'

const stateDir = mkdtempSync(join(tmpdir(), 'context-native-plugin-state-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

describe('plugin: the tool_call bridge', () => {
  it('names the inner tool and its arguments, by result id or by name', () => {
    expect(innerToolCall('tool_call', { id: 'plugin:context-native:scratchpad_read', args: { scratchpad_id: 'obs_1' } })).toEqual({
      toolName: 'scratchpad_read',
      args: { scratchpad_id: 'obs_1' },
      bridged: true,
    })
    expect(innerToolCall('tool_call', { id: 'session_scratchpad', args: { action: 'set_plan', content: '1. a' } }).toolName).toBe('session_scratchpad')
    expect(innerToolCall('read', { path: 'a.ts' })).toEqual({ toolName: 'read', args: { path: 'a.ts' }, bridged: false })
    // Malformed bridge arguments: the call stays the bridge's own, nothing throws.
    expect(innerToolCall('tool_call', null)).toEqual({ toolName: 'tool_call', args: {}, bridged: true })
  })
})

describe('plugin: messages seen through the bridge for a checkpoint', () => {
  it("shows a bridged call and its result as the inner tool's, and leaves other messages as they are", () => {
    const user = { role: 'user', content: 'fix it' }
    const messages = [
      user,
      { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'tool_call', arguments: { id: 'openclaw:core:read', args: { path: 'src/a.rs' } } }] },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'tool_call', content: [{ type: 'text', text: 'x' }] },
    ]
    const out = unbridgeMessages(messages) as any[]
    expect(out[0]).toBe(user)
    expect(out[1].content[0]).toMatchObject({ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'src/a.rs' } })
    expect(out[2].toolName).toBe('read')
    expect(messages[1]).toMatchObject({ content: [{ name: 'tool_call' }] }) // the host's messages are not mutated
    const plain = [user]
    expect(unbridgeMessages(plain)).toBe(plain)
  })
})

describe("plugin: the session's current context from OpenClaw's transcript events", () => {
  const m = (id: string, text: string) => ({ type: 'message', id, message: { role: 'user', content: text } })
  it('starts after the last reset and from the entry the last compaction kept', () => {
    const events = [
      { type: 'session', id: 's' },
      m('1', 'old task'),
      m('2', 'old reply'),
      { type: 'reset', id: 'r', reason: 'reset' },
      m('3', 'new task'),
      { type: 'custom', id: 'c', customType: 'x' },
      m('4', 'kept'),
      { type: 'compaction', id: 'k', firstKeptEntryId: 'c', summary: '...' },
      m('5', 'after'),
    ]
    expect(currentContext(events).map((x: any) => x.content)).toEqual(['kept', 'after'])
    expect(currentContext(events.slice(0, 5)).map((x: any) => x.content)).toEqual(['new task'])
    expect(currentContext([])).toEqual([])
  })
})

describe('plugin: OpenClaw\'s compaction summary among a prompt build\'s messages', () => {
  it('is read from a compactionSummary message or from the user message OpenClaw makes of it', () => {
    expect(compactionSummaryOf([{ role: 'compactionSummary', summary: '## Goal\nfix src/parse.rs', tokensBefore: 1 }])).toBe('## Goal\nfix src/parse.rs')
    const framed = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\nfix src/parse.rs\n</summary>'
    expect(compactionSummaryOf([{ role: 'user', content: [{ type: 'text', text: framed }] }, { role: 'user', content: 'next' }])).toBe('\n## Goal\nfix src/parse.rs\n')
    expect(compactionSummaryOf([{ role: 'user', content: framed }])).toContain('fix src/parse.rs')
    expect(compactionSummaryOf([{ role: 'user', content: 'no summary here' }, null, 7, { role: 'assistant', content: framed }])).toBeUndefined()
    expect(compactionSummaryOf(undefined)).toBeUndefined()
  })
})

describe('plugin: the compaction provider claims the right pending compaction', () => {
  const msg = (t: number) => ({ role: 'user', content: `m${t}`, timestamp: t })
  const pending = (sessionKey: string, stamps: number[]) => ({ sessionKey, stateDir, at: Date.now(), stamps: new Set(stamps) })

  it('by the timestamps of the messages, with two sessions compacting at once', () => {
    processState().pendingCompactions = [pending('agent:main:a', [1, 2, 3]), pending('agent:main:b', [10, 11, 12])]
    expect(claimPending([msg(11), msg(12)])?.sessionKey).toBe('agent:main:b')
    expect(claimPending([msg(1), msg(2)])?.sessionKey).toBe('agent:main:a')
    expect(processState().pendingCompactions).toEqual([])
  })

  it('the only one pending when the messages carry no known timestamp; none among several', () => {
    processState().pendingCompactions = [pending('agent:main:a', [1]), pending('agent:main:b', [2])]
    expect(claimPending([msg(99)])).toBeUndefined()
    processState().pendingCompactions = [pending('agent:main:c', [5])]
    expect(claimPending([{ role: 'user', content: 'x' }])?.sessionKey).toBe('agent:main:c')
  })

  it('never one older than ten minutes', () => {
    processState().pendingCompactions = [{ ...pending('agent:main:old', [7]), at: Date.now() - 11 * 60_000 }]
    expect(claimPending([msg(7)])).toBeUndefined()
  })
})

describe('plugin: the durable session record', () => {
  it('concurrent updates in one process all land (one read-modify-write at a time)', async () => {
    const key = 'agent:main:record'
    await Promise.all(Array.from({ length: 20 }, () => updateRecord(stateDir, key, (r) => void r.compactionSerial++)))
    const r = await readRecord(stateDir, key)
    expect(r.compactionSerial).toBe(20)
    expect(r.compactions).toBe(0)
  })

  it('an absent record reads as empty', async () => {
    expect(await readRecord(stateDir, 'agent:main:none')).toEqual({ compactions: 0, compactionSerial: 0 })
  })
})

describe('plugin: the gauge before OpenClaw compacts', () => {
  const defaults = { gaugeAt: 0.7, checkpointAt: 0.8 }
  it('keeps 70 % / 80 % where OpenClaw compacts later (128k: 84 %, 200k: 90 %)', () => {
    expect(gaugeThresholds(128_000, defaults)).toEqual(defaults)
    expect(gaugeThresholds(200_000, defaults)).toEqual(defaults)
  })
  it("moves them below OpenClaw's threshold on smaller windows (100k: 80 %, 32k: 75 %)", () => {
    const at100 = gaugeThresholds(100_000, defaults)
    expect(at100.checkpointAt).toBeCloseTo(0.76)
    expect(at100.gaugeAt).toBeCloseTo(0.66)
    const at32 = gaugeThresholds(32_000, defaults)
    expect(at32.checkpointAt).toBeCloseTo(0.71)
    expect(at32.checkpointAt * 32_000).toBeLessThan(32_000 - 8_000)
  })
  it("reads the model's window from OpenClaw's config: the run's model, else the primary", () => {
    const config = {
      agents: { defaults: { model: { primary: 'local/small' } } },
      models: { providers: { local: { models: [{ id: 'small', contextWindow: 32_768 }, { id: 'capped', contextWindow: 200_000, contextTokens: 100_000 }] } } },
    }
    expect(configuredWindow(config, 'local', 'capped')).toBe(100_000)
    expect(configuredWindow(config)).toBe(32_768)
    expect(configuredWindow(config, 'other', 'x')).toBeUndefined()
    expect(configuredWindow({})).toBeUndefined()
  })
  // OpenClaw's compaction hooks carry no model: a session on another model than the default (`--model`) is
  // checkpointed against its own model's window (the one its runs reported), not the default model's.
  it("the session's model's window: the run's budget, the run's model, the reported one, then the default's", () => {
    const config = {
      agents: { defaults: { model: { primary: 'p/m128' } } },
      models: { providers: { p: { models: [{ id: 'm128', contextWindow: 128_000 }, { id: 'm200', contextWindow: 200_000 }] } } },
    }
    const reported = { contextWindow: 200_000 }
    expect(sessionWindow(config, reported)).toBe(200_000) // a compaction hook: no model, the record wins over the default
    expect(sessionWindow(config, {})).toBe(128_000) // nothing reported yet: the default model's
    expect(sessionWindow(config, { contextWindow: 128_000 }, { modelProviderId: 'p', modelId: 'm200' })).toBe(200_000) // the run's model first
    expect(sessionWindow(config, reported, { contextTokenBudget: 150_000, modelProviderId: 'p', modelId: 'm200' })).toBe(150_000) // the budget above all
    expect(sessionWindow(config, reported, { modelProviderId: 'other', modelId: 'x' })).toBe(200_000) // a model the config does not list
    expect(sessionWindow({}, {})).toBeUndefined()
  })
})

describe("plugin: OpenClaw's housekeeping runs (the memory plugin's pre-compaction flush)", () => {
  it("a run with trigger 'memory' is housekeeping; its run id and session key tell the hooks that carry no trigger", () => {
    const flush = { trigger: 'memory', runId: 'flush-run-1', sessionKey: 'agent:main:internal-session-effects:flush-run-1-0123456789abcdef' }
    expect(isHousekeeping({ runId: flush.runId, sessionKey: flush.sessionKey })).toBe(false) // not seen yet
    expect(isHousekeeping(flush)).toBe(true) // before_prompt_build / llm_output
    expect(isHousekeeping({ runId: flush.runId, sessionKey: flush.sessionKey })).toBe(true) // the tool-result middleware
    expect(isHousekeeping({ sessionKey: flush.sessionKey })).toBe(true) // before/after_compaction, session cleanup
    expect(isHousekeeping({ runId: flush.runId })).toBe(true)
  })
  it("the session's own runs are not: user, manual, overflow, cron and heartbeat triggers, or none", () => {
    const key = 'agent:main:explicit:real'
    for (const trigger of ['user', 'manual', 'overflow', 'cron', 'heartbeat', undefined]) {
      expect(isHousekeeping({ trigger, runId: `run-${trigger}`, sessionKey: key })).toBe(false)
    }
    expect(isHousekeeping({ sessionKey: key })).toBe(false)
    expect(isHousekeeping({})).toBe(false)
  })
  it('remembers a bounded number of runs, the oldest forgotten first', () => {
    const first = { trigger: 'memory', runId: 'bounded-0', sessionKey: 'agent:main:internal-session-effects:bounded-0' }
    isHousekeeping(first)
    for (let i = 1; i <= 300; i++) isHousekeeping({ trigger: 'memory', runId: `bounded-${i}`, sessionKey: `agent:main:internal-session-effects:bounded-${i}` })
    expect(processState().housekeeping.size).toBeLessThanOrEqual(512)
    expect(isHousekeeping({ sessionKey: first.sessionKey })).toBe(false)
    expect(isHousekeeping({ sessionKey: 'agent:main:internal-session-effects:bounded-300' })).toBe(true)
  })
})
