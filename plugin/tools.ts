// The package's tools (session_scratchpad, scratchpad_read, and seed 004's entry tools from entries.ts) and the
// tool-result middleware (capture, offload).
//
// Tool Search is on by default in OpenClaw 2026.9.6: plugin tools are listed in a directory and reached through
// the `tool_search` / `tool_describe` / `tool_call` bridge unless they are `catalogMode: 'direct-only'`.
// session_scratchpad and scratchpad_read are direct-only, so the model calls them by the names the scratchpad
// guidance gives; the entry tools stay in the catalog (their schemas are not in every request). Calls of those
// and of other tools arrive through the bridge: the middleware then sees `tool_call` with `{ id, args }` and
// looks at the inner tool's name and arguments.
import type { AnyAgentTool, OpenClawPluginApi, OpenClawPluginToolContext } from 'openclaw/plugin-sdk/plugin-entry'
import {
  applyPersistedScratchpadAction,
  deleteObservation,
  getScratchpadSystemPrompt,
  getScratchpadToolDefinition,
  getScratchpadUsage,
  observationToolDefinition,
  offloadObservation,
  readObservation,
  restoreScratchpad,
  type ReadObservationInput,
  type ScratchpadAction,
  type ScratchpadLimits,
  type ScratchpadResult,
  type SessionEntryLike,
} from '@openclaw/context-native'
import { isHousekeeping, memoryOf, obj, PROTECTED_ENTRIES, processState, runTools, SCRATCHPAD_ENTRY, warnOnce } from './state.ts'
import { readPersisted } from './retention.ts'
import { ENTRY_TOOLS, entryName, entryTools, readFooter } from './entries.ts'
import { bufferToolResult } from './capture.ts'
import { recordWarnings } from './doctor.ts'

/** The name of OpenClaw's Tool Search bridge tool; its arguments are `{ id, args }`. */
export const BRIDGE_TOOL = 'tool_call'
/** The prefix of the Codex namespaces OpenClaw's dynamic tools are sent in (`openclaw`, `openclaw_direct`). */
const CODEX_DYNAMIC_NAMESPACE = 'openclaw'
export const READ_TOOL = 'scratchpad_read'

/**
 * The tool a call really ran: for the Tool Search bridge, the inner tool (its id is a search result id or a
 * tool name, e.g. `plugin:context-native:scratchpad_read`) and its arguments; else the call itself.
 */
export function innerToolCall(toolName: string, args: unknown): { toolName: string; args: unknown; bridged: boolean } {
  if (toolName !== BRIDGE_TOOL) return { toolName, args, bridged: false }
  const a = obj(args)
  const id = typeof a.id === 'string' ? a.id : typeof a.name === 'string' ? a.name : ''
  const name = id.split(/[:/]/).filter(Boolean).pop() ?? ''
  return { toolName: name || toolName, args: a.args ?? a.arguments ?? {}, bridged: true }
}

/**
 * The messages with every call through the Tool Search bridge shown as the call it made (the assistant's
 * `toolCall` block and its `toolResult` named after the inner tool, with the inner arguments), so a checkpoint
 * built from them lists the files and tools the agent really used. The same array when nothing was bridged.
 */
export function unbridgeMessages(messages: unknown[]): unknown[] {
  const renamed = new Map<string, string>()
  let changed = false
  const out = messages.map((m) => {
    const msg = obj(m)
    if (msg.role === 'assistant' && Array.isArray(msg.content) && msg.content.some((c) => obj(c).type === 'toolCall' && obj(c).name === BRIDGE_TOOL)) {
      changed = true
      return {
        ...msg,
        content: msg.content.map((c) => {
          const part = obj(c)
          if (part.type !== 'toolCall' || part.name !== BRIDGE_TOOL) return c
          const inner = innerToolCall(BRIDGE_TOOL, part.arguments)
          if (typeof part.id === 'string') renamed.set(part.id, inner.toolName)
          return { ...part, name: inner.toolName, arguments: inner.args }
        }),
      }
    }
    return m
  })
  if (!changed) return messages
  return out.map((m) => {
    const msg = obj(m)
    const name = msg.role === 'toolResult' && typeof msg.toolCallId === 'string' ? renamed.get(msg.toolCallId) : undefined
    return name ? { ...msg, toolName: name } : m
  })
}

/** The scratchpad's persisted spaces for one session: the latest entry of each `openclaw:scratchpad:*` key. */
type PersistedScratchpad = Record<string, string | string[]>

// Which version of each session's persisted scratchpad this copy of the binding holds. Module-level on
// purpose: each staged copy of the plugin loads its own binding (its own scratchpad registry), while the
// version counter it compares with is process-wide (state.ts), bumped by every write of any copy.
const loadedVersion = new Map<string, number>()
// The persisted version (its `openclaw:scratchpad:version`, written with every applied call) this copy's registry
// holds per session: a prompt build re-reads the entry and restores only when it moved, so a restore (which
// counts as a change for the nudges) happens only when another process or copy really wrote.
const loadedPersisted = new Map<string, string>()
/** The key of the version in the persisted spaces (crates/scratchpad VERSION_KEY). */
const VERSION_KEY = 'openclaw:scratchpad:version'

export interface ScratchpadStore {
  /**
   * Brings this copy's registry up to the persisted scratchpad (resume, another copy's write, eviction); with
   * `fromDisk`, re-reads it whatever this process last saw (another process may have written: a gateway and a
   * `--local` run, a cron run, on one session).
   */
  ensureCurrent(sessionKey: string, opts?: { fromDisk?: boolean }): Promise<void>
  /**
   * One tool call applied to the persisted scratchpad under the session's lock (applyPersistedScratchpadAction):
   * never to a stale copy, so no other process's write is lost. This copy's registry holds the result after.
   */
  apply(sessionKey: string, action: ScratchpadAction): Promise<ScratchpadResult>
  /** Drops the persisted scratchpad (reset, delete, a new conversation on the key). */
  drop(sessionKey: string): Promise<void>
}

export function scratchpadStore(stateDir: string, limits: ScratchpadLimits): ScratchpadStore {
  const versions = processState().scratchpadVersion
  const restoring = new Map<string, Promise<void>>()
  return {
    ensureCurrent(sessionKey, opts) {
      const version = versions.get(sessionKey) ?? 0
      const held = getScratchpadUsage(sessionKey) !== undefined && loadedVersion.get(sessionKey) === version
      if (!opts?.fromDisk && held) return Promise.resolve()
      let p = restoring.get(sessionKey)
      if (!p) {
        p = (async () => {
          // Read whole at any size the settings allow (the store's default read cap is for tool results).
          const saved: PersistedScratchpad = await readPersisted(stateDir, sessionKey)
          const persisted = String(saved[VERSION_KEY] ?? '')
          if (held && loadedPersisted.get(sessionKey) === persisted) return
          const entries: SessionEntryLike[] = Object.entries(saved).map(([customType, data]) => ({ type: 'custom', customType, data }))
          restoreScratchpad(sessionKey, entries, undefined, limits)
          loadedVersion.set(sessionKey, version)
          loadedPersisted.set(sessionKey, persisted)
        })().finally(() => restoring.delete(sessionKey))
        restoring.set(sessionKey, p)
      }
      return p
    },
    async apply(sessionKey, action) {
      // Read, apply and write under the session's lock in the package: another process (a second gateway, the
      // CLI, a cron run) applying calls to the same session loses nothing, appends included.
      const result = await applyPersistedScratchpadAction({ stateDir, sessionKey, action, limits })
      if (result.persist.length > 0) {
        // The other copies of the plugin in this process reload at their next use.
        const version = (versions.get(sessionKey) ?? 0) + 1
        versions.set(sessionKey, version)
        loadedVersion.set(sessionKey, version)
        loadedPersisted.set(sessionKey, String(result.usage.version))
      }
      return result
    },
    async drop(sessionKey) {
      versions.set(sessionKey, (versions.get(sessionKey) ?? 0) + 1)
      loadedVersion.delete(sessionKey)
      loadedPersisted.delete(sessionKey)
      await deleteObservation({ stateDir, sessionKey, name: SCRATCHPAD_ENTRY }).catch((e: { code?: string }) => {
        if (e.code !== 'NotFound') throw e
      })
    },
  }
}

export interface ToolSettings {
  stateDir: string
  limits: ScratchpadLimits
  scratchpad: boolean
  offload: { enabled: boolean; thresholdBytes: number; ttlSeconds: number; quotaBytes: number }
}

/** The names of the tools this configuration registers. */
export function toolNames(s: ToolSettings): string[] {
  const names: string[] = []
  if (s.scratchpad) names.push(getScratchpadToolDefinition(s.limits).name)
  if (s.offload.enabled) names.push(READ_TOOL, ...ENTRY_TOOLS)
  return names
}

/** Registers the tools (direct-only under Tool Search) and the tool-result middleware. */
export function registerTools(api: OpenClawPluginApi, s: ToolSettings, store: ScratchpadStore): void {
  const names = toolNames(s)
  const ownTools = new Set([READ_TOOL, ...names])

  /** A tool from the package's definition, kept model-visible under Tool Search. */
  const direct = (def: { name: string; description: string; parameters: unknown }, label: string) => ({
    name: def.name,
    label,
    description: def.description,
    parameters: def.parameters as AnyAgentTool['parameters'],
    catalogMode: 'direct-only' as const,
  })

  // The guidance (when to write, what not to write) in the tool's own description rather than the system prompt:
  // it reaches the model exactly when the tool does, whatever profile, allowlist or deny the run has.
  const scratchpadDefinition = (() => {
    const def = getScratchpadToolDefinition(s.limits)
    const rules = getScratchpadSystemPrompt(s.limits)
      .split('\n')
      .filter((line) => line.startsWith('When to write:') || line.startsWith("Don't write:"))
    return rules.length > 0 ? { ...def, description: `${def.description}\n${rules.join('\n')}` } : def
  })()

  const scratchpadTool = (sessionKey: string): AnyAgentTool => {
    return {
      ...direct(scratchpadDefinition, 'Scratchpad'),
      // Calls apply in the order the model made them (expectedVersion, append after set).
      executionMode: 'sequential',
      async execute(_toolCallId, params) {
        const result = await store.apply(sessionKey, params as ScratchpadAction)
        // `ok: false` in details makes OpenClaw grade a rejected call as failed; the model reads the message.
        return { content: [{ type: 'text', text: result.message }], details: { ok: result.ok, truncated: result.truncated, usage: result.usage } }
      },
    }
  }

  const readTool = (sessionKey: string): AnyAgentTool => {
    return {
      ...direct(observationToolDefinition(READ_TOOL), 'Read offloaded result'),
      async execute(_toolCallId, params) {
        // The model's arguments spread into the input as they come (`scratchpad_id`); the session is ours.
        const args = obj(params) as Omit<ReadObservationInput, 'stateDir' | 'sessionKey'>
        if (typeof args.name === 'string' && args.name) entryName(obj(params), READ_TOOL) // the plugin's own entries stay its own
        const { content, ...meta } = await readObservation({ ...args, stateDir: s.stateDir, sessionKey })
        // The text goes to the model once (with where the slice sits, when it is not the whole entry): `details`
        // carries the slice's coordinates, not the content again.
        return { content: [{ type: 'text', text: content + readFooter(meta) }], details: meta }
      },
    }
  }

  if (names.length > 0) {
    api.registerTool(
      (ctx: OpenClawPluginToolContext) => {
        // No session key (a metadata-only catalog build, a detached run): no tools rather than a shared pad.
        const sessionKey = ctx.sessionKey
        if (!sessionKey || isHousekeeping({ sessionKey })) return null
        // A warning this process logged at load (its hooks blocked) is recorded for the doctor in the first session.
        recordWarnings(s.stateDir, sessionKey)
        const tools: AnyAgentTool[] = []
        if (s.scratchpad) tools.push(scratchpadTool(sessionKey))
        if (s.offload.enabled) tools.push(readTool(sessionKey), ...entryTools(s.stateDir, sessionKey))
        return tools
      },
      { names },
    )
  }

  api.registerAgentToolResultMiddleware(
    async (event, ctx) => {
      const sessionKey = ctx.sessionKey
      // A housekeeping run's tool calls (the memory flush's read and write) are not the session's work.
      if (!sessionKey || isHousekeeping(ctx)) return
      // Under the Codex harness the middleware is called from two places (measured, scripts/test-codex.mjs):
      // OpenClaw's dynamic-tool bridge, whose returned result is what Codex hands the model (`isError` always
      // set), and Codex's PostToolUse hook relay, which passes no `isError` and ignores what is returned: Codex
      // keeps its own output. So a relayed result is never parked (the model would never see the reference),
      // and a relayed OpenClaw dynamic tool (named namespace + name, e.g. `openclaw_directsession_scratchpad`)
      // is not captured twice; Codex's native tools (exec_command as `exec`, apply_patch) are captured from it.
      const relayed = ctx.runtime === 'codex' && typeof event.isError !== 'boolean'
      if (relayed && event.toolName.startsWith(CODEX_DYNAMIC_NAMESPACE)) return
      try {
        const call = innerToolCall(event.toolName, event.args)
        const content = Array.isArray(event.result.content) ? event.result.content : []
        const text = content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n')
        // The bridge's own discovery calls are not the agent's work.
        // Buffered for the turn's one write (capture.ts), not written per result.
        if (event.toolName !== 'tool_search' && event.toolName !== 'tool_describe') {
          // A failure is a result flagged as an error, a command that exited non-zero (OpenClaw's exec reports
          // the exit code in `details.exitCode` with `isError` false: measured, scripts/test-real.mjs), or one
          // whose `details` say it failed by OpenClaw's rule (`isToolResultError`): its tools return what they
          // throw as `{status: "error", tool, error}` (flagged in 2026.9.6, but its text is that JSON), web_search
          // without a key returns `{error, message}` unflagged. The state decides (crates/state failure_text) from
          // the flag and the details' status fields (capture.ts statusFields); it keeps the details' error, else
          // the text's head and tail.
          bufferToolResult(s.stateDir, sessionKey, {
            toolName: call.toolName,
            params: call.args,
            isError: event.isError === true,
            details: obj(event.result.details),
            error: text,
          })
        }
        if (!s.offload.enabled || relayed || event.isError || ownTools.has(call.toolName)) return
        if (content.length === 0 || content.some((c) => c.type !== 'text')) return // images stay inline
        // Parked only where the model can read it back: a run whose tool policy (a profile, `tools.deny`, an
        // allowlist) leaves scratchpad_read out, or whose tools were not seen, gets the result as OpenClaw gives it.
        if (!runTools(ctx.runId)?.has(READ_TOOL)) return
        const parked = await offloadObservation({
          stateDir: s.stateDir,
          sessionKey,
          content: text,
          toolName: call.toolName,
          turnId: `turn-${memoryOf(sessionKey).turn}`,
          thresholdBytes: s.offload.thresholdBytes,
          // 0: no lifetime of its own (the session's: reset, delete, retention.idleDays).
          ttlSeconds: s.offload.ttlSeconds,
          metadata: { toolCallId: event.toolCallId, ...(call.bridged ? { via: BRIDGE_TOOL } : {}) },
          protect: PROTECTED_ENTRIES,
          // Nothing the model may still read is evicted to make room; over the quota this rejects (TooLarge)
          // and the result is not parked.
          quotaBytes: s.offload.quotaBytes,
          keepLive: true,
        }).catch((e: { code?: string }) => {
          if (e?.code === 'TooLarge') return undefined // the session's quota is full: the result stays whole
          throw e
        })
        if (!parked?.offloaded) return
        return {
          result: {
            content: [{ type: 'text', text: JSON.stringify(parked.observation, null, 2) }],
            details: { offloaded: true, sizeBytes: parked.sizeBytes },
          },
        }
      } catch (e) {
        warnOnce(api.logger, 'tool-result middleware', e)
        return
      }
    },
    // 'codex': OpenClaw's dynamic tools under the Codex harness (@openclaw/codex) pass this middleware too
    // (measured: scripts/test-codex.mjs); Codex's native tools (exec_command, apply_patch, ...) never do.
    { runtimes: ['openclaw', 'codex'] },
  )
}
