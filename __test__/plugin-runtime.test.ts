// The plugin under the Claude Code runtime (plugin/runtime.ts) without OpenClaw: Claude Code's compaction
// threshold against a real Claude Code transcript, the reported context read from OpenClaw's mirrored messages,
// the budget never guessed, and the compaction counted once whether it is forecast or seen afterwards.
// `npm run test:claude-cli` runs the same in real OpenClaw turns with the real `claude`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { claudeCliWindow, claudeCodeCompactAt, isClaudeCli, lastReportedContext, nativeCompactionAfterTurn, nativeCompactionTurn, usageTokens } from '../plugin/runtime.ts'
import { readRecord } from '../plugin/state.ts'
import { nativeSettings } from './checkpoint-helpers.ts'
import { readObservationSync } from '@openclaw/context-native'

const stateDir = mkdtempSync(join(tmpdir(), 'context-native-plugin-runtime-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))
const settings = nativeSettings(stateDir)

const user = (text: string, timestamp: number) => ({ role: 'user', content: text, timestamp })
const assistant = (text: string, input: number, timestamp: number, cacheRead = 0) => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  usage: { input, output: 10, cacheRead, cacheWrite: 0, totalTokens: input + cacheRead + 10 },
  timestamp,
})

describe('plugin under claude-cli: what OpenClaw shows', () => {
  it("tells Claude Code runs by the hook's runtime id", () => {
    expect(isClaudeCli({ modelProviderId: 'claude-cli' })).toBe(true)
    expect(isClaudeCli({ modelProviderId: 'scripted' })).toBe(false)
    expect(isClaudeCli(undefined)).toBe(false)
  })

  it("puts Claude Code's threshold where a real Claude Code session compacted (200k window)", () => {
    expect(claudeCodeCompactAt(200_000)).toBe(167_000)
    // The bundled real Claude Code transcript: auto compaction with preTokens 170,251 after 164,831 reported.
    const file = join(__dirname, 'fixtures/transcripts/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl')
    const events = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const boundary = events.find((e) => e.type === 'system' && e.subtype === 'compact_boundary')
    expect(boundary.compactMetadata.preTokens).toBeGreaterThanOrEqual(claudeCodeCompactAt(200_000))
    const reported = events
      .slice(0, events.indexOf(boundary))
      .filter((e) => e.type === 'assistant' && e.message?.usage)
      .map((e) => e.message.usage.input_tokens + (e.message.usage.cache_read_input_tokens ?? 0) + (e.message.usage.cache_creation_input_tokens ?? 0))
    expect(Math.max(...reported)).toBeLessThan(claudeCodeCompactAt(200_000))
  })

  it('reads the context Claude Code last reported (input + cache) from the mirrored messages', () => {
    expect(usageTokens({ input: 10, cacheRead: 150_000, cacheWrite: 5 })).toBe(150_015)
    expect(usageTokens({ output: 3 })).toBeUndefined()
    expect(usageTokens(null)).toBeUndefined()
    const messages = [user('a', 1), assistant('b', 2_000, 2, 140_000), user('c', 3), { role: 'assistant', content: 'no usage', timestamp: 4 }]
    expect(lastReportedContext(messages)).toEqual({ tokens: 142_000, stamp: 2 })
    expect(lastReportedContext([user('a', 1)])).toBeUndefined()
  })

  it('takes the budget OpenClaw reported, else the anthropic model entry, and never guesses one', () => {
    const config = { agents: { defaults: { model: { primary: 'anthropic/claude-sonnet-5' } } }, models: { providers: { anthropic: { models: [{ id: 'claude-sonnet-5', contextWindow: 1_000_000, contextTokens: 200_000 }] } } } }
    expect(claudeCliWindow(config, { contextWindow: 1_000_000 }, { modelId: 'claude-sonnet-5' })).toBe(1_000_000)
    expect(claudeCliWindow(config, {}, { modelId: 'claude-sonnet-5' })).toBe(200_000)
    expect(claudeCliWindow({}, {}, { modelId: 'claude-sonnet-5' })).toBeUndefined()
  })
})

describe('plugin under claude-cli: its compactions', () => {
  const conversation = [user('[t1] Fix the tokenizer in src/lexer.rs.', 1), assistant('Reading src/lexer.rs.', 172_000, 2)]

  it('forecasts the compaction before the turn: one checkpoint, the restore for this turn, once', async () => {
    const sessionKey = 'agent:main:explicit:forecast'
    const below = await nativeCompactionTurn(settings, { sessionKey, messages: [user('a', 1), assistant('b', 165_000, 2)], contextWindow: 200_000, record: await readRecord(stateDir, sessionKey) })
    expect(below).toBeUndefined()
    const first = await nativeCompactionTurn(settings, { sessionKey, messages: conversation, contextWindow: 200_000, record: await readRecord(stateDir, sessionKey) })
    expect(first?.restore).toContain('[Post-compaction checkpoint restore]')
    expect(first?.restore).toContain('Fix the tokenizer')
    // the compacted messages kept as history (issue 49), the restore's last line naming them
    expect(first?.restore?.split('\n').at(-1)).toMatch(/^\[Messages #1-#2 compacted: history-1 \(\d+ B\)\. Grep all: scratchpad_read /)
    expect(readObservationSync({ stateDir, sessionKey, name: 'history', pattern: 'lexer' }).matches).toBe(2)
    const record = await readRecord(stateDir, sessionKey)
    expect(record.compactions).toBe(1)
    // The same reported usage again (a retried turn): not a second compaction.
    expect(await nativeCompactionTurn(settings, { sessionKey, messages: conversation, contextWindow: 200_000, record })).toBeUndefined()
    // Nor is it counted again after the turn, when the context Claude Code reports has dropped.
    expect(await nativeCompactionAfterTurn(settings, { sessionKey, before: conversation, reported: 30_000, contextWindow: 200_000, record })).toBe(false)
    expect((await readRecord(stateDir, sessionKey)).compactions).toBe(1)
  })

  it('a compaction inside a turn: seen from the reported context dropping, the restore left pending once', async () => {
    const sessionKey = 'agent:main:explicit:inside'
    const before = [user('[t1] Fix the tokenizer in src/lexer.rs.', 1), assistant('Working.', 150_000, 2)]
    const record = await readRecord(stateDir, sessionKey)
    // No forecast (150k is below 167k), a small drop, or a drop from a small context: nothing counted.
    expect(await nativeCompactionTurn(settings, { sessionKey, messages: before, contextWindow: 200_000, record })).toBeUndefined()
    expect(await nativeCompactionAfterTurn(settings, { sessionKey, before, reported: 120_000, contextWindow: 200_000, record })).toBe(false)
    expect(await nativeCompactionAfterTurn(settings, { sessionKey, before: [user('a', 1), assistant('b', 60_000, 2)], reported: 10_000, contextWindow: 200_000, record })).toBe(false)
    expect(await nativeCompactionAfterTurn(settings, { sessionKey, before, reported: 35_000, contextWindow: 200_000, record })).toBe(true)
    const after = await readRecord(stateDir, sessionKey)
    expect(after.compactions).toBe(1)
    expect(after.restorePending?.text).toContain('Fix the tokenizer')
    expect(await nativeCompactionAfterTurn(settings, { sessionKey, before, reported: 35_000, contextWindow: 200_000, record: after })).toBe(false)
  })

  it('leaves a restore OpenClaw\'s own compaction left pending as the only one', async () => {
    const sessionKey = 'agent:main:explicit:pending'
    const record = { ...(await readRecord(stateDir, sessionKey)), restorePending: { text: 'earlier restore', compaction: 1, at: '' } }
    const r = await nativeCompactionTurn(settings, { sessionKey, messages: conversation, contextWindow: 200_000, record })
    expect(r).toEqual({})
  })
})
