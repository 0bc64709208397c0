// The plugin under OpenClaw's Claude Code runtime (`agentRuntime.id: "claude-cli"`), measured with OpenClaw
// 2026.9.6 and @anthropic-ai/claude-code 2.1.332 (scripts/test-claude-cli.mjs, docs/plugin.md "Under the
// claude-cli runtime").
//
// What OpenClaw gives a plugin there: before_prompt_build runs in the CLI run (ctx.modelProviderId "claude-cli",
// no contextTokenBudget) with OpenClaw's mirror of the conversation, whose assistant messages carry the usage
// Claude Code reported for its last model call; its prependContext reaches Claude Code as a UserPromptSubmit hook
// attachment; llm_output carries the run's contextTokenBudget (also Claude Code's CLAUDE_CODE_AUTO_COMPACT_WINDOW).
// Claude Code compacts by itself, at the start of a turn, before the turn's first model call, when the usage it
// last reported is past its threshold; it fires no OpenClaw compaction hook, and the turn's hook attachment is
// carried into the first request after its compaction (measured). So the compaction is known in advance from
// the reported usage: the checkpoint is written from the mirrored messages and the restore goes into that
// same turn's prepend, once per compaction.
import { renderCheckpoint, writeCheckpoint } from '@openclaw/context-native'
import { configuredWindow } from './gauge.ts'
import { unbridgeMessages } from './tools.ts'
import { obj, updateRecord, type SessionRecord } from './state.ts'
import { budgetBeside, keepHistory, modelCanRead, withHistoryLine, type HistorySettings } from './history.ts'
import type { Span } from './claude-code.ts'

/** The runtime id OpenClaw puts in `ctx.modelProviderId` of a Claude Code run's hooks. */
export const CLAUDE_CLI_RUNTIME = 'claude-cli'

/** The ids of the runs seen on the Claude Code runtime in this process (process-wide: every registration shares it). */
function claudeCliRuns(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>
  const key = Symbol.for('@openclaw/context-native/claude-cli-runs')
  return (g[key] ??= new Set())
}

/** Most run ids remembered (a gateway runs for weeks); the oldest are forgotten first. */
const MAX_CLAUDE_CLI_RUNS = 256

/** Notes that `runId` runs on the Claude Code runtime (from a prompt-build hook, which names the runtime). */
export function noteClaudeCliRun(runId: string | undefined): void {
  if (!runId) return
  const runs = claudeCliRuns()
  runs.add(runId)
  if (runs.size > MAX_CLAUDE_CLI_RUNS) runs.delete(runs.values().next().value as string)
}

/** Whether `runId` was noted as a Claude Code run. */
export function isClaudeCliRun(runId: string | undefined): boolean {
  return !!runId && claudeCliRuns().has(runId)
}

/** The MCP prefix Claude Code gives OpenClaw's tools (`mcp__openclaw__session_scratchpad`). */
const CLAUDE_CLI_TOOL_PREFIX = 'mcp__openclaw__'

/** An OpenClaw tool's own name from the name Claude Code calls it by (`mcp__openclaw__session_scratchpad`); any other name as it is. */
export function ownToolName<T>(name: T): T | string {
  return typeof name === 'string' && name.startsWith(CLAUDE_CLI_TOOL_PREFIX) ? name.slice(CLAUDE_CLI_TOOL_PREFIX.length) : name
}

/** Whether a hook's context is a run on the Claude Code runtime. */
export function isClaudeCli(ctx: { modelProviderId?: string } | undefined): boolean {
  return ctx?.modelProviderId === CLAUDE_CLI_RUNTIME
}

/**
 * The budget of a Claude Code run, else `undefined` (then no gauge and no compaction forecast: not a guess): the
 * one OpenClaw last reported for the session's runs (`llm_output`), the `anthropic` model's config entry
 * (`contextTokens`, else `contextWindow`; the hook names the runtime, not the provider), the default model's.
 */
export function claudeCliWindow(config: unknown, record: { contextWindow?: number }, ctx: { modelId?: string }): number | undefined {
  return record.contextWindow ?? (ctx.modelId ? configuredWindow(config, 'anthropic', ctx.modelId) : undefined) ?? configuredWindow(config)
}

/**
 * Where Claude Code 2.x compacts on its own, in tokens of its reported context: its window (OpenClaw passes the
 * run's budget as CLAUDE_CODE_AUTO_COMPACT_WINDOW) less the 20,000 tokens it keeps for the summary's output and
 * a 13,000-token buffer. Measured with 2.1.332 and a 200k budget: 165k reported kept the context, 172k compacted it.
 */
export function claudeCodeCompactAt(contextWindow: number): number {
  return contextWindow - Math.min(20_000, contextWindow / 4) - 13_000
}

/** The context a usage block reports (input + cache read + cache write), else `undefined`. */
export function usageTokens(usage: unknown): number | undefined {
  const u = obj(usage)
  const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : 0)
  const tokens = n('input') + n('cacheRead') + n('cacheWrite')
  return tokens > 0 ? tokens : undefined
}

/** The context Claude Code last reported (its last call's usage on the mirrored messages) and that message's time. */
export function lastReportedContext(messages: unknown[]): { tokens: number; stamp: number } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = obj(messages[i])
    if (m.role !== 'assistant') continue
    const tokens = usageTokens(m.usage)
    if (tokens === undefined) continue
    const t = m.timestamp
    const stamp = typeof t === 'number' ? t : typeof t === 'string' ? Date.parse(t) : i
    return { tokens, stamp }
  }
  return undefined
}

export interface NativeCompactionSettings {
  stateDir: string
  checkpoints: boolean
  restoreMaxTokens: number
  /** The compacted messages kept as the session's history (history.ts). */
  history: HistorySettings
  /** Where the plugin's warnings go (a failed history write is warned once). */
  logger: { warn: (m: string) => void }
}

/**
 * Before a Claude Code turn: when the context Claude Code last reported is past its own compaction threshold, it
 * compacts before this turn's first model call. Writes the compaction checkpoint from the mirrored messages,
 * counts the compaction in the record and returns the restore for this turn's prepend. Once per reported usage
 * (the message's time is kept in the record). `undefined` when no compaction is coming.
 */
export async function nativeCompactionTurn(
  s: NativeCompactionSettings,
  input: { sessionKey: string; agentId?: string; messages: unknown[]; transcript?: Transcript; contextWindow: number; record: SessionRecord },
): Promise<{ restore?: string } | undefined> {
  const last = lastReportedContext(input.messages)
  if (!last || last.tokens < claudeCodeCompactAt(input.contextWindow)) return undefined
  if (input.record.nativeCompactionStamp === last.stamp) return undefined
  // OpenClaw's own compaction of its mirror may have run after the last turn and left its restore pending:
  // that one is prepended (index.ts), not a second one.
  const restore = await checkpointNative(s, { ...input, span: 'open', last, restore: !input.record.restorePending, delivered: true })
  return restore ? { restore } : {}
}

/**
 * After a Claude Code turn: Claude Code also compacts between the calls of a turn (its threshold is checked before
 * each call), which no hook announces. The context it reported at the turn's end dropping below half of the one
 * reported before the turn (itself at least half the budget) is that compaction: the checkpoint is written from
 * the messages before the turn and the restore left pending for the next prompt build, once. Returns whether it
 * counted one. A compaction forecast for this turn (nativeCompactionTurn) is not counted again.
 */
export async function nativeCompactionAfterTurn(
  s: NativeCompactionSettings,
  input: { sessionKey: string; agentId?: string; before: unknown[]; transcript?: Transcript; reported: number; contextWindow: number; record: SessionRecord },
): Promise<boolean> {
  const last = lastReportedContext(input.before)
  if (!last || input.record.nativeCompactionStamp === last.stamp) return false
  if (last.tokens < input.contextWindow / 2 || input.reported >= last.tokens / 2) return false
  const restore = await checkpointNative(s, { ...input, messages: input.before, span: 'last', last, restore: !input.record.restorePending, delivered: false })
  if (restore) await updateRecord(s.stateDir, input.sessionKey, (r) => void (r.restorePending = { text: restore, compaction: r.compactions, at: new Date().toISOString() }))
  return true
}

/**
 * A span of the session's Claude Code transcript as pi messages (claude-code.ts), `undefined` when it cannot be
 * read: then the checkpoint reads OpenClaw's mirror.
 */
export type Transcript = (span: Span) => Promise<unknown[] | undefined>

/**
 * Counts a native compaction in the record and, checkpoints on, writes its checkpoint (from the `span` of Claude
 * Code's transcript that the compaction removes, else from the mirrored messages); the restore text when asked.
 */
async function checkpointNative(
  s: NativeCompactionSettings,
  input: { sessionKey: string; agentId?: string; messages: unknown[]; transcript?: Transcript; span: Span; contextWindow: number; last: { tokens: number; stamp: number }; restore: boolean; delivered: boolean },
): Promise<string | undefined> {
  const transcript = s.checkpoints && input.restore ? await input.transcript?.(input.span).catch(() => undefined) : undefined
  const record = await updateRecord(s.stateDir, input.sessionKey, (r) => {
    r.compactions++
    r.compactionSerial++
    r.nativeCompactionStamp = input.last.stamp
    r.checkpointedEpoch = undefined
    // For the doctor: the checkpoint this compaction gets, and its restore (prepended to this turn when `delivered`).
    const at = new Date().toISOString()
    const e = (r.evidence ??= {})
    if (s.checkpoints && input.restore) e.checkpoint = { at, trigger: 'compaction', source: transcript ? "Claude Code's compaction, its transcript" : "Claude Code's compaction, OpenClaw's mirror", messages: (transcript ?? input.messages).length }
    e.compaction = { at, n: r.compactions, restore: s.checkpoints ? 'pending' : 'disabled' }
    if (s.checkpoints && input.restore && input.delivered) e.restoreDelivered = { at, compaction: r.compactions }
  })
  if (!s.checkpoints || !input.restore) return undefined
  await writeCheckpoint({
    stateDir: s.stateDir,
    sessionKey: input.sessionKey,
    trigger: 'compaction',
    tokenUsage: { inputTokens: input.last.tokens, contextWindow: input.contextWindow, utilization: input.last.tokens / input.contextWindow },
    compactionCount: record.compactionSerial,
    ...(input.agentId ? { agentId: input.agentId } : {}),
    messages: unbridgeMessages(transcript ?? input.messages),
  })
  // The same messages kept as history (issue 49), the tool results Claude Code's transcript holds included: this
  // runtime parks nothing, so they are what the model can grep after the compaction. The restore's last line names
  // the entry, as after OpenClaw's compactions.
  const kept = await keepHistory(s.history, input.sessionKey, transcript ?? input.messages, record.compactionSerial, s.logger)
  const line = kept && modelCanRead(s.history, undefined, record) ? kept : undefined
  const restore = renderCheckpoint({ stateDir: s.stateDir, sessionKey: input.sessionKey }, { mode: 'post-compaction', maxTokens: budgetBeside(s.restoreMaxTokens, line) })
  return restore ? withHistoryLine(restore, line) : restore
}

