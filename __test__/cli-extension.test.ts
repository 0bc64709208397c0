// The example OpenClaw extension (examples/pi-extension/index.ts, route 2: the core patch) driven through pi's extension
// events by a stand-in for pi's ExtensionAPI: the prepend, the nudges, tool_result capture and offload,
// scratchpad_read, the checkpoint at 80% and before compaction, the restore after it, and resume.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createRequire } from 'node:module'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const native = createRequire(import.meta.url)('../index.js')
// The extension imports the package by name, as it would inside OpenClaw.
vi.mock('@openclaw/context-native', () => createRequire(import.meta.url)('../index.js'))

type Handler = (event: any, ctx: any) => any

function fakePi() {
  const handlers = new Map<string, Handler[]>()
  const tools = new Map<string, any>()
  const entries: any[] = []
  const sent: any[] = []
  let usage: { tokens: number | null; contextWindow: number; percent: number | null } | undefined
  const sessionId = `ext-test-${process.pid}-${Math.random().toString(16).slice(2)}`
  const ctx = {
    sessionManager: {
      getSessionId: () => sessionId,
      getEntries: () => entries,
      getLeafId: () => (entries.length ? entries[entries.length - 1].id : null),
      getSessionFile: () => '/tmp/session.jsonl',
    },
    getContextUsage: () => usage,
    model: undefined,
  }
  const pi = {
    on(event: string, h: Handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), h])
    },
    registerTool(tool: any) {
      tools.set(tool.name, tool)
    },
    appendEntry(customType: string, data: unknown) {
      const prev = entries.length ? entries[entries.length - 1].id : null
      entries.push({ type: 'custom', customType, data, id: `e${entries.length + 1}`, parentId: prev, timestamp: new Date().toISOString() })
    },
    sendMessage(message: any, options: any) {
      sent.push({ message, options })
    },
  }
  return {
    pi,
    ctx,
    tools,
    entries,
    sent,
    sessionId,
    setUsage(tokens: number | null, contextWindow = 200_000) {
      usage = { tokens, contextWindow, percent: tokens === null ? null : (tokens / contextWindow) * 100 }
    },
    async emit(event: string, payload: any = {}) {
      let result: any
      for (const h of handlers.get(event) ?? []) result = (await h({ type: event, ...payload }, ctx)) ?? result
      return result
    },
    handlers,
  }
}

let stateDir: string
let mod: typeof import('../examples/pi-extension/index.ts')
beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'ext-test-'))
  mod = await import('../examples/pi-extension/index.ts')
})
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

const userMessage = (text: string) => ({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() })

function lastUserText(messages: any[]) {
  const m = [...messages].reverse().find((x) => x.role === 'user')
  return m.content.map((c: any) => c.text).join('')
}

describe('route 2: the pi extension for the core patch', () => {
  it('the plugin config schema and resolveSettings agree on every default', () => {
    const schema = JSON.parse(readFileSync(join(here, '..', 'examples', 'pi-extension', 'settings.schema.json'), 'utf8'))
    const pkg = JSON.parse(readFileSync(join(here, '..', 'examples', 'pi-extension', 'package.json'), 'utf8'))
    // Route 2 is not an OpenClaw plugin: nothing may point OpenClaw's plugin loader at it.
    expect(pkg.openclaw).toBeUndefined()
    const manifest = { configSchema: schema }
    const resolved: any = mod.resolveSettings({ stateDir: '/x' })
    let checked = 0
    for (const [group, schema] of Object.entries<any>(manifest.configSchema.properties)) {
      if (schema.type !== 'object') continue
      for (const [key, prop] of Object.entries<any>(schema.properties)) {
        expect(prop.default, `${group}.${key} has a default`).not.toBeUndefined()
        expect(resolved[group][key], `${group}.${key}`).toEqual(prop.default)
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15)
    for (const k of ['nudgeAfterTurns', 'nudgeOnPlanDetected', 'nudgeAfterCompaction', 'nudgeTurnsSinceLastUse', 'enabled', 'maxTokens']) {
      expect(manifest.configSchema.properties.scratchpad.properties).toHaveProperty(k)
    }
  })

  it('wires tools, prepend, gauge, checkpoints, offload, restore and nudges through pi events', async () => {
    const f = fakePi()
    const sessionKey = `agent:main:telegram:direct:${f.sessionId}`
    const factory = mod.createContextNativeExtension({
      settings: { stateDir, scratchpad: { nudgeAfterCompaction: 1 } },
      sessionKey: () => sessionKey,
    })
    await factory(f.pi as any)
    expect([...f.tools.keys()].sort()).toEqual(['scratchpad_read', 'session_scratchpad'])
    expect(f.tools.get('session_scratchpad').parameters).toEqual(native.getScratchpadToolDefinition().parameters)

    await f.emit('session_start', { reason: 'startup' })
    const sys = await f.emit('before_agent_start', { prompt: 'hi', systemPrompt: 'BASE' })
    expect(sys.systemPrompt).toMatch(/^BASE\n\n## Session Scratchpad/)

    // The model writes a plan: the entries to persist are appended, the model sees the message.
    const r = await f.tools.get('session_scratchpad').execute('call1', { action: 'set_plan', content: '1. Fix auth bug\n2. Add test' }, undefined, undefined, f.ctx)
    expect(r.content[0].text).toMatch(/plan/i)
    expect(f.entries.map((e) => e.customType)).toEqual(['openclaw:scratchpad:plan'])

    // Below the gauge: only the scratchpad is prepended, to the last user message, transiently.
    f.setUsage(60_000)
    const original = [userMessage('first'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, userMessage('continue with step 2')]
    const ctx1 = await f.emit('context', { messages: original })
    const text1 = lastUserText(ctx1.messages)
    expect(text1).toContain('[Session Scratchpad - your persistent working memory]')
    expect(text1).toContain('1. Fix auth bug')
    expect(text1.endsWith('continue with step 2')).toBe(true)
    expect(text1).not.toMatch(/\[Context:/)
    expect(lastUserText(original)).toBe('continue with step 2') // the session's own message is untouched

    // At 85%: a checkpoint on disk and the gauge line saying so.
    f.setUsage(170_000)
    const ctx2 = await f.emit('context', { messages: original })
    expect(lastUserText(ctx2.messages)).toContain('[Context: 85% | 170k/200k tokens | Checkpoint saved]')
    const cpDir = join(stateDir, 'context', 'checkpoints', native.sessionDirName(sessionKey))
    expect(readdirSync(cpDir).filter((n) => n.endsWith('.yaml'))).toEqual(['cp_001.yaml'])

    // A large tool result is parked; the model gets the synthetic observation and can read it back.
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`).join('\n')
    const replaced = await f.emit('tool_result', {
      toolCallId: 't1',
      toolName: 'read',
      input: { path: 'src/auth/login.ts' },
      content: [{ type: 'text', text: big }],
      isError: false,
    })
    const observation = JSON.parse(replaced.content[0].text)
    expect(observation.size_bytes).toBeGreaterThan(4096)
    const read = await f.tools.get('scratchpad_read').execute('call2', { scratchpad_id: observation.scratchpad_id, mode: 'tail', n: 30 }, undefined, undefined, f.ctx)
    expect(read.content[0].text).toBe(big.slice(-30))
    // ...and the tool_result capture recorded the tool and the file it read (incremental state).
    const captured = native.readContextStateSync({ stateDir, sessionKey })
    expect(captured.toolsUsed).toContain('read')
    expect(captured.filesRead).toContain('src/auth/login.ts')
    // A small one stays inline.
    expect(await f.emit('tool_result', { toolCallId: 't2', toolName: 'bash', input: { command: 'ls' }, content: [{ type: 'text', text: 'a\nb' }], isError: false })).toBeUndefined()

    // Compaction: a checkpoint before, with the captured files; the restore text after, as a hidden
    // message on the next turn; and the after-compaction nudge in front of the next user message.
    await f.emit('session_before_compact', {
      preparation: {
        firstKeptEntryId: 'e1',
        messagesToSummarize: original,
        turnPrefixMessages: [],
        isSplitTurn: false,
        tokensBefore: 181_000,
        fileOps: { read: new Set(['docs/plan.md']), written: new Set<string>(), edited: new Set(['src/auth/session.ts']) },
        settings: {},
      },
      branchEntries: [],
      signal: new AbortController().signal,
    })
    expect(readdirSync(cpDir).filter((n) => n.endsWith('.yaml')).sort()).toEqual(['cp_001.yaml', 'cp_002.yaml'])
    const yaml = readFileSync(join(cpDir, 'cp_002.yaml'), 'utf8')
    expect(yaml).toMatch(/trigger: "?compaction"?/)
    expect(yaml).toContain('src/auth/login.ts') // from the tool_result capture
    expect(yaml).toContain('src/auth/session.ts') // from the preparation's fileOps

    await f.emit('session_compact', { compactionEntry: {}, fromExtension: false })
    expect(f.sent).toHaveLength(1)
    expect(f.sent[0].message.customType).toBe(mod.RESTORE_MESSAGE_TYPE)
    expect(f.sent[0].options).toEqual({ deliverAs: 'nextTurn' })
    // the restore, within its budget, then the line naming the history the compacted messages were kept in (issue 49)
    const sentText = f.sent[0].message.content as string
    const line = sentText.split('\n').at(-1)!
    expect(line).toMatch(/^\[Messages? #1(-#\d+)? compacted: history-1 \(\d+ B\)\. Grep all: scratchpad_read \{"name":"history","pattern":"<regex>"\}\]$/)
    expect(sentText).toBe(`${native.renderCheckpoint({ stateDir, sessionKey }, { mode: 'post-compaction', maxTokens: 800 - native.countTokens(line) - 1 })}\n${line}`)
    expect(native.readObservationSync({ stateDir, sessionKey, name: 'history', pattern: 'step 2' }).content).toMatch(/:\[#3 user [-\dT:Z]+\] continue with step 2/)
    f.setUsage(null)
    const ctx3 = await f.emit('context', { messages: [userMessage('where were we?')] })
    expect(lastUserText(ctx3.messages)).toMatch(/^\[Hint: /)

    // Resume in a new process: the scratchpad comes back from the session's entries.
    native.clearScratchpad(f.sessionId)
    expect(native.getScratchpadContent(f.sessionId)).toBeUndefined()
    const again = fakePi()
    again.entries.push(...f.entries)
    ;(again.ctx.sessionManager as any).getSessionId = () => f.sessionId
    await mod.createContextNativeExtension({ settings: { stateDir } })(again.pi as any)
    await again.emit('session_start', { reason: 'resume' })
    expect(native.getScratchpadContent(f.sessionId)).toContain('1. Fix auth bug')
    native.clearScratchpad(f.sessionId)
    expect(existsSync(stateDir)).toBe(true)
  })

  it('scratchpad.enabled: false registers no scratchpad tool and prepends nothing', async () => {
    const f = fakePi()
    await mod.createContextNativeExtension({ settings: { stateDir, scratchpad: { enabled: false } } })(f.pi as any)
    expect([...f.tools.keys()]).toEqual(['scratchpad_read'])
    f.setUsage(10_000)
    expect(await f.emit('context', { messages: [userMessage('hi')] })).toBeUndefined()
  })
})
