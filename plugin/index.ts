// Route 1: an OpenClaw plugin (no core patch) wiring @openclaw/context-native into OpenClaw's own plugin API.
// Written against the published openclaw@2026.9.6 and verified in real agent runs of its own CLI
// (`npm run test:real`: `openclaw agent --local`, one process per turn, and through a gateway, against a
// scripted model server that records what the model receives); `npm run test:host` drives the hooks directly.
//
//   tools (factory keyed by ctx.sessionKey)   session_scratchpad, scratchpad_read: `catalogMode: 'direct-only'`,
//                                             so Tool Search (on by default) leaves them callable by name
//   before_prompt_build                       prependContext: the restore pending since the last compaction
//                                             (once), nudges, the scratchpad block, the gauge line (and the
//                                             80% checkpoint); appendSystemContext: the scratchpad guidance
//   tool-result middleware ('openclaw')       capture tools and files (through the `tool_call` bridge too);
//                                             park large results, hand the model the synthetic observation
//   llm_output                                the session's context window, kept on disk
//   compaction (compaction.ts)                before_compaction, the compaction provider, after_compaction:
//                                             a checkpoint of the compacted messages, the restore pending
//   before_reset + session extension          a new conversation on the key forgets the old one
//
// Where state lives (state.ts): OpenClaw registers the plugin several times per process and runs `--local`
// turns one process each, so memory-only state is process-wide (globalThis) and what must outlive a process is
// a per-session record on disk, in this package's store under the state dir.
//
// Settings: openclaw.plugin.json's configSchema; `resolveSettings` applies the same defaults.
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { definePluginEntry, type OpenClawPluginApi } from 'openclaw/plugin-sdk/plugin-entry'
import {
  clearContextState,
  clearScratchpad,
  evaluateContextUsage,
  evaluateScratchpadNudge,
  getScratchpadContent,
  getScratchpadSystemPrompt,
  sessionDirName,
  writeCheckpoint,
  type ScratchpadLimits,
} from '@openclaw/context-native'
import { PROVIDER_ID, registerCompaction } from './compaction.ts'
import { configuredWindow, estimateTokens, gaugeThresholds } from './gauge.ts'
import { emptyRecord, forgetMemory, memoryOf, obj, processState, readRecord, updateRecord, warnOnce, type SessionRecord } from './state.ts'
import { registerTools, scratchpadStore, unbridgeMessages } from './tools.ts'

export { SCRATCHPAD_ENTRY, SESSION_ENTRY } from './state.ts'
export { gaugeThresholds } from './gauge.ts'

/** The plugin id (openclaw.plugin.json `id`, the key under `plugins.entries`). */
export const PLUGIN_ID = PROVIDER_ID
/** The OpenClaw release this plugin is written and tested against. */
export const TESTED_OPENCLAW_VERSION = '2026.9.6'

export interface ContextNativeSettings {
  /** Where checkpoints, incremental state and offloaded observations live; default: OpenClaw's state dir. */
  stateDir?: string
  /** The context window when OpenClaw tells nothing of the session's model. */
  contextWindow: number
  scratchpad: {
    enabled: boolean
    maxTokens: number
    notesMaxChars: number
    planMaxChars: number
    refsMax: number
    nudgeAfterTurns: number
    nudgeOnPlanDetected: number
    nudgeAfterCompaction: number
    nudgeTurnsSinceLastUse: number
  }
  gauge: { gaugeAt: number; checkpointAt: number }
  checkpoints: { enabled: boolean; restoreMaxTokens: number }
  offload: { enabled: boolean; thresholdBytes: number; ttlSeconds: number }
  /**
   * With `agents.defaults.compaction.provider: "context-native"`: 'default' checkpoints the exact messages
   * being compacted and keeps OpenClaw's LLM summary (the restore follows it); 'replace' returns the restore
   * text (at most `maxTokens`) as the summary, so a compaction costs no model call.
   */
  compaction: { mode: 'default' | 'replace'; maxTokens: number }
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] }

/** The settings with openclaw.plugin.json's defaults filled in. */
export function resolveSettings(raw: DeepPartial<ContextNativeSettings> | Record<string, unknown> = {}): ContextNativeSettings {
  const r = raw as DeepPartial<ContextNativeSettings>
  const compaction = { mode: 'default' as const, maxTokens: 2000, ...obj(r.compaction) } as ContextNativeSettings['compaction']
  if (compaction.mode !== 'default' && compaction.mode !== 'replace') {
    throw new Error(`context-native: settings.compaction.mode must be 'default' or 'replace', got ${JSON.stringify(compaction.mode)}`)
  }
  return {
    stateDir: r.stateDir,
    contextWindow: r.contextWindow ?? 200_000,
    scratchpad: {
      enabled: true,
      maxTokens: 2000,
      notesMaxChars: 4000,
      planMaxChars: 2000,
      refsMax: 50,
      nudgeAfterTurns: 0,
      nudgeOnPlanDetected: 0,
      nudgeAfterCompaction: 0,
      nudgeTurnsSinceLastUse: 0,
      ...obj(r.scratchpad),
    },
    gauge: { gaugeAt: 0.7, checkpointAt: 0.8, ...obj(r.gauge) },
    checkpoints: { enabled: true, restoreMaxTokens: 800, ...obj(r.checkpoints) },
    offload: { enabled: true, thresholdBytes: 4096, ttlSeconds: 3600, ...obj(r.offload) },
    compaction,
  }
}

/** Registers everything on OpenClaw's plugin API. Exported so a host can compose it; `default` is the entry. */
export function registerContextNative(api: OpenClawPluginApi): void {
  const settings = resolveSettings(api.pluginConfig ?? {})
  const stateDir = settings.stateDir ?? api.runtime.state.resolveStateDir()
  const limits: ScratchpadLimits = {
    notesMaxChars: settings.scratchpad.notesMaxChars,
    planMaxChars: settings.scratchpad.planMaxChars,
    refsMax: settings.scratchpad.refsMax,
    maxTokens: settings.scratchpad.maxTokens,
  }
  const nudgeSettings = {
    nudgeAfterTurns: settings.scratchpad.nudgeAfterTurns,
    nudgeOnPlanDetected: settings.scratchpad.nudgeOnPlanDetected,
    nudgeAfterCompaction: settings.scratchpad.nudgeAfterCompaction,
    nudgeTurnsSinceLastUse: settings.scratchpad.nudgeTurnsSinceLastUse,
  }
  const store = scratchpadStore(stateDir, limits)

  /** The session model's window: the run's budget, the model's config entry, the last one reported, the setting. */
  const contextWindow = (_sessionKey: string, record: SessionRecord, ctx?: { contextTokenBudget?: number; modelProviderId?: string; modelId?: string }) =>
    ctx?.contextTokenBudget ?? configuredWindow(api.config, ctx?.modelProviderId, ctx?.modelId) ?? record.contextWindow ?? settings.contextWindow

  // --- a conversation's state belongs to that conversation -------------------------------------------
  /** Forgets the key's conversation: scratchpad, incremental state, checkpoints, pending restore. */
  const forget = async (sessionKey: string | undefined, nextSessionId?: string) => {
    if (!sessionKey) return
    forgetMemory(sessionKey)
    clearScratchpad(sessionKey)
    processState().pendingCompactions = processState().pendingCompactions.filter((p) => p.sessionKey !== sessionKey)
    await store.drop(sessionKey)
    await clearContextState({ stateDir, sessionKey })
    await rm(join(stateDir, 'context/checkpoints', sessionDirName(sessionKey)), { recursive: true, force: true })
    // The compaction serial keeps counting: a checkpoint after the reset is never taken for an older one.
    await updateRecord(stateDir, sessionKey, (r) => emptyRecord(nextSessionId, r.compactionSerial))
  }
  // Session state the host owns the lifecycle of: on /reset, delete or disable, OpenClaw calls cleanup.
  api.session.state.registerSessionExtension({
    namespace: 'scratchpad',
    description: 'Session scratchpad (notes, plan, refs) that survives context compaction.',
    cleanup: async ({ reason, sessionKey }) => {
      if (reason === 'reset' || reason === 'delete') await forget(sessionKey).catch((e) => warnOnce(api.logger, 'session cleanup', e))
    },
  })
  api.on('before_reset', async (_event, ctx) => forget(ctx.sessionKey).catch((e) => warnOnce(api.logger, 'before_reset', e)))

  registerTools(api, { stateDir, limits, scratchpad: settings.scratchpad.enabled, offload: settings.offload }, store)
  registerCompaction(api, {
    stateDir,
    checkpoints: settings.checkpoints.enabled,
    scratchpad: settings.scratchpad.enabled,
    restoreMaxTokens: settings.checkpoints.restoreMaxTokens,
    mode: settings.compaction.mode,
    replaceMaxTokens: settings.compaction.maxTokens,
    nudgeAfterCompaction: settings.scratchpad.nudgeAfterCompaction,
    contextWindow,
  })

  // --- before_prompt_build: the prepend ----------------------------------------------------------
  const guidance = settings.scratchpad.enabled ? getScratchpadSystemPrompt(limits) : undefined
  api.on('before_prompt_build', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey) return guidance ? { appendSystemContext: guidance } : undefined
    const parts: string[] = []
    try {
      let record = await readRecord(stateDir, sessionKey)
      // Another session id on the key: /new, a reset the hooks did not see, an idle or daily reset.
      if (ctx.sessionId && record.sessionId && record.sessionId !== ctx.sessionId) {
        await forget(sessionKey, ctx.sessionId)
        record = await readRecord(stateDir, sessionKey)
      }
      const memory = memoryOf(sessionKey)
      memory.messages = event.messages
      // The turn number comes from the conversation itself, so every process of a `--local` session agrees.
      memory.turn = event.messages.reduce((n: number, m) => n + ((m as { role?: unknown })?.role === 'user' ? 1 : 0), 1)
      if (settings.scratchpad.enabled) {
        await store.ensureCurrent(sessionKey)
        const hint = evaluateScratchpadNudge(sessionKey, { kind: 'turn_start' }, nudgeSettings)
        if (hint) memory.hints.push(hint)
      }

      // The gauge: the tokens estimated from the messages (their last reported usage plus what came after it)
      // against the session model's window, with the thresholds kept before OpenClaw's own compaction.
      const window = contextWindow(sessionKey, record, ctx)
      const tokens = estimateTokens(memory, event.messages, event.prompt)
      const thresholds = gaugeThresholds(window, settings.gauge)
      const epoch = record.compactions
      let checkpointSaved = record.checkpointedEpoch === epoch
      let reading = evaluateContextUsage({ tokens, contextWindow: window }, { ...thresholds, checkpointSaved })
      if (reading.action === 'checkpoint' && settings.checkpoints.enabled) {
        const written = await writeCheckpoint({
          stateDir,
          sessionKey,
          trigger: 'auto-80pct',
          tokenUsage: { inputTokens: tokens, contextWindow: window, utilization: reading.utilization },
          compactionCount: record.compactionSerial,
          ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
          ...(ctx.channel ? { channel: ctx.channel } : {}),
          messages: unbridgeMessages(event.messages),
        })
        checkpointSaved = written.written
        reading = evaluateContextUsage({ tokens, contextWindow: window }, { ...thresholds, checkpointSaved })
      }

      // Consumed once: the restore and nudge pending since the last compaction leave the record here. The
      // record is written only when something in it changes (most prompt builds only read it).
      let taken: { restore?: SessionRecord['restorePending']; nudge?: string } = {}
      const changes = (r: SessionRecord) =>
        (ctx.sessionId !== undefined && r.sessionId !== ctx.sessionId) || (checkpointSaved && r.checkpointedEpoch !== epoch) || r.restorePending !== undefined || r.nudgePending !== undefined
      if (changes(record)) {
        await updateRecord(stateDir, sessionKey, (r) => {
          if (ctx.sessionId) r.sessionId = ctx.sessionId
          if (checkpointSaved) r.checkpointedEpoch = epoch
          taken = { restore: r.restorePending, nudge: r.nudgePending }
          delete r.restorePending
          delete r.nudgePending
        })
      }
      if (taken.restore) parts.push(taken.restore.text)
      if (taken.nudge) parts.push(taken.nudge)
      parts.push(...memory.hints.splice(0))
      const block = settings.scratchpad.enabled ? getScratchpadContent(sessionKey) : undefined
      if (block) parts.push(block)
      if (reading.line) parts.push(reading.line)
    } catch (e) {
      warnOnce(api.logger, 'before_prompt_build', e)
    }
    // Context for this turn only, plus the static guidance where providers can cache it. No `systemPrompt`.
    const result: { prependContext?: string; appendSystemContext?: string } = {}
    if (parts.length > 0) result.prependContext = parts.join('\n\n')
    if (guidance) result.appendSystemContext = guidance
    return result
  })

  // --- llm_output: the session's context window, and the plan nudge over what the model wrote -------
  api.on('llm_output', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey) return
    try {
      const budget = event.contextTokenBudget
      if (budget) {
        const record = await readRecord(stateDir, sessionKey)
        if (record.contextWindow !== budget) await updateRecord(stateDir, sessionKey, (r) => void (r.contextWindow = budget))
      }
      const text = event.assistantTexts.join('\n')
      if (settings.scratchpad.enabled && text) {
        const hint = evaluateScratchpadNudge(sessionKey, { kind: 'assistant_message', text }, nudgeSettings)
        if (hint) memoryOf(sessionKey).hints.push(hint)
      }
    } catch (e) {
      warnOnce(api.logger, 'llm_output', e)
    }
  })
}

export default definePluginEntry({
  id: PLUGIN_ID,
  name: 'Context (native)',
  description:
    'Working memory that survives context compaction: a session scratchpad, large tool results offloaded with scratchpad_read, a context gauge, YAML checkpoints before compaction and their restore after it.',
  register: registerContextNative,
})

