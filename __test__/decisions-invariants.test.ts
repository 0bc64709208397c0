// Invariants of the decisions the state crate records (issue 27, `decision_what` in crates/state/src/lib.rs) over
// every bundled transcript (pi, Claude Code, OpenClaw) and the validation set: each session's messages, as the
// replay reads them, handed to `recordMessagesSync` at once. No decision is host text (a heartbeat, cron or `/new`
// prompt, an envelope, a wrapper) or holds a credential, and none quotes a proposal without letters (`re: ---`, a
// table rule, an emoji line). The rules themselves are unit-tested in crates/state on hand-written conversations;
// how many decisions a restore carries is reported by `npm run eval:restore`, never asserted here.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-ignore plain ESM module without types
import { DEFAULT_DIR, VALIDATION_DIR, transcriptFiles } from '../bin/lib/eval-restore.mjs'
// @ts-ignore plain ESM module without types
import { parseTranscript } from '../bin/lib/transcript.mjs'
// @ts-ignore plain ESM module without types
import { DEFECT_CLASSES, taskDefect } from '../bin/lib/restore-defects.mjs'

const native = createRequire(import.meta.url)('../index.js')
const base = (f: string) => f.replace(/^.*[\\/]/, '')
const letters = (t: string) => (t.match(/\p{L}/gu) ?? []).length

/** The decisions recorded for one transcript's messages. */
function decisionsOf(file: string): string[] {
  const parsed = parseTranscript(readFileSync(file, 'utf8'))
  const messages = parsed.entries.filter((e: any) => e.entry.type === 'message').map((e: any) => e.entry.message)
  const stateDir = mkdtempSync(join(tmpdir(), 'context-native-decisions-'))
  try {
    return native.recordMessagesSync({ stateDir, sessionKey: 'k', messages }).decisions.map((d: any) => d.what)
  } finally {
    rmSync(stateDir, { recursive: true, force: true })
  }
}

/** What is wrong with one decision's `what`, or null. */
function defect(what: string): string | null {
  if (DEFECT_CLASSES.host.test(what)) return 'host text'
  if (DEFECT_CLASSES.credential.test(what)) return 'a credential'
  // `<reply or proposal> (re: <proposal>; asked: <question>)` / `(asked: ...; user: ...)` / `(user: ...)`
  const head = what.replace(/ \((?:re|asked|user): [\s\S]*$/, '')
  if (taskDefect(head) === 'host') return 'a host prompt'
  if (letters(head) < 2) return 'starts without letters'
  const re = /\(re: ([\s\S]*?)(?:; asked: |\)$)/.exec(what)
  if (re && letters(re[1]) < 2) return `a proposal without letters (${JSON.stringify(re[1])})`
  return null
}

describe('recorded decisions over every bundled and validation transcript (issue 27)', () => {
  const files: string[] = transcriptFiles([DEFAULT_DIR, VALIDATION_DIR])
  const all = new Map<string, string[]>()
  for (const f of files) {
    it(`${base(f)}: no decision is host text, holds a credential or quotes a proposal without letters`, () => {
      const whats = decisionsOf(f)
      all.set(f, whats)
      expect(whats.map((w) => ({ w: w.slice(0, 120), defect: defect(w) })).filter((x) => x.defect)).toEqual([])
    })
  }
  it('the check itself finds what it looks for', () => {
    expect(defect('好的 按照这个方案配置一下定时任务。 (re: ---; asked: 是否需要我配置？)')).toMatch(/without letters/)
    expect(defect('--- (asked: Shall I?; user: ok)')).toBe('starts without letters')
    expect(defect('Read HEARTBEAT.md if it exists (re: done)')).toBe('host text')
    expect(defect('[cron:abc Daily] check mail (re: done)')).toBe('a host prompt')
    expect(defect('用PostgreSQL，不要SQLite (re: 所有测试都通过了。)')).toBeNull()
    // the transcripts hold decisions to check (the rule is not silent)
    expect([...all.values()].flat().length).toBeGreaterThan(0)
  })
})
