// npm run eval:restore (bin/lib/eval-restore.mjs) and its extraction module (bin/lib/recall.mjs): what a
// summary kept, how recall is counted, the naive texts' budget, and clear notes for transcripts it cannot measure.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-ignore plain ESM module without types
import { recall, referenceItems, repeatedLines, sessionTask, summaryItems, taskPresent, basenameOf, writtenSummary, hostSuffix } from '../bin/lib/recall.mjs'
// @ts-ignore plain ESM module without types
import { evaluateTranscript, formatContinuation, lastTokens, modifiedWritten, naiveTexts, restoreFilePaths, summarize, summarizeContinuation, transcriptFiles } from '../bin/lib/eval-restore.mjs'
// @ts-ignore plain ESM module without types
import { carried, continuationCases, continuationNames } from '../bin/lib/continuation.mjs'
import { briefingRows } from '../bin/lib/briefing.mjs'
// @ts-ignore plain ESM module without types
import { defectCounts, restoreDefects, taskDefect } from '../bin/lib/restore-defects.mjs'

const native = createRequire(import.meta.url)('../index.js')

describe('modifiedWritten', () => {
  it('counts a modified file written as the agent would type it: under the stated root, absolute, or as given relative', () => {
    const restore = [
      'Files (relative to the working directory): MEMORY.md',
      'Files (under /w/app/):',
      'Files modified: src/a.ts, /etc/hosts',
      'Files read: src/b.ts',
      'Other files: src/c.ts (+3 more)',
      'Identifiers: src/d.ts',
    ].join('\n')
    expect(restoreFilePaths(restore)).toEqual(['MEMORY.md', '/w/app/src/a.ts', '/etc/hosts', '/w/app/src/b.ts', '/w/app/src/c.ts'])
    // src/d.ts is only a name on the Identifiers line, /w/app/a.ts is not a path the restore writes
    expect(modifiedWritten(['/w/app/src/a.ts', 'MEMORY.md', '/w/app/src/c.ts', '/w/app/src/d.ts', '/w/app/a.ts'], restore)).toEqual({ modified: 5, written: 3 })
    expect(modifiedWritten([], restore)).toEqual({ modified: 0, written: 0 })
  })
})

describe('summaryItems', () => {
  it('takes files by basename, code spans whole, identifiers from prose and fenced blocks', () => {
    const summary = [
      '# Goal',
      'Refactor `coding-agent` so AgentSession serves print/json and rpc modes.',
      '- `/Users/x/pi-mono/packages/coding-agent/src/core/agent-session.ts` (885 lines)',
      '- see docs/refactor.md and src/modes/ and https://github.com/x/y/issues/288 (v0.25.3)',
      'Run `npm run check`; `npm run check` again.',
      '```ts',
      'class AgentSession { dispose() ; setModel(model) }',
      '```',
    ].join('\n')
    const items = summaryItems(summary)
    const byText = Object.fromEntries(items.map((i: any) => [i.text, i.kind]))
    expect(byText['agent-session.ts']).toBe('file')
    expect(byText['refactor.md']).toBe('file')
    expect(byText['modes']).toBe('file')
    expect(byText['coding-agent']).toBe('code')
    expect(byText['npm run check']).toBe('code')
    expect(byText['agentsession']).toBe('ident')
    expect(byText['setmodel']).toBe('ident')
    expect(byText['dispose']).toBe('ident')
    // not files: a URL, a version, a pair of words with a slash
    expect(byText['288']).toBeUndefined()
    expect(byText['json']).toBeUndefined()
    expect(Object.keys(byText).some((t) => t.includes('0.25'))).toBe(false)
    // deduplicated, lower-cased
    expect(items.filter((i: any) => i.text === 'npm run check')).toHaveLength(1)
    expect(basenameOf('https://a.b/c.ts')).toBeNull()
    expect(basenameOf('~/.pi/agent/models.json')).toBe('models.json')
  })

  it('recall is case-insensitive containment, per kind', () => {
    const items = summaryItems('Edit `Main.ts` and call `runPrintMode()`; SessionManager stays.')
    const r = recall(items, 'files: src/main.ts; SESSIONMANAGER')
    expect(r.total).toBe(3)
    expect(r.found).toBe(2)
    expect(r.missed).toEqual(['runprintmode()'])
    expect(r.byKind.file).toEqual({ found: 1, total: 1 })
    expect(recall([], 'x').recall).toBeNull()
  })

  it("counts what the summary's writer chose, not what the host appends to any summary", () => {
    // OpenClaw 2026.9.6's safeguard (finalizeSummaryText) appends these, in this order, after its LLM's summary and
    // after a compaction provider's alike: the texts as its dist writes them
    const body = '## Goal\nShip `deployRelease` in src/release.ts\n\n---\n\n**Turn Context (split turn):**\n\n## Decisions\n- use `fastPath`'
    const suffix = [
      '\n\n## Recent turns preserved verbatim\n- User: run `bin/run-cron.sh` with job_id 7',
      '\n\n## Tool Failures\n- exec: `npm run buildAll` failed',
      '\n\n<read-files>\nsrc/notes.ts\n</read-files>\n\n<modified-files>\nsrc/other.ts\n</modified-files>',
      '\n\n<workspace-critical-rules>\n## Red Lines\n- `trash` > `rm`, see SOUL.md\n</workspace-critical-rules>',
    ].join('')
    const texts = (s: string) => summaryItems(s).map((i: any) => i.text)
    expect(writtenSummary(body + suffix, 'openclaw')).toBe(body)
    expect(texts(writtenSummary(body + suffix, 'openclaw'))).toEqual(['release.ts', 'deployrelease', 'fastpath'])
    // what the host appended is what the model reads after the restore in replace mode (eval's `received`)
    expect(hostSuffix(body + suffix, 'openclaw')).toBe(suffix.trim())
    expect(hostSuffix(body, 'openclaw')).toBe('')
    expect(hostSuffix(`${body}\n\n<read-files>\nsrc/notes.ts\n</read-files>`, 'pi')).toBe('')
    // a section the host appends alone is cut too (no preserved turns, only the file lists)
    expect(writtenSummary(`${body}\n\n<read-files>\nsrc/notes.ts\n</read-files>`, 'openclaw')).toBe(body)
    // pi appends its file lists to its own summary only: a pi summary is its writer's whole
    const pi = `${body}\n\n<read-files>\nsrc/notes.ts\n</read-files>`
    expect(writtenSummary(pi, 'pi')).toBe(pi)
    expect(texts(writtenSummary(pi, 'pi'))).toContain('notes.ts')
    // Claude Code's pointer to the transcript file is its own line, not the summary's choice
    const cc =
      'Summary:\n1. Fix `parseArgs` in cli.ts\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/u/.claude/projects/p/4d5611e5-241a-462a-8d15-5122611a9569.jsonl\nContinue.'
    expect(texts(writtenSummary(cc, 'claude-code'))).toEqual(['cli.ts', 'parseargs'])
    expect(texts(cc)).toContain('4d5611e5-241a-462a-8d15-5122611a9569.jsonl')
  })

  it('measures against the summary as a restore may hold it: its credentials redacted by the core', () => {
    const key = `sk_inst_${'1979434df72e1bbce3adfa12'}`
    const summary = `## Critical Context\n- InStreet API Key: \`${key}\`\n- run \`deploy.sh --token ${'a1b2c3d4e5f6a7b8c9d0'}\` from \`ops_tools\``
    expect(native.redactCredentials(`API Key: ${key}`)).toBe('API Key: [redacted]')
    expect(native.redactCredentials('nothing here: src/main.ts, a1b2c3d4')).toBe('nothing here: src/main.ts, a1b2c3d4')
    const texts = referenceItems(summary, 'openclaw', native.redactCredentials).map((i: any) => i.text)
    expect(texts).toEqual(expect.arrayContaining(['deploy.sh --token [redacted]', 'ops_tools']))
    expect(texts.some((t: string) => t.includes('1979434df') || t.includes('a1b2c3d4e5'))).toBe(false)
    // the span that held only the key names nothing once it is redacted
    expect(texts).not.toContain('[redacted]')
    expect(summaryItems(summary).map((i: any) => i.text)).toContain(key)
    expect(() => native.redactCredentials(5 as never)).toThrow(/String/)
  })

  it('repeated lines, the task rule, and task presence', () => {
    expect(repeatedLines('a\n b\nb \n\n\nc')).toEqual([{ line: 'b', n: 2 }])
    // the user's requests as the core reads them (native.userRequests): their own words, however short (issue 21),
    // wrappers, injections, host text and slash commands skipped
    const asked = (...texts: string[]) => native.userRequests(texts.map((content) => ({ role: 'user', content })))
    expect(sessionTask(asked('/mode', 'Fix the bug'))).toBe('Fix the bug')
    expect(sessionTask(asked('/model sonnet', 'ログインのバグを直してください'))).toBe('ログインのバグを直してください')
    expect(
      sessionTask(
        asked(
          '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
          '<command-name>/compact</command-name>\n<command-args>keep it short</command-args>',
          '[Post-compaction checkpoint restore]\n<checkpoint-data>\nTask: x\n</checkpoint-data>\n\nバグを直して',
        ),
      ),
    ).toBe('バグを直して')
    expect(sessionTask(asked('/x', '<system-reminder>r</system-reminder>'))).toBeNull()
    expect(
      sessionTask(
        asked('Conversation info (untrusted metadata):\n```json\n{"id": 1}\n```\n\n[Telegram Ann 2026-01-05 10:00 UTC] Deploy to prod\n[message_id: 9]'),
      ),
    ).toBe('Deploy to prod')
    expect(() => native.userRequests('not an array' as never)).toThrow(/messages/)
    // present: the Task line states one of the requests (the first substantive one need not be the first)
    expect(taskPresent(['hi', 'Fix  the login\nbug please'], 'x\nTask: fix the login bug please\n')).toBe(true)
    expect(taskPresent(['Fix the login bug please'], 'Task: fix the logout bug')).toBe(false)
    expect(taskPresent(['Fix the login bug please'], 'Key exchanges: Fix the login bug please')).toBe(false)
    expect(taskPresent([], 'Task: anything')).toBeNull()
  })
})

describe('naive texts', () => {
  it('fit the budget exactly from the end, the first message at most half', () => {
    const conv = Array.from({ length: 400 }, (_, i) => `user: message number ${i} about src/file${i}.ts`).join('\n\n')
    const last = lastTokens(conv, 100)
    expect(native.countTokens(last)).toBeLessThanOrEqual(100)
    expect(native.countTokens(conv.slice(conv.length - last.length - 3))).toBeGreaterThan(100)
    expect(conv.endsWith(last)).toBe(true)
    const first = 'Refactor the whole project, '.repeat(40)
    const n = naiveTexts(conv, first, 200)
    expect(native.countTokens(n.last)).toBeLessThanOrEqual(200)
    expect(native.countTokens(n.firstLast)).toBeLessThanOrEqual(200)
    expect(n.firstLast.startsWith('user: Refactor the whole project')).toBe(true)
    expect(native.countTokens(n.firstLast)).toBeGreaterThan(150)
  })
})

describe('evaluateTranscript on bad input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eval-restore-test-'))
  const line = (o: object) => JSON.stringify(o)
  const user = (t: string) => line({ type: 'message', timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: t, timestamp: 1 } })
  const agent = (t: string) => line({ type: 'message', timestamp: '2025-01-01T00:00:01Z', message: { role: 'assistant', content: [{ type: 'text', text: t }], stopReason: 'stop', timestamp: 2 } })

  it('says a transcript has no compaction, and skips it', async () => {
    const f = join(dir, 'none.jsonl')
    writeFileSync(f, [line({ type: 'session', id: 's1', timestamp: 't' }), user('fix the bug in main.ts'), agent('done')].join('\n') + '\n')
    const r = await evaluateTranscript(f)
    expect(r.compactions).toEqual([])
    expect(r.notes.join('\n')).toMatch(/no compaction entry/)
  })

  it('names a malformed line and measures the rest', async () => {
    const f = join(dir, 'broken.jsonl')
    writeFileSync(
      f,
      [
        line({ type: 'session', id: 's2', timestamp: 't' }),
        user('please fix the bug in `parseConfig` of src/config.ts'),
        'this line is not json',
        agent('I changed `parseConfig` in src/config.ts'),
        line({ type: 'compaction', timestamp: '2025-01-01T00:00:02Z', summary: 'Fixed `parseConfig` in `src/config.ts`.', firstKeptEntryIndex: 3, tokensBefore: 1000 }),
      ].join('\n') + '\n',
    )
    const r = await evaluateTranscript(f)
    expect(r.notes.join('\n')).toMatch(/broken\.jsonl:3: malformed line \(garbage\)/)
    expect(r.compactions).toHaveLength(1)
    const c = r.compactions[0]
    expect(c.items).toBe(2)
    expect(c.restoreTokens).toBeLessThanOrEqual(800)
    expect(c.task).toBe(true)
  })

  it('reports a compaction without a real summary and does not count it', async () => {
    const f = join(dir, 'empty-summary.jsonl')
    writeFileSync(
      f,
      [
        line({ type: 'session', id: 's3', timestamp: 't' }),
        user('please fix the bug in `parseConfig` of src/config.ts'),
        agent('I changed `parseConfig` in src/config.ts'),
        line({ type: 'compaction', timestamp: '2025-01-01T00:00:02Z', summary: '', firstKeptEntryIndex: 3, tokensBefore: 1000 }),
        user('now the tests of src/config.ts please'),
        agent('Added `parseConfigTest`.'),
        line({ type: 'compaction', timestamp: '2025-01-01T00:00:03Z', summary: 'Added `parseConfigTest` for config.ts.', firstKeptEntryIndex: 6, tokensBefore: 1000 }),
      ].join('\n') + '\n',
    )
    const r = await evaluateTranscript(f)
    expect(r.notes.join('\n')).toMatch(/empty-summary\.jsonl:4: compaction 1: no real summary .*reported, not counted/)
    expect(r.compactions.map((c: any) => c.compaction)).toEqual([2])
    // measured at the replace budget too, and per format
    expect(r.compactions[0].replace.maxTokens).toBe(2000)
    expect(r.compactions[0].replace.restoreTokens).toBeLessThanOrEqual(2000)
    expect(r.compactions[0].format).toBe('pi')
    expect(r.compactions[0].defaultMode).toBeNull()
    const s = summarize(r.compactions)
    expect(s.byFormat.pi.compactions).toBe(1)
    expect(s.replace.meanRecall).toBeGreaterThanOrEqual(0)
  })

  it('an OpenClaw v3 compaction: its details name files, zero-usage gateway replies and custom entries are no readings', async () => {
    const f = join(dir, 'openclaw-v3.jsonl')
    let prev: string | null = null
    let n = 0
    const entry = (o: object) => {
      const id = `e${++n}`
      const e = { ...o, id, parentId: prev, timestamp: `2026-01-05T10:00:${String(n).padStart(2, '0')}Z` }
      prev = id
      return line(e)
    }
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 }
    writeFileSync(
      f,
      [
        line({ type: 'session', version: 3, id: 'oc1', timestamp: '2026-01-05T10:00:00Z', cwd: '/w' }),
        entry({ type: 'custom', customType: 'openclaw:state', data: { x: 1 } }),
        entry({ type: 'message', message: { role: 'user', content: '[Telegram Ann 2026-01-05 10:00 UTC] Deploy to prod', timestamp: 1 } }),
        entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'exec', arguments: { command: 'make deploy' } }], stopReason: 'toolUse', usage: { input: 900, output: 10, cacheRead: 0, cacheWrite: 0 }, provider: 'anthropic' } }),
        entry({ type: 'message', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'exec', content: [{ type: 'text', text: 'deployed' }], timestamp: 2 } }),
        entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Deployed with `make deploy`.' }], stopReason: 'stop', usage: zero, provider: 'openclaw', model: 'gateway-injected' } }),
        // kept by the compaction (from e5 on): in default mode the plugin's checkpoint reads it too
        entry({ type: 'message', message: { role: 'user', content: '[Telegram Ann 2026-01-05 10:01 UTC] Now watch the logs of `ops/rollback.sh` for an hour', timestamp: 3 } }),
        entry({ type: 'compaction', summary: 'Deployed to prod with `make deploy`; see `deploy.yaml`.', firstKeptEntryId: 'e5', tokensBefore: 1000, fromHook: true, details: { readFiles: ['/w/ops/deploy.yaml'], modifiedFiles: [] } }),
      ].join('\n') + '\n',
    )
    const r = await evaluateTranscript(f)
    expect(r.notes.filter((x: string) => /threw/.test(x))).toEqual([])
    expect(r.compactions).toHaveLength(1)
    const c = r.compactions[0]
    expect(c.restore).toContain('Task: Deploy to prod')
    expect(c.restore).toContain('deploy.yaml')
    expect(c.byKind.file).toEqual({ found: 1, total: 1 })
    // reported as OpenClaw's (its custom entry), its restores scanned at both budgets
    expect(r.format).toBe('openclaw')
    expect(c.format).toBe('openclaw')
    expect(r.restores.map((x: any) => [x.compaction, Object.keys(x.defects)])).toEqual([[1, ['800', '2000']]])
    expect(r.restores[0].defects[800].task).toBe('Deploy to prod')
    // measured as the compaction provider receives it (the messages compacted), and as the plugin reads it in
    // default mode (the whole context: the kept request's file joins the restore)
    expect(c.restore).not.toContain('rollback.sh')
    expect(c.restore).toMatch(/Commands run: make deploy/)
    expect(c.defaultMode.restore).toContain('Working on: Now watch the logs of `ops/rollback.sh`')
    expect(c.defaultMode.restore).not.toMatch(/Commands run: make deploy/) // a kept message states it
    expect(c.defaultMode.restore).toContain('deploy.yaml')
    // scored on the summary's items the kept messages do not state: deploy.yaml, not `make deploy`
    expect([c.defaultMode.items, c.defaultMode.recall, c.defaultMode.compactedRecall]).toEqual([1, 1, 1])
    expect(c.defaultMode.task).toBe(true)
    expect(r.continuation).toEqual([]) // nothing after the compaction to need
    const s = summarize(r.compactions, 800, { continuation: r.continuation, restores: r.restores })
    expect(s.defects.byFormat.openclaw[800]).toEqual({ restores: 1, credential: 0, host: 0, escaped: 0, prose: 0, badTask: 0 })
    expect(s.continuation.compactions).toBe(0)
    expect(s.byFormat.openclaw.defaultMode).toEqual({ compactions: 1, meanRecall: 1, meanCompactedRecall: 1, taskPresent: 1, taskChecked: 1 })
  })

  it('finds transcripts by dropping them in a folder', () => {
    const files = transcriptFiles([dir])
    expect(files.map((f: string) => f.replace(/^.*[\\/]/, '')).sort()).toEqual(['broken.jsonl', 'empty-summary.jsonl', 'none.jsonl', 'openclaw-v3.jsonl'])
    rmSync(dir, { recursive: true, force: true })
  })
})

describe('continuation recall (bin/lib/continuation.mjs)', () => {
  const line = (o: object) => JSON.stringify(o)
  let n = 0
  let prev: string | null = null
  const entry = (o: object) => {
    const id = `c${++n}`
    const e = { ...o, id, parentId: prev, timestamp: `2026-01-05T10:00:${String(n).padStart(2, '0')}Z` }
    prev = id
    return line(e)
  }
  const user = (t: string) => entry({ type: 'message', message: { role: 'user', content: t, timestamp: 1 } })
  const said = (t: string) => entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: t }], stopReason: 'stop' } })
  const call = (args: object) => entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: `t${n}`, name: 'exec', arguments: args }], stopReason: 'toolUse' } })
  const result = (t: string) => entry({ type: 'message', message: { role: 'toolResult', toolCallId: `t${n}`, toolName: 'exec', content: [{ type: 'text', text: t }] } })

  it('names: file basenames, dotted, camelCase, PascalCase and snake_case names; never the common ones', () => {
    const names = [...continuationNames('Edit /w/src/core/agent_session.ts, call setModel and os.path.join on first_kept_id in AgentSession; process.env, e.g. 2fa_code, v1/x')]
    expect(names.sort()).toEqual(['agent_session.ts', 'agentsession', 'first_kept_id', 'os.path.join', 'setmodel'])
    expect(carried(['setmodel', 'agentsession'], 'we call setModel()')).toBe(0.5)
    expect(carried([], 'x')).toBeNull()
  })

  it('needed: met before the compaction, used after it, not kept, not given again; 30 assistant messages', () => {
    n = 0
    prev = null
    const lines = [
      line({ type: 'session', version: 3, id: 'cr', timestamp: '2026-01-05T10:00:00Z', cwd: '/w' }),
      user('Fix parseConfig in config.ts; we will need loadSettings and userGiven later'),
      call({ command: 'grep -n writeCache src/cache.ts' }),
      result('src/cache.ts:3: export function writeCache() { refoundName() }'),
      said('keptName is what the kept messages say'),
      entry({ type: 'compaction', summary: 'Fixing `parseConfig` in config.ts.', firstKeptEntryId: 'c4', tokensBefore: 1000 }),
      user('and userGiven please'),
      result('refoundName is defined in util.ts'),
      call({ command: 'sed -n 1,20p config.ts', note: 'parseConfig loadSettings writeCache keptName userGiven refoundName brandNewName' }),
      ...Array.from({ length: 29 }, () => said('working')),
      said('cache.ts once more, outside the window'),
    ]
    const cases = continuationCases(lines.join('\n') + '\n')
    expect(cases).toHaveLength(1)
    const c = cases[0]
    expect(c.line).toBe(6)
    expect(c.summary).toBe('Fixing `parseConfig` in config.ts.')
    expect([...c.needed].sort()).toEqual(['config.ts', 'loadsettings', 'parseconfig', 'writecache'])
    expect(c.scored).toBe(true)
    // the conversation before the kept messages, tool output left out
    expect(c.conversation).toContain('user: Fix parseConfig')
    expect(c.conversation).not.toContain('export function writeCache')
    expect(c.conversation).not.toContain('keptName')
    expect(continuationCases(lines.slice(0, 8).join('\n')).map((x: any) => x.scored)).toEqual([false])
  })

  it('reads Claude Code lines as recorded: the isCompactSummary line is the compaction, tool_use input counts', () => {
    const cc = (o: object) => line({ sessionId: 's', cwd: '/w', timestamp: '2026-01-05T10:00:00Z', ...o })
    const text = [
      cc({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'look at renderPanel in panel.tsx and fetchRows' } }),
      cc({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'ok, useRowCache too' }] } }),
      cc({ type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: null, compactMetadata: { trigger: 'auto', preTokens: 1000 } }),
      cc({ type: 'user', uuid: 's1', parentUuid: 'b1', isCompactSummary: true, message: { role: 'user', content: 'Summary: renderPanel in panel.tsx' } }),
      cc({ type: 'assistant', uuid: 'a2', parentUuid: 's1', message: { id: 'm2', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Edit', input: { file_path: '/w/panel.tsx', old: 'renderPanel fetchRows useRowCache' } }] } }),
    ].join('\n')
    const [c] = continuationCases(text)
    expect(c.line).toBe(4)
    expect(c.summary).toBe('Summary: renderPanel in panel.tsx')
    expect([...c.needed].sort()).toEqual(['fetchrows', 'panel.tsx', 'renderpanel', 'userowcache'])
    expect(carried(c.needed, c.summary)).toBe(0.5)
  })

  it("needed: the values of the agent's arguments as it wrote them, not the tool's keys or escapes glued to a name", () => {
    const cc = (o: object) => line({ sessionId: 's', cwd: '/w', timestamp: '2026-01-05T10:00:00Z', ...o })
    const edit = (input: object) => ({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Edit', input }] } })
    const text = [
      // before: the edit tool's keys and the names (a tab before this.agent in the code)
      cc({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'fix renderPanel' } }),
      cc({ uuid: 'a1', ...edit({ file_path: '/w/panel.ts', old_string: '\tthis.agent.run()', new_string: 'renderPanel()' }) }),
      cc({ type: 'user', uuid: 's1', isCompactSummary: true, message: { role: 'user', content: 'Summary: fixing renderPanel' } }),
      cc({ uuid: 'a2', ...edit({ file_path: '/w/panel.ts', old_string: '\tthis.agent.run()', new_string: 'renderPanel(this.agent)' }) }),
    ].join('\n')
    const [c] = continuationCases(text)
    // as ../shared/measures/continuation-recall.mjs counts: no file_path, old_string, new_string, tthis.agent.run
    expect([...c.needed].sort()).toEqual(['panel.ts', 'renderpanel', 'this.agent.run'])
  })

  it('reports what the targets ask for, in misses against the summary', async () => {
    const at = (k: number) => `2025-01-01T00:00:0${k}Z`
    const edit = (k: number) =>
      line({ type: 'message', timestamp: at(k), message: { role: 'assistant', content: [{ type: 'toolCall', id: `t${k}`, name: 'edit', arguments: { path: '/w/panel.ts', oldText: '\tthis.agent.run()', newText: 'renderPanel()' } }], stopReason: 'toolUse', timestamp: k } })
    const dir = mkdtempSync(join(tmpdir(), 'eval-needed-'))
    try {
      const file = join(dir, 'pi.jsonl')
      const lines = [
        line({ type: 'session', id: 's', timestamp: at(0) }),
        line({ type: 'message', timestamp: at(1), message: { role: 'user', content: 'fix renderPanel', timestamp: 1 } }),
        edit(2),
        line({ type: 'compaction', timestamp: at(3), summary: 'Fixing `renderPanel`.', tokensBefore: 1000 }),
        edit(4),
      ]
      writeFileSync(file, `${lines.join('\n')}\n`)
      const r = await evaluateTranscript(file, {})
      expect(r.notes).toEqual([])
      // needed: what the agent wrote in its arguments (panel.ts, renderPanel, this.agent.run), not the edit's keys
      // oldText and newText; the summary carries renderPanel
      expect(r.continuation.map((x: any) => [...x.needed].sort())).toEqual([['panel.ts', 'renderpanel', 'this.agent.run']])
      // the compacted messages kept as history (issue 49): one grep per name finds all three
      expect(r.continuation[0].history).toBe(1)
      expect(r.continuation[0].restoreHistory).toBe(1)
      expect(r.continuation[0].historyMissed).toEqual([])
      const s = summarizeContinuation(r.continuation)
      expect(s.history).toBe(1)
      // in misses (issue 51): the summary carries 1/3, so it misses 2/3; the restore may miss 2/3 of that, the others half
      expect(s.required.restore).toBeCloseTo(1 - (2 / 3) * (2 / 3))
      expect(s.required.both).toBeCloseTo(1 - (1 / 2) * (2 / 3))
      expect(s.required.replace).toBeCloseTo(1 - (1 / 2) * (2 / 3))
      expect(formatContinuation([r], s).at(-1)).toBe('  they ask for 55.6%, 66.7% and 66.7%')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('eval:restore agrees with the reference measures (../shared/measures)', () => {
  // The reference scripts ship beside the project (../shared); CI checks out both.
  const measures = join(__dirname, '..', '..', 'shared', 'measures')
  const reference = join(measures, 'continuation-recall.mjs')
  it.skipIf(!existsSync(reference))('continuation recall, on a bundled transcript: the same names needed, and the same shares carried', async () => {
    const file = join(__dirname, 'fixtures', 'transcripts', 'before-compaction.jsonl')
    const ref = spawnSync(process.execPath, [reference, join(__dirname, '..'), file], { encoding: 'utf8', maxBuffer: 1 << 26 })
    expect(ref.status, ref.stderr).toBe(0)
    // `file | line | needed | summary tokens | restore tokens | restore | LLM summary | summary + restore | ...`
    const rows = ref.stdout
      .split('\n')
      .filter((l) => l.startsWith('before-compaction.jsonl |'))
      .map((l) => l.split(' | '))
      .map((c) => ({ needed: Number(c[2]), restore: c[5], summary: c[6], both: c[7] }))
    const ours = (await evaluateTranscript(file, {})).continuation.filter((c: any) => c.scored !== false && c.needed.length >= 3)
    const pct = (x: number) => `${(100 * x).toFixed(0)}%`
    expect(rows.length).toBeGreaterThan(0)
    expect(ours.map((c: any) => ({ needed: c.needed.length, restore: pct(c.restore), summary: pct(c.summary), both: pct(c.both) }))).toEqual(rows)
  }, 120_000)

  it.skipIf(!existsSync(join(measures, 'briefing-overlap.mjs')))('briefing overlap, on a pi session with a compaction on a line pi skips: the same rows', async () => {
    // line 1013 holds a message and a compaction written back to back: pi (and the replay) skip it, its summary is
    // still recorded, and the reference scores the latest checkpoint written before it
    const file = join(__dirname, 'fixtures', 'transcripts', 'pi-mono-history', 'compact-2025-12-24.jsonl')
    const ref = spawnSync(process.execPath, [join(measures, 'briefing-overlap.mjs'), join(__dirname, '..'), file], { encoding: 'utf8', maxBuffer: 1 << 26 })
    expect(ref.status, ref.stderr).toBe(0)
    // `file | line | summary tokens | restore tokens | R-2 F1 restore | tail | oracle | ... | identifiers | useful`
    const rows = ref.stdout
      .split('\n')
      .filter((l) => l.startsWith('compact-2025-12-24.jsonl |'))
      .map((l) => l.split(' | '))
      .map((c) => ({ line: Number(c[1]), restore: c[4], tail: c[5], oracle: c[6], ids: Number(c[12]), useful: Number(c[13]) }))
    const r = await evaluateTranscript(file, {})
    const ours = briefingRows(readFileSync(file, 'utf8'), 'compact-2025-12-24.jsonl', r.restores, { latest: r.latestRestore })
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`
    expect(rows.map((x) => x.line)).toEqual([670, 1013])
    expect(ours.map((x: any) => ({ line: x.line, restore: pct(x.default.restore.f2), tail: pct(x.default.tail.f2), oracle: pct(x.default.oracle.f2), ids: x.default.restore.ids, useful: x.default.restore.useful }))).toEqual(rows)
  }, 120_000)
})

describe('restore defects (bin/lib/restore-defects.mjs)', () => {
  it('finds credentials, host text, escaped fragments, prose identifiers and the task line in the body only', () => {
    const restore = [
      '[Post-compaction checkpoint restore] NO_REPLY in the frame is not scanned',
      '<checkpoint-data>',
      'Task: hi',
      'Commands: openclaw channels add --token 123456789:AAabcdefghijklmnopqrstuvwxyz0123456789',
      'Working on: Conversation info (untrusted metadata):',
      'Key exchanges: [[reply_to_current]] Done, the job runs at 9',
      'Files: nJWT_SECRET, nnode_modules, server.ts',
      'Identifiers: parseConfig, 下午2点之后不喝咖啡/浓茶/奶茶, this is a whole sentence split into words here, src/a.ts',
      '</checkpoint-data>',
    ].join('\n')
    const d = restoreDefects(restore)
    expect(d.credential).toHaveLength(1)
    expect(d.host).toEqual(['Working on: Conversation info (untrusted metadata):', 'Key exchanges: [[reply_to_current]] Done, the job runs at 9'])
    expect(d.escaped).toEqual(['Files: nJWT_SECRET, nnode_modules, server.ts'])
    expect(d.prose).toEqual(['下午2点之后不喝咖啡/浓茶/奶茶', 'this is a whole sentence split into words here'])
    expect(d.task).toBe('hi')
    expect(d.taskDefect).toBe('greeting')
    expect(defectCounts(d)).toEqual({ credential: 1, host: 2, escaped: 1, prose: 2, badTask: 1 })
    const clean = restoreDefects('<checkpoint-data>\nTask: Fix the login bug in auth.ts\nIdentifiers: loginUser, AUTH_SECRET_NAME\n</checkpoint-data>')
    expect(defectCounts(clean)).toEqual({ credential: 0, host: 0, escaped: 0, prose: 0, badTask: 0 })
  })

  it('a greeting or a host prompt is not a task; a request is, in any language', () => {
    for (const t of ['hi', 'Hello!', 'Wake up, my friend!', 'ou_5f3a12: hello', '@claw hey there', '你好', '您好！', 'Good morning']) expect(taskDefect(t), t).toBe('greeting')
    for (const t of ['1', '👋', '...']) expect(taskDefect(t), t).toBe('no-words')
    for (const t of [
      'A new session was started via /new or /reset. Execute your Session Startup sequence now',
      'Read HEARTBEAT.md if it exists (workspace context). Follow it strictly.',
      'If working, briefly report progress with time spent',
      'Note: Reference memory below. Build on past successes',
      '[cron:8b380d56 PR Review Patrol] PR patrol for bills-bot',
      'System: [2026-03-29 16:44:52 GMT+8] Feishu DM | hello',
      '<ide_opened_file>The user opened src/a.ts</ide_opened_file> fix it',
      '[OpenClaw session new]',
      '[User sent media without caption]',
      '[Chat messages since your last reply - for context] Bob: lunch? [Current message - respond to this] Ann: deploy',
    ])
      expect(taskDefect(t), t).toBe('host')
    for (const t of ['Fix the login bug', 'Hi, can you deploy the dashboard to staging?', '帮我看看服务器的磁盘为什么满了', 'hello world program in rust please']) expect(taskDefect(t), t).toBeNull()
    expect(taskDefect('')).toBe('empty')
  })
})
