// Compaction: the checkpoint of what is being compacted, and the restore the next model request receives.
//
//   before_compaction   counts the compaction in the session's durable record and remembers the session's
//                       messages (the event's, else the transcript OpenClaw keeps in SQLite, else the last
//                       prompt build's) as a pending compaction
//   compaction provider (`agents.defaults.compaction.provider: "context-native"`) receives the exact messages
//                       being compacted, with no session key: it claims the pending compaction whose messages
//                       they are (by timestamp, so concurrent sessions stay apart) and writes the checkpoint
//                       from them. mode 'default': returns '' so OpenClaw falls back to its own LLM summary;
//                       mode 'replace': returns the restore text as the summary (no model call).
//   after_compaction    writes the checkpoint when no provider claimed it, then leaves the restore text (and
//                       the scratchpad nudge) pending in the durable record; the next before_prompt_build
//                       prepends it once. In 'replace' mode the summary already is the restore.
import type { OpenClawPluginApi } from 'openclaw/plugin-sdk/plugin-entry'
import { estimateContextTokens, evaluateScratchpadNudge, readCheckpoint, renderCheckpoint, writeCheckpoint } from '@openclaw/context-native'
import { unbridgeMessages } from './tools.ts'
import { flushCaptures } from './capture.ts'
import { isHousekeeping, memoryOf, obj, processState, readRecord, updateRecord, warnOnce, type PendingCompaction, type SessionRecord } from './state.ts'
import { recordWarnings, updateEvidence, warnDegraded } from './doctor.ts'
import { budgetBeside, keepHistory, modelCanRead, withHistoryLine, type HistorySettings } from './history.ts'

/** The plugin id, also its compaction provider's id. */
export const PROVIDER_ID = 'context-native'
/** A pending compaction older than this is not claimed any more. */
const PENDING_TTL_MS = 10 * 60 * 1000
/** A second `before_compaction` of a session within this time is the same compaction. */
const REPEAT_MS = 60 * 1000

export interface CompactionSettings {
  stateDir: string
  checkpoints: boolean
  scratchpad: boolean
  restoreMaxTokens: number
  mode: 'default' | 'replace'
  replaceMaxTokens: number
  nudgeAfterCompaction: number
  contextWindow: (record: SessionRecord, ctx?: { contextTokenBudget?: number; modelProviderId?: string; modelId?: string }) => number
  /** The compacted messages kept as the session's history (history.ts). */
  history: HistorySettings
}

/**
 * The agent messages of the session's current context as OpenClaw's transcript store holds them: after its last
 * `reset` event (a reset in place keeps the session id and the old events), and from the first entry the last
 * `compaction` event kept. Empty when the store has nothing for the session.
 */
export async function transcriptMessages(sessionId: string | undefined, sessionKey: string, agentId: string | undefined): Promise<unknown[]> {
  if (!sessionId) return []
  // Loaded on first use: only a compaction needs it, and every turn's process loads the plugin.
  const { loadTranscriptEventsSync } = await import('openclaw/plugin-sdk/session-store-runtime')
  const events = loadTranscriptEventsSync({ sessionId, sessionKey, ...(agentId ? { agentId } : {}) })
  return currentContext(events as unknown[])
}

/** The messages of a transcript's events that are still in the context (see `transcriptMessages`). */
export function currentContext(events: unknown[]): unknown[] {
  // Every entry counts for the position (the first kept one need not be a message); only messages are returned.
  let entries: { id: unknown; message?: unknown }[] = []
  for (const e of events) {
    const ev = obj(e)
    if (ev.type === 'reset') entries = []
    else if (ev.type === 'compaction') {
      const kept = entries.findIndex((x) => x.id === ev.firstKeptEntryId)
      entries = kept >= 0 ? entries.slice(kept) : []
    } else if (ev.type === 'message' && typeof obj(ev.message).role === 'string') entries.push({ id: ev.id, message: ev.message })
    else entries.push({ id: ev.id })
  }
  return entries.flatMap((x) => (x.message === undefined ? [] : [x.message]))
}

const stampOf = (m: unknown): number | undefined => {
  const t = obj(m).timestamp
  return typeof t === 'number' ? t : typeof t === 'string' ? Date.parse(t) : undefined
}

/** Claims the pending compaction the provider's messages belong to (most timestamps in common; else the only one). */
export function claimPending(messages: unknown[], now = Date.now()): PendingCompaction | undefined {
  const state = processState()
  state.pendingCompactions = state.pendingCompactions.filter((p) => now - p.at < PENDING_TTL_MS)
  const pending = state.pendingCompactions
  if (pending.length === 0) return undefined
  const stamps = messages.map(stampOf).filter((t): t is number => t !== undefined)
  let best: PendingCompaction | undefined
  let bestScore = 0
  for (const p of pending) {
    const score = stamps.filter((t) => p.stamps.has(t)).length
    if (score > bestScore) {
      best = p
      bestScore = score
    }
  }
  if (!best && pending.length === 1) best = pending[0]
  if (best) state.pendingCompactions = pending.filter((p) => p !== best)
  return best
}

function takePending(sessionKey: string): PendingCompaction | undefined {
  const state = processState()
  const p = state.pendingCompactions.find((x) => x.sessionKey === sessionKey)
  if (p) state.pendingCompactions = state.pendingCompactions.filter((x) => x !== p)
  return p
}

/**
 * Writes the compaction checkpoint of a pending compaction from the messages given, and records what it read for
 * the doctor; a checkpoint with no messages to read is warned about once per process (`logger`).
 */
async function checkpointFrom(s: CompactionSettings, p: PendingCompaction, messages: unknown[], source: string, logger: { warn: (m: string) => void }): Promise<void> {
  // The turn's buffered captures first: the checkpoint reads the state files they go to.
  await flushCaptures(s.stateDir, p.sessionKey)
  const record = await readRecord(s.stateDir, p.sessionKey)
  const contextWindow = p.contextWindow ?? s.contextWindow(record)
  await writeCheckpoint({
    stateDir: s.stateDir,
    sessionKey: p.sessionKey,
    trigger: 'compaction',
    tokenUsage: { inputTokens: p.tokenCount ?? estimateContextTokens(messages).tokens, contextWindow },
    compactionCount: record.compactionSerial,
    ...(p.agentId ? { agentId: p.agentId } : {}),
    ...(messages.length === 0 ? { openItems: [`the checkpoint at this compaction had no messages to read (${source})`] } : {}),
    messages: unbridgeMessages(messages),
  })
  p.checkpointed = true
  // The same messages kept word for word, searchable (issue 49): the restore's last line names the entry.
  p.historyLine = await keepHistory(s.history, p.sessionKey, messages, record.compactionSerial, logger)
  const from = p.source && source === 'before_compaction' ? p.source : source
  void updateEvidence(s.stateDir, p.sessionKey, (e) => void (e.checkpoint = { at: new Date().toISOString(), trigger: 'compaction', source: from, messages: messages.length }))
  if (messages.length === 0) {
    warnDegraded(
      logger,
      'no-messages',
      `the compaction checkpoint of ${p.sessionKey} had no messages to read (${from}): its restore holds only what the state files kept; agents.defaults.compaction.provider "context-native" hands the plugin the exact messages`,
      { stateDir: s.stateDir, sessionKey: p.sessionKey },
    )
  }
}

export function registerCompaction(api: OpenClawPluginApi, s: CompactionSettings): void {
  /** Whether OpenClaw will hand this plugin's provider the exact messages (`agents.defaults.compaction.provider`). */
  const providerSelected = () => obj(obj(obj(obj(api.config).agents).defaults).compaction).provider === PROVIDER_ID
  // Registered in every mode; OpenClaw only calls it when `agents.defaults.compaction.provider` names it.
  api.registerCompactionProvider({
    id: PROVIDER_ID,
    label: 'context-native checkpoint',
    async summarize({ messages }) {
      const p = claimPending(messages)
      if (!p || !s.checkpoints) return ''
      p.claimedBy = 'provider'
      processState().claimed.push(p)
      try {
        await checkpointFrom(s, p, messages, 'compaction provider', api.logger)
      } catch (e) {
        warnOnce(api.logger, 'compaction checkpoint', e)
        return ''
      }
      if (s.mode !== 'replace') return '' // OpenClaw falls back to its built-in LLM summary
      const line = p.historyLine && modelCanRead(s.history, undefined, await readRecord(s.stateDir, p.sessionKey)) ? p.historyLine : undefined
      const text = renderCheckpoint(
        { stateDir: s.stateDir, sessionKey: p.sessionKey },
        { mode: 'post-compaction', maxTokens: budgetBeside(s.replaceMaxTokens, line), asSummary: true },
      )
      if (text) p.replaced = true
      return text ? withHistoryLine(text, line) : ''
    },
  })

  api.on('before_compaction', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    // A compaction of a housekeeping run's private copy (the memory flush's) is not the session's.
    if (!sessionKey || !s.checkpoints || isHousekeeping(ctx)) return
    recordWarnings(s.stateDir, sessionKey)
    try {
      // OpenClaw 2026.9.6 fires this hook twice for one compaction (its attempt, then the compaction): the
      // second one refreshes the pending compaction instead of counting and checkpointing it again.
      const state = processState()
      const again = state.pendingCompactions.find((p) => p.sessionKey === sessionKey && Date.now() - p.at < REPEAT_MS)
      if (again) {
        if (event.tokenCount) again.tokenCount = event.tokenCount
        return
      }
      const record = await updateRecord(s.stateDir, sessionKey, (r) => {
        r.compactions++
        r.compactionSerial++
      })
      let messages = Array.isArray(event.messages) ? event.messages : []
      let source = 'before_compaction'
      if (messages.length === 0) {
        source = "before_compaction, OpenClaw's transcript"
        try {
          messages = await transcriptMessages(ctx.sessionId, sessionKey, ctx.agentId)
        } catch (e) {
          warnOnce(api.logger, 'reading the transcript at compaction', e)
        }
      }
      if (messages.length === 0) {
        messages = memoryOf(sessionKey).messages
        source = "before_compaction, the last prompt build's messages"
      }
      const pending: PendingCompaction = {
        sessionKey,
        ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
        ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
        stateDir: s.stateDir,
        at: Date.now(),
        stamps: new Set(messages.map(stampOf).filter((t): t is number => t !== undefined)),
        messages,
        source,
        ...(event.tokenCount ? { tokenCount: event.tokenCount } : {}),
        contextWindow: s.contextWindow(record, ctx),
      }
      processState().pendingCompactions.push(pending)
      // Without the provider, nothing better than these messages will come: the checkpoint is written now
      // (OpenClaw awaits this hook), so it exists even when a compaction path fires no after_compaction.
      if (!providerSelected()) await checkpointFrom(s, pending, messages, 'before_compaction', api.logger)
    } catch (e) {
      warnOnce(api.logger, 'before_compaction', e)
    }
  })

  api.on('after_compaction', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey || isHousekeeping(ctx)) return
    try {
      const state = processState()
      // The provider's claim, else the compaction before_compaction announced (no provider configured).
      let p = state.claimed.find((x) => x.sessionKey === sessionKey)
      if (p) state.claimed = state.claimed.filter((x) => x !== p)
      else p = takePending(sessionKey)
      if (p && !p.checkpointed && s.checkpoints) await checkpointFrom(s, p, p.messages ?? [], 'before_compaction', api.logger)
      memoryOf(sessionKey).messages = []
      const nothingLeft = event.compactedCount === 0
      const nudge = !nothingLeft && s.scratchpad ? evaluateScratchpadNudge(sessionKey, { kind: 'compaction_end' }, { nudgeAfterCompaction: s.nudgeAfterCompaction }) : undefined
      // The history line only for a model that can call scratchpad_read (the entry is kept all the same).
      const historyLine = p?.historyLine && modelCanRead(s.history, ctx.runId, await readRecord(s.stateDir, sessionKey)) ? p.historyLine : undefined
      const rendered =
        !nothingLeft && s.checkpoints && p?.checkpointed && !p.replaced
          ? renderCheckpoint({ stateDir: s.stateDir, sessionKey }, { mode: 'post-compaction', maxTokens: budgetBeside(s.restoreMaxTokens, historyLine) })
          : undefined
      const restore = rendered ? withHistoryLine(rendered, historyLine) : undefined
      const checkpointId = restore ? readCheckpoint({ stateDir: s.stateDir, sessionKey })?.meta.checkpointId : undefined
      await updateRecord(s.stateDir, sessionKey, (r) => {
        // A compaction that rotated the session's physical generation keeps the conversation.
        if (event.previousSessionId && r.sessionId === event.previousSessionId && ctx.sessionId) r.sessionId = ctx.sessionId
        r.checkpointedEpoch = undefined
        if (restore) {
          r.restorePending = {
            text: restore,
            compaction: r.compactions,
            at: new Date().toISOString(),
            ...(checkpointId ? { checkpointId } : {}),
            ...(historyLine ? { historyLine } : {}),
          }
        }
        else delete r.restorePending
        if (nudge) r.nudgePending = nudge
        // For the doctor: what became of this compaction's restore.
        const outcome = restore ? 'pending' : p?.replaced ? 'replaced' : nothingLeft ? 'nothing-compacted' : !s.checkpoints ? 'disabled' : 'no-checkpoint'
        ;(r.evidence ??= {}).compaction = { at: new Date().toISOString(), n: r.compactions, restore: outcome }
      })
    } catch (e) {
      warnOnce(api.logger, 'after_compaction', e)
    }
  })
}

/** How OpenClaw hands its compaction summary to the model: a user message of this frame (2026.9.6, agent-core). */
const SUMMARY_OPEN = 'The conversation history before this point was compacted into the following summary:'

/**
 * OpenClaw's compaction summary among the messages of a prompt build: a `compactionSummary` message, or the user
 * message OpenClaw makes of it for the model (`<summary>` ... `</summary>` after its frame). `undefined` without one.
 */
export function compactionSummaryOf(messages: readonly unknown[] | undefined): string | undefined {
  return summaryAt(messages)?.summary
}

/** OpenClaw's compaction summary among `messages` (see `compactionSummaryOf`) and the index of its message. */
function summaryAt(messages: readonly unknown[] | undefined): { summary: string; index: number } | undefined {
  if (!Array.isArray(messages)) return undefined
  for (const [index, m] of messages.entries()) {
    const msg = obj(m)
    if (msg.role === 'compactionSummary' && typeof msg.summary === 'string') return { summary: msg.summary, index }
    if (msg.role !== 'user') continue
    const content = msg.content
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (typeof obj(b).text === 'string' ? (obj(b).text as string) : '')).join('\n') : ''
    const at = text.indexOf(SUMMARY_OPEN)
    if (at < 0) continue
    const body = text.slice(at + SUMMARY_OPEN.length)
    const open = body.indexOf('<summary>')
    const close = body.lastIndexOf('</summary>')
    return { summary: open >= 0 && close > open ? body.slice(open + '<summary>'.length, close) : body, index }
  }
  return undefined
}

/**
 * The restore text the model receives after a compaction in default mode. The pending text was rendered when the
 * compaction ended, before OpenClaw's summary existed; at the prompt build the summary is among the messages, with
 * the messages the compaction kept after it, and the same checkpoint is rendered again without the names and
 * commands they state already (the checkpoint read the whole context, kept messages too: OpenClaw's
 * before_compaction does not say which it keeps), so the budget goes to what the compaction took away. The pending
 * text as it is when there is no summary (Claude Code, Codex), when a newer checkpoint has been written since, or
 * when rendering fails.
 */
export function restoreAfterSummary(stateDir: string, sessionKey: string, pending: NonNullable<SessionRecord['restorePending']>, messages: readonly unknown[] | undefined, maxTokens: number): string {
  try {
    const at = summaryAt(messages)
    if (!at?.summary.trim() || !pending.checkpointId || !messages) return pending.text
    if (readCheckpoint({ stateDir, sessionKey })?.meta.checkpointId !== pending.checkpointId) return pending.text
    const kept = messages.slice(at.index + 1)
    const line = pending.historyLine
    const text = renderCheckpoint({ stateDir, sessionKey }, { mode: 'post-compaction', maxTokens: budgetBeside(maxTokens, line), inContext: at.summary, inContextMessages: kept })
    return text ? withHistoryLine(text, line) : pending.text
  } catch {
    return pending.text
  }
}
