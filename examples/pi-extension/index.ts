// Route 2, the core patch: a pi ExtensionFactory that wires @openclaw/context-native into the agent session
// OpenClaw embeds. It is NOT an OpenClaw plugin (its events are pi extension events, not plugin hooks; for an
// unpatched OpenClaw use route 1, plugin/). A patch pushes it where OpenClaw builds the
// embedded session's extension factories, src/agents/embedded-agent-runner/extensions.ts in 2026.6+:
//
//   // buildEmbeddedExtensionFactories(params), before `return factories`:
//   factories.push(createContextNativeExtension({ settings: { ... }, sessionKey: () => params.sessionKey ?? params.sessionId }))
//
// What route 2 has that route 1 cannot: session_before_compact is awaited with pi's CompactionPreparation
// (messagesToSummarize, isSplitTurn, fileOps, tokensBefore), so the checkpoint is seed 001's exactly.
// The types are pi-coding-agent 0.73.1's (type-only import); OpenClaw 2026.6+ vendors the same extension API in
// src/agents/sessions/, and emits these events to the factories: before_agent_start, context, tool_result,
// session_before_compact, session_compact, session_start, turn_start, message_end.
//
// What it does, per pi extension event:
//   session_start           restore the scratchpad from the session's custom entries (resume, reload)
//   before_agent_start      add the scratchpad section to the system prompt
//   session_scratchpad      the tool: apply the action, persist the entries it returns with appendEntry
//   scratchpad_read         the tool: read an offloaded tool result (head / tail / range / lines / grep)
//   turn_start, message_end feed the opt-in nudges (seed 002)
//   context                 the gauge (and the 80% checkpoint), then the prepend: nudges, scratchpad block
//                           and gauge line in front of the last user message, for this LLM call only
//   tool_result             capture tools and files into the incremental state; park large results in
//                           the observation store and hand the model the synthetic observation instead
//   session_before_compact  write a checkpoint before pi summarises (the host's summary still runs)
//   session_compact         inject the checkpoint's restore text into the next turn
//
// Settings: the plugin's (plugin/settings.ts); settings.schema.json is written from that table by
// scripts/plugin-manifest.mjs, and `resolveSettings` checks them and fills in the same defaults.
import type { ExtensionAPI, ExtensionContext, ExtensionFactory } from '@mariozechner/pi-coding-agent'
import { homedir } from 'node:os'
import { join } from 'node:path'
import {
  applyScratchpadAction,
  estimateContextTokens,
  evaluateContextUsage,
  getScratchpadContent,
  offloadObservation,
  readObservation,
  recordToolResult,
  renderCheckpoint,
  restoreScratchpad,
  evaluateScratchpadNudge,
  getScratchpadSystemPrompt,
  getScratchpadToolDefinition,
  observationToolDefinition,
  writeCheckpoint,
  writeHistory,
  type ContextUsage,
  type ReadObservationInput,
  type ScratchpadAction,
} from '@openclaw/context-native'
// The settings table the plugin uses too (compiled into the package's dist/plugin/ by `npm run build:plugin`).
import {
  nudgeSettings,
  resolveSettings as resolvePluginSettings,
  scratchpadLimits,
  type ContextNativeSettings as PluginSettings,
} from '@openclaw/context-native/dist/plugin/settings.js'
import { budgetBeside, withHistoryLine } from '@openclaw/context-native/dist/plugin/history-line.js'

/**
 * The settings of the plugin (plugin/settings.ts, one table for both routes) this extension reads: stateDir,
 * contextWindow, scratchpad, gauge, checkpoints and offload (compaction and retention are the plugin's own).
 */
export type ContextNativeSettings = Omit<PluginSettings, 'stateDir'> & { stateDir: string }

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] }

/**
 * The settings with the plugin's defaults filled in and checked by the plugin's resolveSettings (InvalidSettings
 * naming the setting under `settings`); stateDir defaults to $OPENCLAW_STATE_DIR, else ~/.openclaw.
 */
export function resolveSettings(raw: DeepPartial<ContextNativeSettings> = {}): ContextNativeSettings {
  const settings = resolvePluginSettings(raw, { path: 'settings' })
  return { ...settings, stateDir: settings.stateDir ?? process.env.OPENCLAW_STATE_DIR ?? join(homedir(), '.openclaw') }
}

export interface ContextNativeOptions {
  settings?: DeepPartial<ContextNativeSettings>
  /**
   * The OpenClaw session key (`agent:main:telegram:direct:123456`) of the session `ctx` belongs to.
   * OpenClaw knows it when it builds the extension factories; pi alone only has the session id.
   */
  sessionKey?: (ctx: ExtensionContext) => string
}

/** Custom message type of the post-compaction restore (a hidden message on the next turn). */
export const RESTORE_MESSAGE_TYPE = 'openclaw:checkpoint-restore'

interface SessionState {
  checkpointSaved: boolean
  compactions: number
  turn: number
  hints: string[]
  /** The restore's last line for the history entry of the last compaction (writeHistory). */
  historyLine?: string
}

/** Builds the extension with the given settings; `export default` is the one with the defaults. */
export function createContextNativeExtension(options: ContextNativeOptions = {}): ExtensionFactory {
  const settings = resolveSettings(options.settings)
  const { stateDir } = settings
  const limits = scratchpadLimits(settings)
  const nudges = nudgeSettings(settings)
  const sessionIdOf = (ctx: ExtensionContext) => ctx.sessionManager.getSessionId()
  const sessionKeyOf = (ctx: ExtensionContext) => options.sessionKey?.(ctx) ?? sessionIdOf(ctx)
  const windowOf = (ctx: ExtensionContext) => ctx.getContextUsage()?.contextWindow ?? ctx.model?.contextWindow ?? settings.contextWindow

  const states = new Map<string, SessionState>()
  const stateOf = (ctx: ExtensionContext): SessionState => {
    const id = sessionIdOf(ctx)
    let s = states.get(id)
    if (!s) {
      s = { checkpointSaved: false, compactions: 0, turn: 0, hints: [] }
      states.set(id, s)
    }
    return s
  }
  const queueHint = (ctx: ExtensionContext, hint: string | undefined | null) => {
    if (hint) stateOf(ctx).hints.push(hint)
  }

  return (pi: ExtensionAPI) => {
    // --- scratchpad: tool, system prompt, restore on resume -----------------------------------
    if (settings.scratchpad.enabled) {
      const def = getScratchpadToolDefinition(limits)
      pi.registerTool({
        name: def.name,
        label: 'Scratchpad',
        description: def.description,
        parameters: def.parameters,
        async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
          const result = applyScratchpadAction(sessionIdOf(ctx), params as ScratchpadAction, limits)
          // Persistence stays with the host: the entries a successful change returns, in order.
          for (const entry of result.persist) pi.appendEntry(entry.customType, entry.data)
          return { content: [{ type: 'text', text: result.message }], details: result.usage }
        },
      })

      pi.on('session_start', (_event, ctx) => {
        const leaf = ctx.sessionManager.getLeafId()
        restoreScratchpad(sessionIdOf(ctx), ctx.sessionManager.getEntries(), leaf ?? undefined, limits)
      })

      pi.on('before_agent_start', (event) => ({
        systemPrompt: `${event.systemPrompt}\n\n${getScratchpadSystemPrompt(limits)}`,
      }))

      pi.on('turn_start', (_event, ctx) => {
        stateOf(ctx).turn++
        queueHint(ctx, evaluateScratchpadNudge(sessionIdOf(ctx), { kind: 'turn_start' }, nudges))
      })

      pi.on('message_end', (event, ctx) => {
        const m = event.message
        if (m.role !== 'assistant') return
        const text = m.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n')
        queueHint(ctx, evaluateScratchpadNudge(sessionIdOf(ctx), { kind: 'assistant_message', text }, nudges))
      })
    }

    // --- observation store: scratchpad_read ---------------------------------------------------
    if (settings.offload.enabled) {
      const def = observationToolDefinition('scratchpad_read')
      pi.registerTool({
        name: def.name,
        label: 'Read offloaded result',
        description: def.description,
        parameters: def.parameters,
        async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
          // The tool's arguments spread into the input as they come (`scratchpad_id` is accepted).
          const args = params as Omit<ReadObservationInput, 'stateDir' | 'sessionKey'>
          const result = await readObservation({ ...args, stateDir, sessionKey: sessionKeyOf(ctx) })
          return { content: [{ type: 'text', text: result.content }], details: result }
        },
      })
    }

    // --- the gauge, the 80% checkpoint, and the prepend ---------------------------------------
    pi.on('context', async (event, ctx) => {
      const state = stateOf(ctx)
      const sessionKey = sessionKeyOf(ctx)
      let gaugeLine: string | undefined
      const sdk = ctx.getContextUsage()
      // pi's usage has the contract's shape: tokens / percent are null when unknown.
      let usage: ContextUsage | undefined = sdk
      if (usage && usage.tokens == null && usage.percent == null) {
        // Right after a compaction the SDK has no usage yet: estimate the context (seed 001, 6.1).
        usage = { ...usage, tokens: estimateContextTokens(event.messages).tokens }
      }
      if (usage) {
        const gaugeOptions = { gaugeAt: settings.gauge.gaugeAt, checkpointAt: settings.gauge.checkpointAt }
        let reading = evaluateContextUsage(usage, { ...gaugeOptions, checkpointSaved: state.checkpointSaved })
        if (reading.action === 'checkpoint' && settings.checkpoints.enabled) {
          // Every call at or over the threshold asks; the writer skips one within 5% of the last
          // checkpoint's tokens (reason 'dedup'), so a long stretch over 80% leaves a checkpoint per step.
          const written = await writeCheckpoint({
            stateDir,
            sessionKey,
            trigger: 'auto-80pct',
            tokenUsage: {
              inputTokens: usage.tokens ?? Math.round(reading.utilization * usage.contextWindow),
              contextWindow: usage.contextWindow,
              utilization: reading.utilization,
            },
            compactionCount: state.compactions,
            sessionFile: ctx.sessionManager.getSessionFile(),
            messages: event.messages,
          })
          state.checkpointSaved = written.written || written.reason === 'dedup'
          reading = evaluateContextUsage(usage, { ...gaugeOptions, checkpointSaved: state.checkpointSaved })
        }
        gaugeLine = reading.line ?? undefined
      }

      const parts = [...state.hints]
      state.hints = []
      const scratchpad = settings.scratchpad.enabled ? getScratchpadContent(sessionIdOf(ctx)) : undefined
      if (scratchpad) parts.push(scratchpad)
      if (gaugeLine) parts.push(gaugeLine)
      if (parts.length === 0) return

      // Transient: only this LLM call sees the prepend; the session file keeps the user's own words.
      const messages = [...event.messages]
      for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i]
        if (m.role !== 'user') continue
        const prefix = `${parts.join('\n\n')}\n\n`
        messages[i] =
          typeof m.content === 'string'
            ? { ...m, content: prefix + m.content }
            : { ...m, content: [{ type: 'text', text: prefix }, ...m.content] }
        return { messages }
      }
      return
    })

    // --- tool_result: incremental capture and offload ----------------------------------------
    pi.on('tool_result', async (event, ctx) => {
      const sessionKey = sessionKeyOf(ctx)
      const text = event.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n')
      await recordToolResult({
        stateDir,
        sessionKey,
        toolName: event.toolName,
        params: event.input,
        isError: event.isError,
        error: event.isError ? text : undefined,
      })
      if (!settings.offload.enabled || event.isError || event.toolName === 'scratchpad_read') return
      if (event.content.some((c) => c.type !== 'text')) return // images stay inline
      const result = await offloadObservation({
        stateDir,
        sessionKey,
        content: text,
        toolName: event.toolName,
        turnId: `turn-${stateOf(ctx).turn}`,
        thresholdBytes: settings.offload.thresholdBytes,
        ttlSeconds: settings.offload.ttlSeconds,
        metadata: { toolCallId: event.toolCallId },
      })
      if (!result.offloaded) return
      return { content: [{ type: 'text', text: JSON.stringify(result.observation, null, 2) }] }
    })

    // --- compaction: checkpoint before, restore after ------------------------------------------
    pi.on('session_before_compact', async (event, ctx) => {
      if (!settings.checkpoints.enabled) return
      const state = stateOf(ctx)
      state.compactions++
      const p = event.preparation
      await writeCheckpoint({
        stateDir,
        sessionKey: sessionKeyOf(ctx),
        trigger: 'compaction',
        tokenUsage: { inputTokens: p.tokensBefore, contextWindow: windowOf(ctx) },
        compactionCount: state.compactions,
        sessionFile: ctx.sessionManager.getSessionFile(),
        messages: p.messagesToSummarize,
        isSplitTurn: p.isSplitTurn,
        fileOps: { read: [...p.fileOps.read], written: [...p.fileOps.written], edited: [...p.fileOps.edited] },
      })
      // The same messages kept word for word in the session's store, searchable with scratchpad_read (issue 49).
      state.historyLine = undefined
      if (settings.checkpoints.history) {
        const kept = await writeHistory({ stateDir, sessionKey: sessionKeyOf(ctx), messages: p.messagesToSummarize, compaction: state.compactions, quotaBytes: settings.offload.quotaBytes }).catch(() => undefined)
        state.historyLine = kept?.summary.line ?? undefined
      }
      // Nothing returned: pi's (or the host's) summariser runs as before; the checkpoint is on disk first.
    })

    pi.on('session_compact', (_event, ctx) => {
      const state = stateOf(ctx)
      state.checkpointSaved = false
      if (settings.scratchpad.enabled) {
        queueHint(ctx, evaluateScratchpadNudge(sessionIdOf(ctx), { kind: 'compaction_end' }, nudges))
      }
      if (!settings.checkpoints.enabled) return
      // The history line only where scratchpad_read is registered, within the restore's budget.
      const line = settings.offload.enabled ? state.historyLine : undefined
      const restore = renderCheckpoint(
        { stateDir, sessionKey: sessionKeyOf(ctx) },
        { mode: 'post-compaction', maxTokens: budgetBeside(settings.checkpoints.restoreMaxTokens, line) },
      )
      if (restore) {
        pi.sendMessage({ customType: RESTORE_MESSAGE_TYPE, content: withHistoryLine(restore, line), display: false }, { deliverAs: 'nextTurn' })
      }
    })
  }
}

export default createContextNativeExtension()
