// Seed 004's named entries as the model's tools: scratchpad_write, scratchpad_edit, scratchpad_list and
// scratchpad_delete, on the session's observation store (the same store as the parked tool results, which
// scratchpad_read reads by id or name). Entries have no TTL, are never tied to the context (a compaction leaves
// them alone), live in the package's store under the state dir (every `--local` process of the session sees
// them) and go with the session (reset / delete: `deleteSession` in index.ts).
//
// Tool Search (on by default in OpenClaw 2026.9.6): these four are catalog tools (no `catalogMode`), so their
// schemas stay out of every request until the model finds them with `tool_search` (or names them in directory
// mode); session_scratchpad and scratchpad_read stay direct-only (tools.ts). With `tools.toolSearch: false`
// every schema is sent.
import type { AnyAgentTool } from 'openclaw/plugin-sdk/plugin-entry'
import {
  deleteObservation,
  editObservation,
  listObservations,
  observationToolDefinition,
  writeObservation,
  type ObservationEntry,
  type ReadObservationResult,
} from '@openclaw/context-native'
import { memoryOf, obj, PROTECTED_ENTRIES } from './state.ts'

/** The entry tools, in the order they are registered. */
export const ENTRY_TOOLS = ['scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete'] as const

/** Names the package keeps for itself in the session's store (its record, the persisted scratchpad). */
const isInternal = (name: string) => PROTECTED_ENTRIES.includes(name) || name.startsWith('context-native-')

/** An error the model reads as the tool's result, with the binding's stable code when there is one. */
class EntryError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}

/** The entry name of a call's arguments (`name`, else `scratchpad_id`); refuses the package's own entries. */
export function entryName(args: Record<string, unknown>, tool: string): string {
  const name = typeof args.name === 'string' && args.name ? args.name : typeof args.scratchpad_id === 'string' ? args.scratchpad_id : ''
  if (!name) throw new EntryError('InvalidArg', `${tool} needs \`name\`: the entry's name (scratchpad_list shows them)`)
  if (isInternal(name)) throw new EntryError('InvalidArg', `${JSON.stringify(name)} is reserved for the plugin's own state; choose another name`)
  return name
}

/** The compacted conversation's entries (`history-<n>`, history.ts) are read, not written, by the model. */
function refuseHistory(name: string, tool: string): void {
  if (name === 'history' || /^history-\d+$/.test(name)) {
    throw new EntryError('InvalidArg', `${tool}: ${JSON.stringify(name)} is the compacted conversation the plugin keeps; read it with scratchpad_read, write under another name`)
  }
}

const text = (t: string) => [{ type: 'text' as const, text: t }]
const size = (e: ObservationEntry) => `${e.chars} ${e.kind === 'binary' ? 'bytes' : 'characters'}${e.kind === 'text' ? `, ${e.lines} lines` : ''}`

/**
 * Where a read's slice sits in its entry, appended to the text the model gets when it is not the whole entry,
 * so it knows how to go on (seed 004's offset/limit paging). Empty for a read of everything.
 */
export function readFooter(r: Omit<ReadObservationResult, 'content'>): string {
  const unit = r.kind === 'binary' ? 'bytes' : 'characters'
  if (r.mode === 'grep') {
    return `\n\n[${r.matches ?? 0} matching line(s) of ${r.totalLines} in "${r.name}"${r.truncated ? '; more matches: narrow the regex' : ''}]`
  }
  if (r.mode === 'lines') {
    if (r.startLine === undefined || (r.startLine <= 1 && r.endLine === r.totalLines && !r.truncated)) return ''
    return `\n\n[lines ${r.startLine}-${r.endLine} of ${r.totalLines} in "${r.name}"${r.truncated ? ' (cut at the read limit)' : ''}]`
  }
  const start = r.start ?? 0
  const end = r.end ?? r.totalChars
  if (start === 0 && end >= r.totalChars) return ''
  const more = end < r.totalChars ? `; read on with offset=${end}` : ''
  return `\n\n[${unit} ${start}-${end} of ${r.totalChars} in "${r.name}"${more}]`
}

/** The entry tools of one session (an entry written is tagged with the session's current turn, `turn-<n>`). */
export function entryTools(stateDir: string, sessionKey: string): AnyAgentTool[] {
  const def = (name: string) => {
    const d = observationToolDefinition(name)
    return { name: d.name, description: d.description, parameters: d.parameters as AnyAgentTool['parameters'] }
  }
  const where = { stateDir, sessionKey }
  const turnId = () => `turn-${memoryOf(sessionKey).turn}`

  const write: AnyAgentTool = {
    ...def('scratchpad_write'),
    label: 'Scratchpad: write entry',
    // Writes of one name apply in the order the model made them.
    executionMode: 'sequential',
    async execute(_id, params) {
      const args = obj(params)
      const name = entryName(args, 'scratchpad_write')
      refuseHistory(name, 'scratchpad_write')
      if (typeof args.content !== 'string') throw new EntryError('InvalidArg', 'scratchpad_write needs `content`: a string (the text to store)')
      const { entry } = await writeObservation({ ...where, name, content: args.content, turnId: turnId(), protect: PROTECTED_ENTRIES })
      return {
        content: text(`Saved "${entry.name}" (${size(entry)}). Read it with scratchpad_read {"name": "${entry.name}"}; pass it whole to another tool as {{observation:${entry.name}}}.`),
        details: { entry },
      }
    },
  }

  const edit: AnyAgentTool = {
    ...def('scratchpad_edit'),
    label: 'Scratchpad: edit entry',
    executionMode: 'sequential',
    async execute(_id, params) {
      const args = obj(params)
      const name = entryName(args, 'scratchpad_edit')
      refuseHistory(name, 'scratchpad_edit')
      const full = typeof args.content === 'string'
      const targeted = args.old_string !== undefined || args.new_string !== undefined
      if (full === targeted) {
        throw new EntryError('InvalidArg', 'scratchpad_edit needs either `content` (a full overwrite) or `old_string` and `new_string` (a replacement), not both')
      }
      if (targeted && (typeof args.old_string !== 'string' || typeof args.new_string !== 'string' || args.old_string === '')) {
        throw new EntryError('InvalidArg', 'scratchpad_edit: `old_string` (non-empty) and `new_string` must both be strings')
      }
      const { entry, replacements } = await editObservation({
        ...where,
        name,
        ...(full ? { content: args.content as string } : { oldString: args.old_string as string, newString: args.new_string as string, replaceAll: args.replace_all === true }),
        protect: PROTECTED_ENTRIES,
      })
      const what = full ? 'overwritten' : `${replacements} replacement${replacements === 1 ? '' : 's'}`
      return { content: text(`Edited "${entry.name}": ${what}; now ${size(entry)}.`), details: { entry, replacements } }
    },
  }

  const list: AnyAgentTool = {
    ...def('scratchpad_list'),
    label: 'Scratchpad: list entries',
    async execute() {
      const entries = (await listObservations(where)).filter((e) => !isInternal(e.name))
      if (entries.length === 0) return { content: text('The scratchpad has no entries.'), details: { entries: [] } }
      const lines = entries.map(
        (e) => `- ${e.name} (id ${e.id}): ${size(e)}, created ${e.createdAt}${e.expiresAt ? `, expires ${e.expiresAt}` : ''}${e.toolName ? `, from ${e.toolName}` : ''}`,
      )
      return { content: text(`${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}:\n${lines.join('\n')}`), details: { count: entries.length } }
    },
  }

  const del: AnyAgentTool = {
    ...def('scratchpad_delete'),
    label: 'Scratchpad: delete entry',
    executionMode: 'sequential',
    async execute(_id, params) {
      const name = entryName(obj(params), 'scratchpad_delete')
      const entry = await deleteObservation({ ...where, name })
      return { content: text(`Deleted "${entry.name}".`), details: { entry } }
    },
  }

  return [write, edit, list, del]
}
