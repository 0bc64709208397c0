// Seed 003's references: `{{observation:<id or name>}}` in a tool's arguments is the whole content of that
// entry of the session's store (a parked tool result, or a named entry of seed 004). Every parked result's
// `_note` tells the model so: it hands an 89 KB download to `write` without reading it into the context.
//
//   before_tool_call   (OpenClaw 2026.9.6: the hook may return `params`, which the tool then runs with) any
//                      tool's arguments but the plugin's own tools: each reference replaced by the full content.
//                      The transcript keeps the model's call as it made it, so no later request carries the
//                      expansion. An unknown or expired reference, or an expansion over the size bound, blocks
//                      the call with a reason the model reads: the tool never runs with the placeholder (no
//                      file holding `{{observation:...}}`).
//   Tool Search bridge OpenClaw 2026.9.6 runs the hook twice for a call through `tool_call` (`{ id, args }`):
//                      for `tool_call` itself, then for the inner tool with its own call id
//                      (`tool_search_code:<call id>:<tool>:<n>`) before that tool runs. The references are
//                      expanded (or the call blocked) at the inner tool's, once: expanding at the bridge too
//                      would expand a second time any content that itself holds the text of a reference.
import type { OpenClawPluginApi } from 'openclaw/plugin-sdk/plugin-entry'
import { expandObservationRefs } from '@openclaw/context-native'
import { isHousekeeping, obj, warnOnce } from './state.ts'

/** The marker a reference starts with (cheap test before the binding is asked). */
const MARK = '{{'
const REFERENCE = /\{\{\s*observation:\s*([^{}]+?)\s*\}\}/
/** Most bytes one expanded argument string may hold (a larger expansion blocks the call). */
export const MAX_REFERENCE_BYTES = 16 << 20
/** Tool Search's own tools and its code cell: their arguments are queries or code, never a tool's input. */
const SEARCH_TOOLS: ReadonlySet<string> = new Set(['tool_search', 'tool_describe', 'tool_search_code'])
/** Calls whose arguments were already expanded in this process (`runId:toolCallId`), most recent last. */
const EXPANDED_KEY = Symbol.for('@openclaw/context-native/expanded-calls')
const MAX_EXPANDED = 256

/** Whether any string in `v` holds a reference (no allocation for the common case: none). */
export function hasReference(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.includes(MARK) && REFERENCE.test(v)
  if (depth > 64 || !v || typeof v !== 'object') return false
  if (Array.isArray(v)) return v.some((x) => hasReference(x, depth + 1))
  for (const x of Object.values(v)) if (hasReference(x, depth + 1)) return true
  return false
}

/** The first reference in `v`, for a block reason. */
function firstReference(v: unknown): string | undefined {
  if (typeof v === 'string') return v.match(REFERENCE)?.[0]
  if (!v || typeof v !== 'object') return undefined
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const r = firstReference(x)
    if (r) return r
  }
  return undefined
}

export interface ReferenceOptions {
  stateDir: string
  /** The plugin's own tools (their arguments name entries; they are never expanded). */
  ownTools: ReadonlySet<string>
  /** The Tool Search bridge tool (`tool_call`): its inner tool's own hook run expands its arguments. */
  bridgeTool: string
  maxBytes?: number
}

export type BeforeToolCallResult = { params?: Record<string, unknown>; block?: boolean; blockReason?: string } | undefined

function expandedCalls(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>
  return (g[EXPANDED_KEY] ??= new Set())
}

/**
 * The hook's decision for one call: `undefined` (no reference: run as is), `{ params }` (expanded), or
 * `{ block, blockReason }`. Exported for the unit tests; `registerReferences` puts it on `before_tool_call`.
 */
export async function expandCall(
  o: ReferenceOptions,
  event: { toolName: string; params: Record<string, unknown>; toolCallId?: string; runId?: string; toolKind?: string },
  ctx: { sessionKey?: string; runId?: string; toolCallId?: string; trigger?: string },
): Promise<BeforeToolCallResult> {
  const sessionKey = ctx.sessionKey
  if (!sessionKey || isHousekeeping(ctx)) return undefined
  // The bridge's own run: its inner tool's hook expands the same arguments (see the top of this file). Code
  // Mode's and Tool Search's code cells are JavaScript whose calls reach the hook one by one, the same way.
  if (event.toolName === o.bridgeTool || SEARCH_TOOLS.has(event.toolName) || event.toolKind === 'code_mode_exec') return undefined
  const tool = event.toolName
  if (o.ownTools.has(tool)) return undefined
  const callId = event.toolCallId ?? ctx.toolCallId
  const key = callId ? `${event.runId ?? ctx.runId ?? ''}:${callId}` : undefined
  const done = expandedCalls()
  // The same call again (its arguments already expanded once): an expansion is never expanded twice.
  if (key && done.has(key)) return undefined
  const target = event.params
  if (!hasReference(target)) return undefined
  const reference = firstReference(target)
  try {
    const expanded = await expandObservationRefs({ stateDir: o.stateDir, sessionKey, value: target, maxBytes: o.maxBytes ?? MAX_REFERENCE_BYTES })
    if (key) {
      done.add(key)
      if (done.size > MAX_EXPANDED) done.delete(done.values().next().value as string)
    }
    return { params: obj(expanded) }
  } catch (e) {
    const code = (e as { code?: string })?.code ?? 'Error'
    const why =
      code === 'NotFound'
        ? `${reference} names no entry of this session's scratchpad (unknown, expired or deleted)`
        : code === 'TooLarge'
          ? `expanding ${reference} gives more than ${o.maxBytes ?? MAX_REFERENCE_BYTES} bytes`
          : `${reference} could not be read (${code}: ${(e as Error)?.message ?? String(e)})`
    return {
      block: true,
      blockReason: `context-native: ${why}; ${tool} did not run. scratchpad_list shows the entries; pass the content itself, or a reference to an entry that exists.`,
    }
  }
}

/** Registers the `before_tool_call` hook that expands references. */
export function registerReferences(api: OpenClawPluginApi, o: ReferenceOptions): void {
  api.on('before_tool_call', async (event, ctx) => {
    try {
      return await expandCall(o, event, ctx)
    } catch (e) {
      // Never a broken turn: an unexpected failure blocks only a call that holds a reference.
      warnOnce(api.logger, 'before_tool_call', e)
      return hasReference(event.params) ? { block: true, blockReason: 'context-native: the {{observation:...}} reference could not be expanded; the tool did not run.' } : undefined
    }
  })
}
