// What the restore says after hand-written conversations in several languages (issue 51's cases): a plan reversed,
// a decision with its reason, a failure then its fix, a failure left open, ids with their roles, paths under a root.
// Each conversation is written as a checkpoint from its messages alone (what a compaction provider or a replay has)
// and rendered as the restore appended to OpenClaw's summary (800 tokens) and as replace mode's summary (2,000);
// the assertions are on the text the model would read.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { tempStateDir } from './checkpoint-helpers'

const native = createRequire(import.meta.url)('../index.js')

let clock = 1_780_000_000_000
let callId = 0
const user = (text: string) => ({ role: 'user', content: text, timestamp: (clock += 60_000) })
const agent = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', timestamp: (clock += 60_000) })
const call = (name: string, args: Record<string, unknown>) => ({
  role: 'assistant',
  content: [{ type: 'toolCall', id: `c${++callId}`, name, arguments: args }],
  stopReason: 'toolUse',
  timestamp: (clock += 1_000),
})
const result = (name: string, text: string, isError = false) => ({
  role: 'toolResult',
  toolCallId: `c${callId}`,
  toolName: name,
  content: [{ type: 'text', text }],
  isError,
  timestamp: (clock += 1_000),
})

/** The restore of `messages` at 800 tokens and as replace mode's summary at 2,000. */
function restores(messages: unknown[]): { restore: string; summary: string } {
  const { dir, cleanup } = tempStateDir('scenario')
  try {
    const key = 'agent:main:scenario'
    native.writeCheckpointSync({
      stateDir: dir, sessionKey: key, trigger: 'compaction', compactionCount: 1,
      tokenUsage: { inputTokens: 150_000, contextWindow: 200_000 },
      sessionFile: 'sessions/scenario.jsonl', channel: 'cli', agentId: 'main', messages, isSplitTurn: false,
    })
    return {
      restore: native.renderCheckpoint({ stateDir: dir, sessionKey: key }, { maxTokens: 800 }),
      summary: native.renderCheckpoint({ stateDir: dir, sessionKey: key }, { maxTokens: 2000, asSummary: true }),
    }
  } finally {
    cleanup()
  }
}

const line = (text: string, start: string) => text.split('\n').find((l) => l.startsWith(start)) ?? ''

describe('the restore after a hand-written conversation', () => {
  it('a plan reversed (German, Chinese): the new plan is the task, the old one is what it changed from', () => {
    const german = [
      user('Bitte baue den Export der Rechnungen als CSV-Datei in src/export/invoices.ts.'),
      call('read', { path: '/home/anna/billing/src/export/invoices.ts' }), result('read', 'export function exportInvoices() {}'),
      agent('Ich habe src/export/invoices.ts gelesen. Ich beginne mit dem CSV-Export.'),
      user('Planänderung: stattdessen bitte JSON verwenden, kein CSV.'),
      call('read', { path: '/home/anna/billing/src/export/format.ts' }), result('read', 'export const FORMAT = "csv"'),
      agent('Verstanden, ich stelle den Export auf JSON um.'),
    ]
    const chinese = [
      user('用 SQLite 存储用户的提醒事项，文件放在 data/reminders.db。'),
      agent('好的，我先用 SQLite 建表：reminders(id, text, due_at)。'),
      user('改用 PostgreSQL，数据库已经在 db.internal:5432 上了。'),
      agent('明白，改用 PostgreSQL，连接 db.internal:5432。'),
    ]
    for (const [messages, now, before] of [
      [german, 'stattdessen bitte JSON verwenden', 'CSV-Datei'],
      [chinese, '改用 PostgreSQL', '用 SQLite 存储'],
    ] as const) {
      for (const text of Object.values(restores(messages))) {
        const task = line(text, 'Task: ')
        expect(task, text).toContain(now)
        expect(task, text).toContain('(the user changed the plan)')
        expect(task, text).not.toContain(before)
        expect(line(text, 'Changed from: '), text).toContain(before)
      }
    }
  })

  it('a decision and a plan made before the plan changed are marked so, the change itself is the task', () => {
    const proposal = `${'Here is the plan for the invoice export. '.repeat(3)}\n\n1. Read the invoices from the billing database in pages of 500.\n2. Write each page as CSV rows with a header line, semicolon separated, dates in ISO 8601.\n3. Stream the file to the S3 bucket exports-prod under invoices/ with the date in the name.\n4. Add a test with three invoices and one with an empty page.\n\nShould I use semicolons as the separator so that Excel in Germany opens it directly?`
    const messages = [
      user('Build the invoice export for the billing service.'),
      agent(proposal),
      user('yes, semicolons'),
      agent('Done: the CSV export writes semicolon-separated rows.'),
      user('Change of plan: export JSON lines instead, no CSV.'),
      agent('Switching the export to JSON lines.'),
    ]
    for (const text of Object.values(restores(messages))) {
      expect(line(text, 'Task: '), text).toContain('export JSON lines instead')
      const decision = text.split('\n').find((l) => l.includes('user: yes, semicolons')) ?? ''
      expect(decision, text).toMatch(/^- \(before the plan changed\) /)
      expect(text.split('\n').find((l) => l.includes('Next action: ')), text).toContain('Next action: (before the plan changed) 1. Read the invoices')
    }
    // without the change, the same decision is not marked
    for (const text of Object.values(restores(messages.slice(0, 4)))) {
      const decision = text.split('\n').find((l) => l.includes('user: yes, semicolons')) ?? ''
      expect(decision, text).toMatch(/^- (?!\(before)/)
      expect(text.split('\n').find((l) => l.includes('Next action: ')), text).toContain('Next action: 1. Read the invoices')
    }
  })

  it('a decision with its reason (French): the choice and why are both said', () => {
    const messages = [
      user('On doit choisir un cache pour l’API des commandes.'),
      agent('Deux options :\n1. Redis : rapide, mais un service de plus à opérer.\n2. Le cache en mémoire de Postgres : rien à ajouter, mais moins rapide.\nJe recommande Redis, parce que la latence p99 doit rester sous 50 ms.'),
      user('D’accord pour Redis, la latence compte plus que l’exploitation.'),
      call('edit', { path: '/srv/orders/config/cache.yaml', oldText: 'backend: none', newText: 'backend: redis' }), result('edit', 'ok'),
      agent('Redis est configuré dans config/cache.yaml.'),
    ]
    for (const text of Object.values(restores(messages))) {
      expect(text).toContain('D’accord pour Redis, la latence compte plus que l’exploitation.')
      expect(text).toContain('parce que la latence p99 doit rester sous 50 ms')
      expect(line(text, 'Files modified: ')).toContain('/srv/orders/config/cache.yaml')
    }
  })

  it('a failure then its fix (English): the finding names the command, what it said and the file that fixed it', () => {
    const messages = [
      user('Run the test suite and fix whatever fails.'),
      call('bash', { command: 'npm test' }),
      result('bash', "FAIL src/parser.test.ts\n  TypeError: Cannot read properties of undefined (reading 'tokens')\n    at parse (src/parser.ts:42:17)\nTests: 1 failed, 57 passed", true),
      call('read', { path: '/work/app/src/parser.ts' }), result('read', 'export function parse(input) { return input.ast.tokens }'),
      call('edit', { path: '/work/app/src/parser.ts', oldText: 'input.ast.tokens', newText: 'input.ast?.tokens ?? []' }), result('edit', 'ok'),
      call('bash', { command: 'npm test' }), result('bash', 'Tests: 58 passed'),
      agent('Fixed: parse() read tokens of a missing AST; it now returns an empty list. All 58 tests pass.'),
    ]
    for (const text of Object.values(restores(messages))) {
      const finding = text.split('\n').find((l) => l.includes('`npm test` failed')) ?? ''
      expect(finding, text).toContain('FAIL src/parser.test.ts')
      expect(finding, text).toContain('after changing parser.ts')
      expect(text).toContain('All 58 tests pass.')
    }
  })

  it('a failure left open (Chinese): the exact error is in the restore', () => {
    const messages = [
      user('帮我配置一个每天早上8点的定时任务，用 openai 生成日报。'),
      call('bash', { command: 'openclaw cron add --name daily-report --at "0 8 * * *"' }), result('bash', 'created job 3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c'),
      call('bash', { command: 'openclaw cron run 3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c' }), result('bash', 'Error: No API key found for provider "openai"', true),
      agent('定时任务已创建（ID: 3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c），但运行失败：No API key found for provider "openai"。需要你提供 OpenAI 的 API key。'),
    ]
    for (const text of Object.values(restores(messages))) {
      expect(line(text, 'Task: ')).toContain('定时任务')
      expect(text).toContain('No API key found for provider "openai"')
      expect(text).toContain('3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c')
    }
  })

  it('ids with their roles (Spanish): each id is said beside what it is', () => {
    const messages = [
      user('Crea los trabajos programados para el informe.'),
      call('bash', { command: 'openclaw cron list --json' }),
      result('bash', '[{"id":"b1918bcf-fdcc-4152-aca3-4a34bd7def86","name":"informe-tarde"},{"id":"31f9c941-7608-476b-b6e5-a577f9346921","name":"informe-manana"}]'),
      agent('| Trabajo | ID |\n| --- | --- |\n| informe de la mañana 08:00 | 31f9c941-7608-476b-b6e5-a577f9346921 |\n| informe de la tarde 18:00 | b1918bcf-fdcc-4152-aca3-4a34bd7def86 |\n\nVersión de la plataforma: 4.5.9'),
    ]
    for (const text of Object.values(restores(messages))) {
      const saidWith = (role: string, value: string) => text.split('\n').some((l) => l.includes(role) && l.includes(value))
      expect(saidWith('informe de la mañana 08:00', '31f9c941-7608-476b-b6e5-a577f9346921'), text).toBe(true)
      expect(saidWith('informe de la tarde 18:00', 'b1918bcf-fdcc-4152-aca3-4a34bd7def86'), text).toBe(true)
      expect(saidWith('Versión de la plataforma', '4.5.9'), text).toBe(true)
    }
  })

  it('paths under a root: the root is stated once and each path is the file the agent opened', () => {
    const root = '/home/dev/openclaw/'
    const files = ['src/session/store.ts', 'src/session/lock.ts', 'src/gateway/server.ts', 'test/session.test.ts']
    const messages = [
      user('Refactor the session store in the gateway.'),
      ...files.flatMap((p) => [call('read', { path: root + p }), result('read', 'x')]),
      call('edit', { path: `${root}src/session/store.ts`, oldText: 'a', newText: 'b' }), result('edit', 'ok'),
      agent('The store now takes the lock from lock.ts.'),
    ]
    for (const text of Object.values(restores(messages))) {
      expect(text).toContain(`Files (under ${root}):`)
      expect(line(text, 'Files modified: ')).toBe('Files modified: src/session/store.ts')
      const read = line(text, 'Files read: ').slice('Files read: '.length).split(', ')
      expect(new Set(read)).toEqual(new Set(files.filter((f) => f !== 'src/session/store.ts')))
      expect(text).not.toMatch(/\{[^}]*,[^}]*\}/)
    }
  })

  it('a channel assistant that answers through the message tool (Italian): what it sent is its report, not NO_REPLY', () => {
    const report = 'Controllo sponsor: DeMarcus e David non hanno risposto alle email del 14 gennaio; Rho ha confermato 5.000 dollari.'
    const messages = [
      user('Ogni mattina controlla le risposte degli sponsor e dimmi chi manca.'),
      call('exec', { command: 'gog gmail search "from:sponsors newer_than:7d"' }),
      result('exec', '2 threads: Rho (confirmed), Fidelity (no reply)'),
      // OpenClaw's message tool: the words the user reads are in the call, the final text is the no-op reply
      call('message', { action: 'send', channel: 'telegram', to: '723773246', message: report }),
      result('message', '{"ok":true}'),
      agent('NO_REPLY'),
    ]
    for (const text of Object.values(restores(messages))) {
      const progress = text.slice(text.indexOf('## Progress'))
      expect(text.includes('## Progress') && progress, text).toContain(report.split(';')[0])
      expect(text).not.toContain('NO_REPLY')
    }
  })
})
