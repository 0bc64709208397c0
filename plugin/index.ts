// Route 1: an OpenClaw plugin (no core patch) wiring @openclaw/context-native into OpenClaw's own plugin API.
// Written and tested against the published openclaw@2026.9.6 (`npm run test:host` loads it with OpenClaw's
// loader and drives it through OpenClaw's own hook runner, tool resolution and tool-result middleware).
//
//   tools (factory keyed by ctx.sessionKey)   session_scratchpad: apply the action, persist the scratchpad
//                                             scratchpad_read: read an offloaded tool result by slice
//   before_prompt_build                       prependContext: nudges, the scratchpad block, the gauge line
//                                             (and the 80% checkpoint); appendSystemContext: the scratchpad
//                                             guidance. Never `systemPrompt`: that would replace the agent's.
//   tool-result middleware ('openclaw')       capture tools and files into the incremental state; park results
//                                             over the threshold and hand the model the synthetic observation
//   llm_output                                the run's context budget; the plan nudge
//   before_compaction                         write a checkpoint (OpenClaw awaits the hook, 30 s budget)
//   after_compaction                          queue the restore text with enqueueNextTurnInjection
//   durable entry + session extension         scratchpad persistence by session key; cleared on reset / delete
//
// What this route cannot do (use route 2, the core patch in examples/pi-extension/, when it matters):
// OpenClaw's before_compaction event carries counts only (`messageCount`, `tokenCount`), not pi's
// CompactionPreparation (`messagesToSummarize`, `isSplitTurn`, `fileOps`, `tokensBefore`) that seed 001's
// checkpoint is built from. This plugin builds it from the messages the last before_prompt_build saw and from
// the incremental state the middleware recorded, which misses what happened since that prompt and the
// split-turn flag.
//
// Settings: plugin/settings.ts (the table openclaw.plugin.json's configSchema and docs/configuration.md follow);
// resolveSettings checks them at register() and throws InvalidSettings naming the setting.
import { definePluginEntry, type AnyAgentTool, type OpenClawPluginApi, type OpenClawPluginToolContext } from 'openclaw/plugin-sdk/plugin-entry'
import {
  applyScratchpadAction,
  clearScratchpad,
  ContextEstimator,
  evaluateContextUsage,
  evaluateScratchpadNudge,
  getScratchpadContent,
  getScratchpadSystemPrompt,
  getScratchpadToolDefinition,
  getScratchpadUsage,
  observationToolDefinition,
  offloadObservation,
  readObservation,
  recordToolResult,
  renderCheckpoint,
  restoreScratchpad,
  writeCheckpoint,
  type ReadObservationInput,
  type ScratchpadAction,
  type ScratchpadLimits,
  type SessionEntryLike,
} from '@openclaw/context-native'
import { deleteSessionData, noteActivity, persistEntries, scheduleRetention } from './retention.ts'
import { resolveSettings, SCRATCHPAD_READ_MAX_CHARS } from './settings.ts'

export { InvalidSettingsError, resolveSettings, type ContextNativeSettings } from './settings.ts'

/** The plugin id (openclaw.plugin.json `id`, the key under `plugins.entries`). */
export const PLUGIN_ID = 'context-native'
/** The observation-store entry (one per session) that holds the scratchpad's persisted spaces. */
export const SCRATCHPAD_ENTRY = 'context-native-scratchpad'
/** Sessions whose per-session state (counters, the last prompt's messages) the plugin keeps in memory. */
const MAX_SESSIONS = 256
/** The OpenClaw release this plugin is written and tested against. */
export const TESTED_OPENCLAW_VERSION = '2026.9.6'

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})

/** The scratchpad's persisted spaces for one session: the latest entry of each `openclaw:scratchpad:*` key. */
type PersistedScratchpad = Record<string, string | string[]>

interface SessionState {
  checkpointSaved: boolean
  compactions: number
  turn: number
  hints: string[]
  /** The messages of the last prompt build: the best view of the context the plugin API gives a compaction. */
  messages: unknown[]
  /** The effective context budget OpenClaw reported for the session's last model call. */
  contextTokenBudget?: number
  /** The gauge's estimator over `messages`, fed only the messages added since the last prompt build. */
  gauge?: { estimator: ContextEstimator; counted: number; last: unknown }
}

/**
 * The context the next provider call reads, estimated incrementally: each message is counted once per session
 * (re-counting the whole conversation every turn costs ~100 ms on a long session, the increment ~0.1 ms). When
 * `messages` is not the previous list plus new ones (a compaction, a branch, a host that copies them), the
 * estimator starts over from them.
 */
function estimateTokens(state: SessionState, messages: unknown[], prompt: unknown): number {
  let g = state.gauge
  if (!g || messages.length < g.counted || (g.counted > 0 && messages[g.counted - 1] !== g.last)) {
    g = state.gauge = { estimator: new ContextEstimator(), counted: 0, last: undefined }
  }
  if (messages.length > g.counted) {
    g.estimator.addMessages(messages.slice(g.counted))
    g.counted = messages.length
    g.last = messages[messages.length - 1]
  }
  if (prompt === undefined) return g.estimator.estimate().tokens
  const next = g.estimator.fork()
  next.addMessage({ role: 'user', content: prompt })
  return next.estimate().tokens
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

  // --- per-session state ------------------------------------------------------------------------
  // The scratchpad registry is keyed by OpenClaw's session key: it is stable across compactions (which
  // can rotate the session id) and is what tool factories and hooks both receive.
  // Bounded, least recently used first out: a long-running Gateway sees many sessions, and each state holds the
  // last prompt's messages. A session dropped here only loses counters and that snapshot.
  const states = new Map<string, SessionState>()
  const stateOf = (sessionKey: string): SessionState => {
    let s = states.get(sessionKey)
    if (s) states.delete(sessionKey)
    else s = { checkpointSaved: false, compactions: 0, turn: 0, hints: [], messages: [] }
    states.set(sessionKey, s)
    if (states.size > MAX_SESSIONS) states.delete(states.keys().next().value as string)
    return s
  }

  // Persistence. OpenClaw 2026.9.6 offers plugins two kinds of session state: its plugin state store
  // (api.runtime.state.openKeyedStore), which it refuses to plugins loaded from a local path
  // (PluginTrustRefusalError, reason=record-missing), and session extensions, whose value only Gateway clients
  // write (sessions.pluginPatch). So the scratchpad's entries persist beside the checkpoints, in this package's
  // own store under the state dir: one named entry per session, written durably (fsync) and never expiring,
  // and the session extension ties it to the session's lifecycle (cleared on reset and delete).
  const readSaved = async (sessionKey: string): Promise<PersistedScratchpad> => {
    try {
      const r = await readObservation({ stateDir, sessionKey, name: SCRATCHPAD_ENTRY, mode: 'full', maxChars: SCRATCHPAD_READ_MAX_CHARS })
      return JSON.parse(r.content) as PersistedScratchpad
    } catch (e) {
      if ((e as { code?: string }).code === 'NotFound') return {}
      throw e
    }
  }
  // One read-merge-write at a time per session, so two calls in one batch cannot drop each other's space.
  const writes = new Map<string, Promise<unknown>>()
  const persist = (sessionKey: string, entries: ReadonlyArray<{ customType: string; data: string | string[] }>): Promise<void> => {
    const next = (writes.get(sessionKey) ?? Promise.resolve())
      .catch(() => undefined)
      // The read-merge-write runs under the session's lock in the package: another process (a second gateway, the
      // CLI) persisting the same session loses nothing either.
      .then(() => persistEntries(stateDir, sessionKey, entries))
    writes.set(sessionKey, next)
    void next.finally(() => writes.get(sessionKey) === next && writes.delete(sessionKey)).catch(() => undefined)
    return next
  }
  const restoring = new Map<string, Promise<void>>()
  /** Loads the session's persisted scratchpad into the registry once per process (resume, restart, eviction). */
  const ensureRestored = (sessionKey: string): Promise<void> => {
    if (!settings.scratchpad.enabled || getScratchpadUsage(sessionKey) !== undefined) return Promise.resolve()
    let p = restoring.get(sessionKey)
    if (!p) {
      p = (async () => {
        const saved = await readSaved(sessionKey)
        if (getScratchpadUsage(sessionKey) !== undefined) return // a tool call got there first
        const entries: SessionEntryLike[] = Object.entries(saved).map(([customType, data]) => ({ type: 'custom', customType, data }))
        restoreScratchpad(sessionKey, entries, undefined, limits)
      })().finally(() => restoring.delete(sessionKey))
      restoring.set(sessionKey, p)
    }
    return p
  }
  const forget = async (sessionKey: string | undefined) => {
    if (!sessionKey) return
    states.delete(sessionKey)
    clearScratchpad(sessionKey)
    // Everything the package holds for the session: checkpoints, state, observations, the persisted scratchpad.
    await deleteSessionData(stateDir, sessionKey)
  }
  // Retention off the turn's path: idle sessions' data and expired observations reclaimed on an unref'd timer.
  scheduleRetention(api, stateDir)

  // Session state the host owns the lifecycle of: on /reset, delete or disable, OpenClaw calls cleanup.
  api.session.state.registerSessionExtension({
    namespace: 'scratchpad',
    description: 'Session scratchpad (notes, plan, refs) that survives context compaction.',
    cleanup: async ({ reason, sessionKey }) => {
      if (reason === 'reset' || reason === 'delete') await forget(sessionKey)
    },
  })
  api.on('before_reset', async (_event, ctx) => forget(ctx.sessionKey))

  // --- tools: built per run from the factory context ----------------------------------------------
  const toolNames: string[] = []
  if (settings.scratchpad.enabled) toolNames.push(getScratchpadToolDefinition(limits).name)
  if (settings.offload.enabled) toolNames.push('scratchpad_read')

  const scratchpadTool = (sessionKey: string): AnyAgentTool => {
    const def = getScratchpadToolDefinition(limits)
    return {
      name: def.name,
      label: 'Scratchpad',
      description: def.description,
      parameters: def.parameters as unknown as AnyAgentTool['parameters'],
      // Calls apply in the order the model made them (expectedVersion, append after set).
      executionMode: 'sequential',
      async execute(_toolCallId, params) {
        await ensureRestored(sessionKey)
        const result = applyScratchpadAction(sessionKey, params as ScratchpadAction, limits)
        if (result.persist.length > 0) await persist(sessionKey, result.persist)
        // `ok: false` in details makes OpenClaw grade a rejected call as failed; the model reads the message.
        return { content: [{ type: 'text', text: result.message }], details: { ok: result.ok, truncated: result.truncated, usage: result.usage } }
      },
    }
  }

  const readTool = (sessionKey: string): AnyAgentTool => {
    const def = observationToolDefinition('scratchpad_read')
    return {
      name: def.name,
      label: 'Read offloaded result',
      description: def.description,
      parameters: def.parameters as unknown as AnyAgentTool['parameters'],
      async execute(_toolCallId, params) {
        // The model's arguments spread into the input as they come (`scratchpad_id`); the session is ours.
        const args = obj(params) as Omit<ReadObservationInput, 'stateDir' | 'sessionKey'>
        const result = await readObservation({ ...args, stateDir, sessionKey })
        return { content: [{ type: 'text', text: result.content }], details: result }
      },
    }
  }

  if (toolNames.length > 0) {
    api.registerTool(
      (ctx: OpenClawPluginToolContext) => {
        // No session key (a metadata-only catalog build, a detached run): no tools rather than a shared pad.
        const sessionKey = ctx.sessionKey
        if (!sessionKey) return null
        const tools: AnyAgentTool[] = []
        if (settings.scratchpad.enabled) tools.push(scratchpadTool(sessionKey))
        if (settings.offload.enabled) tools.push(readTool(sessionKey))
        return tools
      },
      { names: toolNames },
    )
  }

  // --- before_prompt_build: the prepend ----------------------------------------------------------
  const guidance = settings.scratchpad.enabled ? getScratchpadSystemPrompt(limits) : undefined
  api.on('before_prompt_build', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey) return
    const state = stateOf(sessionKey)
    state.messages = event.messages
    state.turn++
    noteActivity(stateDir, sessionKey) // retention: a session in use is never idle, even one that writes nothing

    if (settings.scratchpad.enabled) {
      await ensureRestored(sessionKey)
      const hint = evaluateScratchpadNudge(sessionKey, { kind: 'turn_start' }, nudgeSettings)
      if (hint) state.hints.push(hint)
    }

    // The gauge: the run's context budget as OpenClaw resolved it (llm_output), the tokens estimated from
    // the messages (their last reported usage plus what came after it).
    const contextWindow = ctx.contextTokenBudget ?? state.contextTokenBudget ?? settings.contextWindow
    const tokens = estimateTokens(state, event.messages, event.prompt)
    const gaugeOptions = { gaugeAt: settings.gauge.gaugeAt, checkpointAt: settings.gauge.checkpointAt }
    let reading = evaluateContextUsage({ tokens, contextWindow }, { ...gaugeOptions, checkpointSaved: state.checkpointSaved })
    if (reading.action === 'checkpoint' && settings.checkpoints.enabled) {
      const written = await writeCheckpoint({
        stateDir,
        sessionKey,
        trigger: 'auto-80pct',
        tokenUsage: { inputTokens: tokens, contextWindow, utilization: reading.utilization },
        compactionCount: state.compactions,
        ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
        ...(ctx.channel ? { channel: ctx.channel } : {}),
        messages: event.messages,
      })
      state.checkpointSaved = written.written || written.reason === 'dedup'
      reading = evaluateContextUsage({ tokens, contextWindow }, { ...gaugeOptions, checkpointSaved: state.checkpointSaved })
    }

    const parts = state.hints.splice(0)
    const block = settings.scratchpad.enabled ? getScratchpadContent(sessionKey) : undefined
    if (block) parts.push(block)
    if (reading.line) parts.push(reading.line)
    // Context for this turn only, plus the static guidance where providers can cache it. No `systemPrompt`.
    const result: { prependContext?: string; appendSystemContext?: string } = {}
    if (parts.length > 0) result.prependContext = parts.join('\n\n')
    if (guidance) result.appendSystemContext = guidance
    return result
  })

  // --- llm_output: the run's context budget, and the plan nudge over what the model wrote -----------
  api.on('llm_output', (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey) return
    const state = stateOf(sessionKey)
    if (event.contextTokenBudget) state.contextTokenBudget = event.contextTokenBudget
    const text = event.assistantTexts.join('\n')
    if (settings.scratchpad.enabled && text) {
      const hint = evaluateScratchpadNudge(sessionKey, { kind: 'assistant_message', text }, nudgeSettings)
      if (hint) state.hints.push(hint)
    }
  })

  // --- tool results: incremental capture and offload ---------------------------------------------
  const ownTools = new Set(['scratchpad_read', ...toolNames])
  api.registerAgentToolResultMiddleware(
    async (event, ctx) => {
      const sessionKey = ctx.sessionKey
      if (!sessionKey) return
      const content = Array.isArray(event.result.content) ? event.result.content : []
      const text = content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n')
      await recordToolResult({
        stateDir,
        sessionKey,
        toolName: event.toolName,
        params: event.args,
        isError: event.isError === true,
        ...(event.isError ? { error: text } : {}),
      })
      if (!settings.offload.enabled || event.isError || ownTools.has(event.toolName)) return
      if (content.length === 0 || content.some((c) => c.type !== 'text')) return // images stay inline
      const parked = await offloadObservation({
        stateDir,
        sessionKey,
        content: text,
        toolName: event.toolName,
        turnId: `turn-${stateOf(sessionKey).turn}`,
        thresholdBytes: settings.offload.thresholdBytes,
        ttlSeconds: settings.offload.ttlSeconds,
        metadata: { toolCallId: event.toolCallId },
        protect: [SCRATCHPAD_ENTRY],
      })
      if (!parked.offloaded) return
      return {
        result: {
          content: [{ type: 'text', text: JSON.stringify(parked.observation, null, 2) }],
          details: { offloaded: true, sizeBytes: parked.sizeBytes },
        },
      }
    },
    { runtimes: ['openclaw'] },
  )

  // --- compaction: checkpoint before, restore after ----------------------------------------------
  api.on('before_compaction', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey || !settings.checkpoints.enabled) return
    const state = stateOf(sessionKey)
    state.compactions++
    const messages = event.messages ?? state.messages
    await writeCheckpoint({
      stateDir,
      sessionKey,
      trigger: 'compaction',
      tokenUsage: {
        inputTokens: event.tokenCount ?? estimateTokens(state, messages, undefined),
        contextWindow: ctx.contextTokenBudget ?? state.contextTokenBudget ?? settings.contextWindow,
      },
      compactionCount: state.compactions,
      ...(event.sessionFile ? { sessionFile: event.sessionFile } : {}),
      ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
      messages,
    })
  })

  api.on('after_compaction', async (event, ctx) => {
    const sessionKey = ctx.sessionKey
    if (!sessionKey) return
    const state = stateOf(sessionKey)
    state.checkpointSaved = false
    state.messages = []
    if (event.compactedCount === 0) return // nothing left the context
    if (settings.scratchpad.enabled) {
      const hint = evaluateScratchpadNudge(sessionKey, { kind: 'compaction_end' }, nudgeSettings)
      if (hint) state.hints.push(hint)
    }
    if (!settings.checkpoints.enabled) return
    const restore = renderCheckpoint({ stateDir, sessionKey }, { mode: 'post-compaction', maxTokens: settings.checkpoints.restoreMaxTokens })
    if (!restore) return
    // Durable (kept in the session entry) and drained by OpenClaw before the next prompt build.
    const queued = await api.session.workflow.enqueueNextTurnInjection({
      sessionKey,
      ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
      text: restore,
      placement: 'prepend_context',
      idempotencyKey: `${PLUGIN_ID}:restore:${state.compactions}`,
      ttlMs: 24 * 3600 * 1000,
    })
    if (!queued.enqueued) api.logger.warn(`context-native: the restore text for ${sessionKey} was not queued`)
  })
}

export default definePluginEntry({
  id: PLUGIN_ID,
  name: 'Context (native)',
  description:
    'Working memory that survives context compaction: a session scratchpad, large tool results offloaded with scratchpad_read, a context gauge, YAML checkpoints before compaction and their restore after it.',
  register: registerContextNative,
})

