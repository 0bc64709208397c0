// The plugin's `before_tool_call` hook (plugin/references.ts) and its entry tools (plugin/entries.ts) over the
// real binding and a temporary state dir: references expanded to every byte, through the Tool Search bridge
// once, unknown / expired / oversized ones blocking the call with a reason, the plugin's own tools and
// housekeeping runs left alone. `npm run test:real` runs them in OpenClaw itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { offloadObservation, writeObservation } from '@openclaw/context-native'
import { expandCall, hasReference, type ReferenceOptions } from '../plugin/references.ts'
import { entryTools, readFooter } from '../plugin/entries.ts'
import { BRIDGE_TOOL } from '../plugin/tools.ts'
import { isHousekeeping } from '../plugin/state.ts'

const stateDir = mkdtempSync(join(tmpdir(), 'context-native-references-'))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

const opts: ReferenceOptions = {
  stateDir,
  ownTools: new Set(['session_scratchpad', 'scratchpad_read', 'scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete']),
  bridgeTool: BRIDGE_TOOL,
}
const sessionKey = 'agent:main:test:references'
const big = Array.from({ length: 2000 }, (_, i) => `line ${i} é ✓ ${'x'.repeat(i % 13)}`).join('\n')
let call = 0
const ev = (toolName: string, params: Record<string, unknown>) => ({ toolName, params, toolCallId: `c${++call}`, runId: 'run-1' })

describe('references: {{observation:<id or name>}} in tool arguments', () => {
  it('tells arguments with a reference from those without, cheaply', () => {
    expect(hasReference({ path: 'a', content: 'plain {{ text }}' })).toBe(false)
    expect(hasReference({ edits: [{ text: 'x {{observation:abc}} y' }] })).toBe(true)
    expect(hasReference({ n: 1, b: true, z: null })).toBe(false)
  })

  it('expands a parked result and a named entry to their whole content, by id or name', async () => {
    const parked = await offloadObservation({ stateDir, sessionKey, content: big, toolName: 'read' })
    expect(parked.offloaded).toBe(true)
    const id = parked.entry!.id
    await writeObservation({ stateDir, sessionKey, name: 'notes', content: 'the notes' })
    const r = await expandCall(opts, ev('write', { path: 'out.txt', content: `{{observation:${id}}}` }), { sessionKey })
    expect(r?.params).toEqual({ path: 'out.txt', content: big })
    const byName = await expandCall(opts, ev('exec', { command: 'echo', stdin: ['a {{ observation: notes }} b', `{{observation:${parked.entry!.name}}}`] }), { sessionKey })
    expect(byName?.params).toEqual({ command: 'echo', stdin: ['a the notes b', big] })
  })

  it('leaves calls without references, the plugin\'s own tools and housekeeping runs alone', async () => {
    expect(await expandCall(opts, ev('write', { path: 'a', content: 'no reference' }), { sessionKey })).toBeUndefined()
    expect(await expandCall(opts, ev('scratchpad_write', { name: 'x', content: '{{observation:notes}}' }), { sessionKey })).toBeUndefined()
    expect(await expandCall(opts, ev('write', { content: '{{observation:notes}}' }), {})).toBeUndefined()
    isHousekeeping({ trigger: 'memory', runId: 'flush-run', sessionKey: 'agent:main:internal-session-effects:x' })
    expect(await expandCall(opts, ev('write', { content: '{{observation:notes}}' }), { sessionKey: 'agent:main:internal-session-effects:x', runId: 'flush-run' })).toBeUndefined()
  })

  it('blocks an unknown or deleted reference, and an expansion over the size bound, with a reason', async () => {
    const unknown = await expandCall(opts, ev('write', { path: 'f', content: 'x {{observation:nope}}' }), { sessionKey })
    expect(unknown).toMatchObject({ block: true })
    expect(unknown?.blockReason).toMatch(/\{\{observation:nope\}\} names no entry of this session's scratchpad.*write did not run/)
    expect(unknown?.params).toBeUndefined()
    const other = await expandCall(opts, ev('write', { content: '{{observation:notes}}' }), { sessionKey: 'agent:main:test:another-session' })
    expect(other?.block).toBe(true) // entries are per session
    const small = await expandCall({ ...opts, maxBytes: 100 }, ev('write', { content: '{{observation:read_1}}' }), { sessionKey })
    expect(small?.block).toBe(true)
    expect(small?.blockReason).toMatch(/more than 100 bytes/)
  })

  it('expands a call through the Tool Search bridge at its inner tool, once', async () => {
    // OpenClaw runs the hook for `tool_call`, then for the inner tool under its own call id.
    const outer = { toolName: BRIDGE_TOOL, params: { id: 'write', args: { path: 'o', content: 'A{{observation:notes}}' } }, toolCallId: 'bridge-1', runId: 'run-2' }
    expect(await expandCall(opts, outer, { sessionKey })).toBeUndefined()
    // Code cells (Tool Search's, Code Mode's) are JavaScript: their calls reach the hook one by one.
    const code = "return await openclaw.tools.call('write', { content: '{{observation:notes}}' })"
    expect(await expandCall(opts, { toolName: 'tool_search_code', params: { code } }, { sessionKey })).toBeUndefined()
    expect(await expandCall(opts, { toolName: 'exec', toolKind: 'code_mode_exec', params: { code } }, { sessionKey })).toBeUndefined()
    const inner = { toolName: 'write', params: { path: 'o', content: 'A{{observation:notes}}' }, toolCallId: 'tool_search_code:bridge-1:write:1', runId: 'run-2' }
    expect((await expandCall(opts, inner, { sessionKey }))?.params).toEqual({ path: 'o', content: 'Athe notes' })
    // A content that holds the text of a reference is never expanded again (the same call's hook run twice).
    await writeObservation({ stateDir, sessionKey, name: 'literal', content: 'docs mention {{observation:nope}} literally' })
    const call = { toolName: 'write', params: { content: '{{observation:literal}}' }, toolCallId: 'c-literal', runId: 'run-2' }
    const first = await expandCall(opts, call, { sessionKey })
    expect(first?.params).toEqual({ content: 'docs mention {{observation:nope}} literally' })
    expect(await expandCall(opts, { ...call, params: first!.params! }, { sessionKey })).toBeUndefined()
  })
})

describe('entry tools (seed 004)', () => {
  const key = 'agent:main:test:entries'
  const tools = Object.fromEntries(entryTools(stateDir, key).map((t) => [t.name, t]))
  const run = async (name: string, params: Record<string, unknown>) => {
    const r = await tools[name].execute('id', params, undefined, undefined)
    return (r.content[0] as { text: string }).text
  }

  it('writes, edits (full or old/new with replace_all), lists and deletes a named entry', async () => {
    expect(Object.keys(tools)).toEqual(['scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete'])
    for (const t of Object.values(tools)) expect(t.catalogMode).toBeUndefined() // in Tool Search's catalog
    expect(await run('scratchpad_write', { name: 'plan', content: 'a TODO\nb TODO' })).toMatch(/^Saved "plan" \(13 characters, 2 lines\)/)
    expect(await run('scratchpad_edit', { name: 'plan', old_string: 'TODO', new_string: 'ok', replace_all: true })).toBe('Edited "plan": 2 replacements; now 9 characters, 2 lines.')
    await expect(run('scratchpad_edit', { name: 'plan', old_string: 'zzz', new_string: 'y' })).rejects.toMatchObject({ code: 'NotFound' })
    await expect(run('scratchpad_edit', { name: 'plan', content: 'x', old_string: 'a', new_string: 'b' })).rejects.toThrow(/either `content`/)
    expect(await run('scratchpad_edit', { name: 'plan', content: 'rewritten' })).toBe('Edited "plan": overwritten; now 9 characters, 1 lines.')
    expect(await run('scratchpad_list', {})).toMatch(/^1 entry:\n- plan \(id [0-9a-f]{16}\): 9 characters, 1 lines, created \S+$/)
    expect(await run('scratchpad_delete', { name: 'plan' })).toBe('Deleted "plan".')
    expect(await run('scratchpad_list', {})).toBe('The scratchpad has no entries.')
    await expect(run('scratchpad_delete', { name: 'plan' })).rejects.toMatchObject({ code: 'NotFound' })
  })

  it("refuses bad arguments and the plugin's own entries", async () => {
    await expect(run('scratchpad_write', { name: 'x' })).rejects.toThrow(/needs `content`/)
    await expect(run('scratchpad_write', { content: 'x' })).rejects.toThrow(/needs `name`/)
    await expect(run('scratchpad_write', { name: 'a/b', content: 'x' })).rejects.toMatchObject({ code: 'InvalidArg' })
    for (const name of ['context-native-session', 'context-native-scratchpad']) {
      await expect(run('scratchpad_write', { name, content: '{}' })).rejects.toThrow(/reserved/)
      await expect(run('scratchpad_delete', { name })).rejects.toThrow(/reserved/)
    }
  })

  it('tells the model where a partial read sits', () => {
    const base = { id: 'i', name: 'n', kind: 'text' as const, encoding: 'utf-8' as const, truncated: false, totalChars: 100, totalBytes: 100, totalLines: 10 }
    expect(readFooter({ ...base, mode: 'range', start: 10, end: 50 })).toBe('\n\n[characters 10-50 of 100 in "n"; read on with offset=50]')
    expect(readFooter({ ...base, mode: 'tail', start: 60, end: 100 })).toBe('\n\n[characters 60-100 of 100 in "n"]')
    expect(readFooter({ ...base, mode: 'full', start: 0, end: 100 })).toBe('')
    expect(readFooter({ ...base, mode: 'grep', matches: 3 })).toBe('\n\n[3 matching line(s) of 10 in "n"]')
    expect(readFooter({ ...base, mode: 'lines', startLine: 1, endLine: 10 })).toBe('')
    expect(readFooter({ ...base, mode: 'lines', startLine: 2, endLine: 4 })).toBe('\n\n[lines 2-4 of 10 in "n"]')
  })
})
