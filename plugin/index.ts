// Route 1: an OpenClaw plugin (no core patch) wiring @openclaw/context-native into OpenClaw's own plugin API.
// Written against the published openclaw@2026.9.6 and verified in real agent runs of its own CLI
// (`npm run test:real`: `openclaw agent --local`, one process per turn, and through a gateway, against a
// scripted model server that records what the model receives); `npm run test:host` drives the hooks directly.
//
//   tools (factory keyed by ctx.sessionKey)   session_scratchpad, scratchpad_read: `catalogMode: 'direct-only'`,
//                                             so Tool Search (on by default) leaves them callable by name;
//                                             seed 004's scratchpad_write / _edit / _list / _delete
//                                             (entries.ts) in Tool Search's catalog
//   before_tool_call (references.ts)          `{{observation:<id or name>}}` in another tool's arguments
//                                             expanded to the entry's content; unknown ones block the call
//   OpenClaw's housekeeping runs              left alone (state.ts `isHousekeeping`): the memory plugin's
//                                             pre-compaction flush (trigger 'memory') gets no prepend, no
//                                             checkpoint, no record, no capture
//   before_prompt_build                       prependContext: the restore pending since the last compaction
//                                             (once), nudges, the scratchpad block, the gauge line (and the
//                                             80% checkpoint); the guidance is in session_scratchpad's description
//   llm_input                                 the tools the run's model is sent, after OpenClaw's tool policy
//   tool-result middleware ('openclaw',       capture tools and files (through the `tool_call` bridge too),
//     'codex': OpenClaw's dynamic tools)      buffered for one write per turn (capture.ts: agent_end, before
//                                             a checkpoint, process exit); park large results (only where
//                                             scratchpad_read is sent), hand the model the synthetic observation
//   llm_output                                the session's context window, kept on disk
//   compaction (compaction.ts)                before_compaction, the compaction provider, after_compaction:
//                                             a checkpoint of the compacted messages, the restore pending
//   before_reset + session extension          a new conversation on the key forgets the old one
//   doctor.ts                                 what worked, per session, for `openclaw-context doctor`; one
//                                             warning per process and cause when a capability turns itself off
//
// Where state lives (state.ts): OpenClaw registers the plugin several times per process and runs `--local`
// turns one process each, so memory-only state is process-wide (globalThis) and what must outlive a process is
// a per-session record on disk, in this package's store under the state dir.
//
// Settings: plugin/settings.ts (the table openclaw.plugin.json's configSchema and docs/configuration.md follow);
// resolveSettings checks them at register() and throws InvalidSettings naming the setting.
//
// Retention (retention.ts): idle sessions' data reclaimed on an unref'd timer, off the turn's path.
import { definePluginEntry, type OpenClawPluginApi } from 'openclaw/plugin-sdk/plugin-entry'
import {
  clearScratchpad,
  deleteSession,
  evaluateContextUsage,
  evaluateScratchpadNudge,
  getScratchpadContent,
  writeCheckpoint,
} from '@openclaw/context-native'
import { PROVIDER_ID, registerCompaction, restoreAfterSummary } from './compaction.ts'
import { estimateTokens, gaugeThresholds, sessionWindow } from './gauge.ts'
import {
  emptyRecord,
  forgetMemory,
  isHousekeeping,
  memoryOf,
  noteRunTools,
  obj,
  processState,
  readEntry,
  readRecord,
  runTools,
  SESSION_ENTRY,
  updateRecord,
  warnOnce,
  type SessionRecord,
} from './state.ts'
import { BRIDGE_TOOL, registerTools, scratchpadStore, toolNames, unbridgeMessages } from './tools.ts'
import { evidenceOf, noteEvidence, noteRunEvidence, warnDegraded, warnIfHooksBlocked } from './doctor.ts'
import { registerReferences } from './references.ts'
import { claudeCodeTranscript } from './claude-code.ts'
import { bufferToolResult, bufferedCaptures, dropCaptures, flushCaptures } from './capture.ts'
import { noteActivity, scheduleRetention } from './retention.ts'
import { nudgeSettings as nudgeSettingsOf, resolveSettings, scratchpadLimits } from './settings.ts'
import {
  CLAUDE_CLI_RUNTIME,
  ownToolName,
  claudeCliWindow,
  isClaudeCli,
  isClaudeCliRun,
  nativeCompactionAfterTurn,
  nativeCompactionTurn,
  noteClaudeCliRun,
  usageTokens,
} from './runtime.ts'

export { InvalidSettingsError, resolveSettings, type ContextNativeSettings } from './settings.ts'

export { SCRATCHPAD_ENTRY, SESSION_ENTRY } from './state.ts'
export { gaugeThresholds } from './gauge.ts'

/** The plugin id (openclaw.plugin.json `id`, the key under `plugins.entries`). */
export const PLUGIN_ID = PROVIDER_ID
/** The OpenClaw release this plugin is written and tested against. */
export const TESTED_OPENCLAW_VERSION = '2026.9.6'

/** A session's activity is noted for retention at most this often per process. */
const ACTIVITY_NOTE_MS = 60_000
/** When each session's activity was last noted in this process (shared by every registration). */
const activityNotes = (): Map<string, number> =>
  ((globalThis as Record<symbol, unknown>)[Symbol.for('@openclaw/context-native/activity-notes')] ??= new Map()) as Map<string, number>

/** Registers everything on OpenClaw's plugin API. Exported so a host can compose it; `default` is the entry. */
export function registerContextNative(api: OpenClawPluginApi): void {
  const settings = resolveSettings(api.pluginConfig ?? {})
  const stateDir = settings.stateDir ?? api.runtime.state.resolveStateDir()
  const limits = scratchpadLimits(settings)
  const nudgeSettings = nudgeSettingsOf(settings)
  const store = scratchpadStore(stateDir, limits)
  // Nothing degrades in silence: OpenClaw blocks the conversation hooks of a plugin not set up for them, which
  // turns off the block, the gauge, the restore and the parking. Said once per process, at the runtime load.
  warnIfHooksBlocked(api, PLUGIN_ID)

  /**
   * The session model's window: the run's budget, the run's model's config entry, the last one the session's
   * runs reported, the default model's config entry, the setting. The compaction hooks carry no model: a session
   * on another model than the default (`--model`) gets its own model's window from the record, not the default's.
   */
  const contextWindow = (record: SessionRecord, ctx?: { contextTokenBudget?: number; modelProviderId?: string; modelId?: string }) =>
    sessionWindow(api.config, record, ctx) ?? settings.contextWindow

  // --- a conversation's state belongs to that conversation -------------------------------------------
  /** Forgets the key's conversation: scratchpad, incremental state, checkpoints, pending restore. */
  const forget = async (sessionKey: string | undefined, nextSessionId?: string) => {
    // OpenClaw's housekeeping sessions (the memory flush's) have nothing here, and get nothing written.
    if (!sessionKey || isHousekeeping({ sessionKey })) return
    forgetMemory(sessionKey)
    await dropCaptures(stateDir, sessionKey)
    clearScratchpad(sessionKey)
    processState().pendingCompactions = processState().pendingCompactions.filter((p) => p.sessionKey !== sessionKey)
    // The compaction serial keeps counting: a checkpoint after the reset is never taken for an older one.
    const existing = await readEntry<SessionRecord>(stateDir, sessionKey, SESSION_ENTRY)
    await store.drop(sessionKey)
    // Everything the package holds for the session: checkpoints, state, observations, the persisted scratchpad.
    await deleteSession({ stateDir, sessionKey })
    // A key the plugin never saw (one OpenClaw resets or deletes) keeps nothing: no record is made for it.
    if (existing || nextSessionId) await updateRecord(stateDir, sessionKey, () => emptyRecord(nextSessionId, existing?.compactionSerial ?? 0))
  }
  // Retention off the turn's path: idle sessions' data and expired observations reclaimed on an unref'd timer.
  scheduleRetention(api, stateDir)
  // Session state the host owns the lifecycle of: on /reset, delete or disable, OpenClaw calls cleanup.
  api.session.state.registerSessionExtension({
    namespace: 'scratchpad',
    description: 'Session scratchpad (notes, plan, refs) that survives context compaction.',
    cleanup: async ({ reason, sessionKey }) => {
      if (reason === 'reset' || reason === 'delete') await forget(sessionKey).catch((e) => warnOnce(api.logger, 'session cleanup', e))
    },
  })
  api.on('before_reset', async (_event, ctx) => forget(ctx.sessionKey).catch((e) => warnOnce(api.logger, 'before_reset', e)))

  const toolSettings = { stateDir, limits, scratchpad: settings.scratchpad.enabled, offload: settings.offload }
  registerTools(api, toolSettings, store)
  // Seed 003's `{{observation:<id or name>}}` in other tools' arguments, expanded before they run (references.ts).
  if (settings.offload.enabled) {
    registerReferences(api, {
      stateDir,
      ownTools: new Set(toolNames({ ...toolSettings, scratchpad: true })),
      bridgeTool: BRIDGE_TOOL,
    })
  }
  const historySettings = { stateDir, enabled: settings.checkpoints.history, readable: settings.offload.enabled, quotaBytes: settings.offload.quotaBytes }
  registerCompaction(api, {
    stateDir,
    checkpoints: settings.checkpoints.enabled,
    scratchpad: settings.scratchpad.enabled,
    restoreMaxTokens: settings.checkpoints.restoreMaxTokens,
    mode: settings.compaction.mode,
    replaceMaxTokens: settings.compaction.maxTokens,
    nudgeAfterCompaction: settings.scratchpad.nudgeAfterCompaction,
    contextWindow,
    history: historySettings,
  })

  // --- llm_input: the tools this run's model is sent, after OpenClaw's tool policy ----------------------
  // A profile (`minimal`), `tools.deny` or an allowlist can still leave a tool out; the tool-result middleware
  // parks a result only in a run whose model can call scratchpad_read (tools.ts).
  api.on('llm_input', (event, ctx) => {
    const runId = ctx.runId ?? event.runId
    if (runId) noteRunTools(runId, event.tools)
    // A housekeeping run, a Claude Code run (no parking there whatever it is sent): no evidence.
    if (!ctx.sessionKey || isHousekeeping(ctx) || isClaudeCliRun(runId) || !settings.offload.enabled) return
    try {
      noteRunEvidence(api.logger, stateDir, ctx.sessionKey, runTools(runId))
    } catch (e) {
      warnOnce(api.logger, 'llm_input', e)
    }
  })

  // --- before_prompt_build: the prepend ----------------------------------------------------------
  // The scratchpad's guidance travels in session_scratchpad's own description (tools.ts): a run whose tool policy
  // leaves the tool out gets no guidance naming it.
  api.on('before_prompt_build', async (event, ctx) => {
    // OpenClaw's housekeeping runs (the memory flush) are no conversation: nothing prepended, nothing written.
    if (isHousekeeping(ctx)) return undefined
    const sessionKey = ctx.sessionKey
    if (!sessionKey) return undefined
    const parts: string[] = []
    try {
      // The record is read on the libuv pool while the gauge counts the turn's new messages on this thread: the
      // tokens estimated from the messages (their last reported usage plus what came after it).
      const recordRead = readRecord(stateDir, sessionKey)
      recordRead.catch(() => undefined) // awaited below; no unhandled rejection if the estimate throws first
      let tokens = estimateTokens(memoryOf(sessionKey), event.messages, event.prompt)
      let record = await recordRead
      // Another session id on the key: /new, a reset the hooks did not see, an idle or daily reset.
      if (ctx.sessionId && record.sessionId && record.sessionId !== ctx.sessionId) {
        await forget(sessionKey, ctx.sessionId)
        record = await readRecord(stateDir, sessionKey)
        tokens = estimateTokens(memoryOf(sessionKey), event.messages, event.prompt) // its estimator went with the old conversation
      }
      // Retention: a session in use is never idle, even one that writes nothing. Idleness is counted in days, so
      // one note a minute per session and process is plenty (a note is a write on the libuv pool).
      const noted = activityNotes()
      const now = Date.now()
      const noteKey = `${stateDir}\0${sessionKey}`
      if (now - (noted.get(noteKey) ?? 0) >= ACTIVITY_NOTE_MS) {
        noted.delete(noteKey)
        noted.set(noteKey, now)
        if (noted.size > 1024) noted.delete(noted.keys().next().value as string)
        noteActivity(stateDir, sessionKey)
      }
      // Captures of an earlier run that ended without agent_end (an abort): written now, off the turn's path.
      if (bufferedCaptures(stateDir, sessionKey) > 0) flushCaptures(stateDir, sessionKey).catch((e) => warnOnce(api.logger, 'writing the captures', e))
      const memory = memoryOf(sessionKey)
      memory.messages = event.messages
      // The turn number comes from the conversation itself, so every process of a `--local` session agrees.
      memory.turn = event.messages.reduce((n: number, m) => n + ((m as { role?: unknown })?.role === 'user' ? 1 : 0), 1)
      // A later build of a run already built (memory.consumed): the turn has started once.
      const rebuild = ctx.runId !== undefined && memory.consumed?.runId === ctx.runId
      if (settings.scratchpad.enabled) {
        // From disk: another process (the gateway and a `--local` run, a cron run) may have written since.
        await store.ensureCurrent(sessionKey, { fromDisk: true })
        const hint = rebuild ? undefined : evaluateScratchpadNudge(sessionKey, { kind: 'turn_start' }, nudgeSettings)
        if (hint) memory.hints.push(hint)
      }

      // The gauge: the tokens estimated above against the session model's window, with the thresholds kept
      // before OpenClaw's own compaction. Under Claude Code (runtime.ts) the budget comes from OpenClaw's report
      // or the config, never the setting.
      const claude = isClaudeCli(ctx)
      if (claude) noteClaudeCliRun(ctx.runId)
      const cliWindow = claude ? claudeCliWindow(api.config, record, ctx) : undefined
      const window = cliWindow ?? contextWindow(record, ctx)
      const thresholds = gaugeThresholds(window, settings.gauge)
      const epoch = record.compactions
      let checkpointSaved = record.checkpointedEpoch === epoch
      let reading = evaluateContextUsage({ tokens, contextWindow: window }, { ...thresholds, checkpointSaved })
      // No budget known under Claude Code: no gauge from a guess.
      if (claude && cliWindow === undefined) reading = { ...reading, action: 'none', line: undefined } as typeof reading
      // Under Claude Code the checkpoints read its own transcript, which has the tool calls the mirror lacks.
      const transcript = claude ? claudeCodeTranscript(api, sessionKey, ctx) : undefined
      // Claude Code compacts by itself before this turn's first model call when the context it last reported is
      // past its threshold (runtime.ts): the checkpoint is written and the restore prepended now.
      const native = cliWindow !== undefined
        ? await nativeCompactionTurn(
            { stateDir, checkpoints: settings.checkpoints.enabled, restoreMaxTokens: settings.checkpoints.restoreMaxTokens, history: historySettings, logger: api.logger },
            { sessionKey, ...(ctx.agentId ? { agentId: ctx.agentId } : {}), messages: event.messages, transcript, contextWindow: window, record },
          )
        : undefined
      if (native) {
        if (native.restore) parts.push(native.restore)
        // The reading was of the context about to be compacted: no gauge line, no 80 % checkpoint of it.
        reading = { ...reading, action: 'none', line: undefined } as typeof reading
      }
      let autoCheckpoint: { trigger: string; source: string; messages: number } | undefined
      if (reading.action === 'checkpoint' && settings.checkpoints.enabled) {
        await flushCaptures(stateDir, sessionKey) // the state files the checkpoint reads
        const written = await writeCheckpoint({
          stateDir,
          sessionKey,
          trigger: 'auto-80pct',
          tokenUsage: { inputTokens: tokens, contextWindow: window, utilization: reading.utilization },
          compactionCount: record.compactionSerial,
          ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
          ...(ctx.channel ? { channel: ctx.channel } : {}),
          messages: unbridgeMessages((await transcript?.('open').catch(() => undefined)) ?? event.messages),
        })
        // Skipped as a duplicate (seed 001: within 5 % of the last one) the crossing's checkpoint still stands: OpenClaw
        // builds a Codex turn's prompt up to three times (a fresh native thread, scripts/test-codex.mjs), and the
        // line of the build that is sent must not lose `Checkpoint saved` because an earlier build wrote it.
        checkpointSaved = written.written || checkpointSaved
        if (written.written) autoCheckpoint = { trigger: 'auto-80pct', source: 'prompt build', messages: event.messages.length }
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
          const at = new Date().toISOString()
          if (checkpointSaved && r.checkpointedEpoch !== epoch && autoCheckpoint) (r.evidence ??= {}).checkpoint = { at, ...autoCheckpoint }
          if (checkpointSaved) r.checkpointedEpoch = epoch
          // The doctor's evidence that the restore of the last compaction reached a prompt.
          if (r.restorePending) (r.evidence ??= {}).restoreDelivered = { at, compaction: r.restorePending.compaction }
          taken = { restore: r.restorePending, nudge: r.nudgePending }
          delete r.restorePending
          delete r.nudgePending
        })
      }
      // Kept for the run's later builds: only the last build is sent (SessionMemory.consumed).
      const consumed = rebuild && memory.consumed ? memory.consumed : { runId: ctx.runId ?? '', hints: [] as string[] }
      if (taken.restore) consumed.restore = restoreAfterSummary(stateDir, sessionKey, taken.restore, event.messages, settings.checkpoints.restoreMaxTokens)
      if (taken.nudge) consumed.nudge = taken.nudge
      consumed.hints.push(...memory.hints.splice(0))
      if (ctx.runId !== undefined) memory.consumed = consumed
      if (consumed.restore) parts.push(consumed.restore)
      if (consumed.nudge) parts.push(consumed.nudge)
      parts.push(...consumed.hints)
      const block = settings.scratchpad.enabled ? getScratchpadContent(sessionKey) : undefined
      if (block) parts.push(block)
      if (reading.line) parts.push(reading.line)
      // What this prompt build did, for the doctor (written when it changes, not every turn).
      const noWindow = claude && cliWindow === undefined
      noteEvidence(
        stateDir,
        sessionKey,
        'promptBuild',
        { block: Boolean(block), gauge: noWindow ? 'no-window' : reading.line ? 'line' : 'below', ...(noWindow ? {} : { window }), ...(claude ? { runtime: CLAUDE_CLI_RUNTIME } : {}) },
        evidenceOf(record),
      )
      if (noWindow) {
        warnDegraded(
          api.logger,
          'no-window',
          `no context window is known for ${sessionKey} under the claude-cli runtime (none reported by OpenClaw yet, none in models.providers.anthropic.models[]): no gauge line, no 80 % checkpoint`,
          { stateDir, sessionKey },
        )
      }
    } catch (e) {
      warnOnce(api.logger, 'before_prompt_build', e)
    }
    // Context for this turn only. No `systemPrompt`.
    return parts.length > 0 ? { prependContext: parts.join('\n\n') } : undefined
  })

  // --- after_tool_call: under Claude Code, the tools the run used (the tool-result middleware is not called there)
  // Claude Code runs OpenClaw's tools through MCP and its own natively; OpenClaw calls no tool-result middleware
  // for either, but after_tool_call fires (measured: scripts/test-claude-cli.mjs). A run seen on that runtime by
  // before_prompt_build (runtime.ts) has its calls captured here, as the middleware captures them elsewhere, so
  // its checkpoints list the tools and files; any other run's are captured by the middleware, never twice.
  api.on('after_tool_call', (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey || isHousekeeping(ctx) || !isClaudeCliRun(ctx.runId ?? event.runId)) return
    try {
      const toolName = ownToolName(event.toolName)
      bufferToolResult(stateDir, sessionKey, {
        toolName,
        params: event.params ?? {},
        isError: typeof event.error === 'string',
        ...(typeof event.error === 'string' ? { error: event.error } : {}),
      })
    } catch (e) {
      warnOnce(api.logger, 'after_tool_call', e)
    }
  })

  // --- agent_end: the run's captures written in one batch (capture.ts), after the run, off its path ---------
  // OpenClaw does not await agent_end; the write starts on the next turn of the event loop (its arguments are
  // converted there, not in the hook), and a process that exits first writes them in its exit handler.
  api.on('agent_end', (_event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey || isHousekeeping(ctx)) return
    setImmediate(() => flushCaptures(stateDir, sessionKey).catch((e) => warnOnce(api.logger, 'writing the captures', e)))
  })

  // --- llm_output: the session's context window, and the plan nudge over what the model wrote -------
  api.on('llm_output', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey || isHousekeeping(ctx)) return
    try {
      const budget = event.contextTokenBudget
      if (budget) {
        const record = await readRecord(stateDir, sessionKey)
        if (record.contextWindow !== budget) await updateRecord(stateDir, sessionKey, (r) => void (r.contextWindow = budget))
      }
      // Claude Code runtime: a compaction it made inside the turn shows as the reported context dropping.
      if (event.provider === CLAUDE_CLI_RUNTIME) {
        const record = await readRecord(stateDir, sessionKey)
        const window = claudeCliWindow(api.config, record, { modelId: event.model })
        const reported = usageTokens(obj(event.lastAssistant).usage ?? event.usage)
        if (window && reported !== undefined) {
          await nativeCompactionAfterTurn(
            { stateDir, checkpoints: settings.checkpoints.enabled, restoreMaxTokens: settings.checkpoints.restoreMaxTokens, history: historySettings, logger: api.logger },
            { sessionKey, ...(ctx.agentId ? { agentId: ctx.agentId } : {}), before: memoryOf(sessionKey).messages, transcript: claudeCodeTranscript(api, sessionKey, ctx), reported, contextWindow: window, record },
          )
        }
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

