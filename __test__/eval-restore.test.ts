// npm run eval:restore (bin/lib/eval-restore.mjs) and its extraction module (bin/lib/recall.mjs): what a
// summary kept, how recall is counted, the naive texts' budget, and clear notes for transcripts it cannot measure.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-ignore plain ESM module without types
import { recall, repeatedLines, sessionTask, summaryItems, taskPresent, basenameOf } from '../bin/lib/recall.mjs'
// @ts-ignore plain ESM module without types
import { evaluateTranscript, lastTokens, naiveTexts, summarize, transcriptFiles } from '../bin/lib/eval-restore.mjs'

const native = createRequire(import.meta.url)('../index.js')

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

  it('repeated lines, the task rule, and task presence', () => {
    expect(repeatedLines('a\n b\nb \n\n\nc')).toEqual([{ line: 'b', n: 2 }])
    expect(sessionTask(['/mode', 'yes', 'ok', 'Fix the login bug please', 'later'])).toBe('Fix the login bug please')
    expect(sessionTask(['/model sonnet', 'ログインのバグを直してください'])).toBe('ログインのバグを直してください')
    expect(sessionTask(['/x', 'ok'])).toBeNull()
    expect(taskPresent('Fix  the login\nbug please', 'Task: fix the login bug please')).toBe(true)
    expect(taskPresent('Fix the login bug please', 'Task: fix the logout bug')).toBe(false)
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
    const s = summarize(r.compactions)
    expect(s.byFormat.pi.compactions).toBe(1)
    expect(s.replace.meanRecall).toBeGreaterThanOrEqual(0)
  })

  it('finds transcripts by dropping them in a folder', () => {
    const files = transcriptFiles([dir])
    expect(files.map((f: string) => f.replace(/^.*[\\/]/, '')).sort()).toEqual(['broken.jsonl', 'empty-summary.jsonl', 'none.jsonl'])
    rmSync(dir, { recursive: true, force: true })
  })
})
