// The compacted conversation, kept (issue 49): at every compaction the messages compacted are written to the
// session's observation store as `history-<n>` (writeHistory: host text left out, credentials redacted, only what
// an earlier compaction did not hold), and the restore ends with one line naming it and how to search it, when
// the model can: a run whose tool policy leaves scratchpad_read out gets no line it could not use (the entry is
// kept all the same). The model reads it with scratchpad_read: `{"name": "history", "pattern": ...}` greps every
// history entry of the session, newest first.
import { writeHistory } from '@openclaw/context-native'
import { runTools, warnOnce, type SessionRecord } from './state.ts'
import { READ_TOOL, unbridgeMessages } from './tools.ts'

export { budgetBeside, withHistoryLine } from './history-line.ts'

export interface HistorySettings {
  stateDir: string
  /** `checkpoints.history`. */
  enabled: boolean
  /** `offload.enabled`: scratchpad_read is registered (without it no model can read history). */
  readable: boolean
  /** `offload.quotaBytes`: history counts in the session's quota. */
  quotaBytes: number
}

/**
 * Keeps a compaction's messages as the session's next history entry; the restore's line for it (the newest
 * entry) or `undefined` (history off, nothing held, or the write failed: warned once, the compaction goes on).
 */
export async function keepHistory(
  s: HistorySettings,
  sessionKey: string,
  messages: unknown[],
  compaction: number,
  logger: { warn: (m: string) => void },
): Promise<string | undefined> {
  if (!s.enabled || messages.length === 0) return undefined
  try {
    const w = await writeHistory({ stateDir: s.stateDir, sessionKey, messages: unbridgeMessages(messages), compaction, quotaBytes: s.quotaBytes })
    return w.summary.line ?? undefined
  } catch (e) {
    warnOnce(logger, 'keeping the compacted messages', e)
    return undefined
  }
}

/**
 * Whether the session's model can call scratchpad_read: the run's tools (`llm_input`, after OpenClaw's tool
 * policy), else what its last run was sent (the doctor's evidence: a `--local` turn is a process of its own), else
 * whether the plugin registers it at all.
 */
export function modelCanRead(s: HistorySettings, runId: string | undefined, record: SessionRecord): boolean {
  if (!s.readable) return false
  const sent = runTools(runId)
  if (sent && sent.size > 0) return sent.has(READ_TOOL)
  return record.evidence?.run?.read ?? true
}
