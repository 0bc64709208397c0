// Invariants of the restore text over every real compaction of the bundled pi and Claude Code transcripts
// (the same replay `npm run eval:restore` measures): every restore's Task is one of the user's requests (their own
// words as the core reads them, `userRequests`; none when the user asked nothing), no line repeats,
// no section holds the package's own injections or a host's wrappers (issue 21),
// the budget holds, the task is carried across compactions (the second compaction's checkpoint
// still states the session's first request), and a replayed checkpoint carries the transcript's time.
// Recall figures are reported by the evaluation, never asserted here.
// The second block (issue 27) holds what no restore may carry, over every bundled transcript (pi, Claude Code,
// OpenClaw) and the validation set, at both budgets: a credential, host text, identifiers that are prose or
// fragments of escaped text, a greeting or a host prompt as the task (the scan of bin/lib/restore-defects.mjs).
import { describe, expect, it } from 'vitest'
// @ts-ignore plain ESM module without types
import { DEFAULT_DIR, VALIDATION_DIR, evaluateTranscript, restoreFilePaths as filePaths, transcriptFiles, transcriptKind } from '../bin/lib/eval-restore.mjs'
// @ts-ignore plain ESM module without types
import { parseTranscript } from '../bin/lib/transcript.mjs'
import { readFileSync } from 'node:fs'

/** The compactions of the files, found by parsing alone (no replay): `[{ file, format }]`. */
const compactionsIn = (files: string[]) =>
  files.flatMap((file) => {
    const parsed = parseTranscript(readFileSync(file, 'utf8'))
    const format = transcriptKind(parsed)
    return parsed.entries.filter((e: any) => e.entry.type === 'compaction').map(() => ({ file, format }))
  })

/** Each transcript is replayed once for both blocks (each test replays at most one: the test timeout holds). */
const evaluated = new Map<string, Promise<any>>()
const evaluate = (f: string) => {
  if (!evaluated.has(f)) evaluated.set(f, evaluateTranscript(f))
  return evaluated.get(f)!
}
const base = (f: string) => f.replace(/^.*[\\/]/, '')
/** A name that is a path the agent would open (`/repo/src/a.ts`, `~/x`, `./bin/run`), cut or whole. */
const isPath = (n: string) => /^(\/|~\/|\.\.?\/)[^\s{}]+$/.test(n)

/** Markers of the package's own injections and the hosts' wrappers (crates/state/src/wrappers/mod.rs). */
const OWN_AND_HOST_MARKERS = [
  '[Session Scratchpad',
  '[End Scratchpad]',
  '[Context: ',
  '[Hint: ',
  'Caveat: The messages below',
  '<command-name>',
  '<local-command',
  '<system-reminder>',
  '<task-notification>',
  'Base directory for this skill',
  '[Request interrupted',
  'If you need specific details from before',
]

describe('restore invariants over the bundled transcripts', async () => {
  const files: string[] = transcriptFiles([DEFAULT_DIR])
  it('bundles at least four real compactions', () => {
    expect(compactionsIn(files).length).toBeGreaterThanOrEqual(4)
  })
  for (const f of files) {
    it(`${base(f)}: task, no repeated line, budget, chain, transcript time`, async () => {
      const r = await evaluate(f)
      expect(r.notes.filter((n: string) => /threw/.test(n))).toEqual([])
      let task: string | null = null
      let at: number | null = null
      for (const c of r.compactions) {
        expect(c.restoreTokens, c.restore).toBeLessThanOrEqual(800)
        // the Task line states one of the user's requests; a session whose user turns before the compaction were
        // all host text (heartbeat polls, system events) asked nothing: no Task line, no task (a host prompt is none)
        if (c.requests > 0) expect(c.task, c.restore).toBe(true)
        else expect({ task: c.task, line: /^Task: /m.test(c.restore), checkpoint: c.checkpoint.task }, c.restore).toEqual({ task: null, line: false, checkpoint: null })
        expect(c.repeated, c.restore).toEqual([])
        expect(c.replace.restoreTokens, c.restore).toBeLessThanOrEqual(2000)
        // the header and the fence once; nothing injected by the package or wrapped by the host inside
        expect(c.restore.split('[Post-compaction checkpoint restore]').length, c.restore).toBe(2)
        expect(c.restore.toLowerCase().split('<checkpoint-data>').length, c.restore).toBe(2)
        for (const marker of OWN_AND_HOST_MARKERS) expect(c.restore, marker).not.toContain(marker)
        expect(c.checkpoint.compactionCount).toBe(c.compaction)
        if (c.requests > 0) expect(c.checkpoint.task).toBeTruthy()
        // the task is carried from compaction to compaction, unless the user came back after a pause of a sitting
        // (8 hours: docs/restore.md), which compactions this far apart may hold
        const apart = at !== null && Date.parse(c.compactionTime) - at >= 8 * 3600 * 1000
        // (or the user changed the plan: the task it replaced is said to be replaced)
        if (task !== null && !apart && c.checkpoint.replacedTask === null) expect(c.checkpoint.task).toBe(task)
        task = c.checkpoint.task
        at = Date.parse(c.compactionTime)
        if (c.compaction > 1) expect(c.checkpoint.previous).toMatch(/^cp_\d{3}$/)
        expect(Date.parse(c.checkpoint.createdAt)).toBe(Date.parse(c.compactionTime))
        expect(c.restore).toContain(`saved ${c.compactionTime.slice(0, 10)} ${c.compactionTime.slice(11, 16)} UTC`)
      }
    })
  }
})

// Invariants, not scores: every restore of every real compaction, and of the last checkpoint of a session without
// one, at 800 tokens (default mode) and at 2,000 (compaction.mode 'replace'). The messages name the transcript, the
// checkpoint's line and the budget, and quote the offending lines (a credential's line is not quoted).
describe('restore invariants (issue 27): no credential, no host text, identifiers are names, the task is a request', () => {
  const files: string[] = transcriptFiles([DEFAULT_DIR, VALIDATION_DIR])
  const each = async (f: string, check: (d: any, where: string) => void) => {
    const r = await evaluate(f)
    for (const x of r.restores) for (const [budget, d] of Object.entries(x.defects)) check(d, `${base(f)}:${x.line} at ${budget} tokens`)
  }
  it('a real span the heartbeat drove alone (volvox-bot-b6d36e95) says so in its Goal (no host text: the scan above)', async () => {
    const f = files.find((x) => base(x) === 'volvox-bot-b6d36e95.jsonl')!
    const c = (await evaluate(f)).restores.find((x: any) => x.compaction !== null)
    for (const text of [c.restore, c.replaceRestore]) {
      expect(text, text).toMatch(/^## Goal\nWorking on: the heartbeat runs \(\d+; no request of the user's in this span\)$/m)
    }
  })
  it('covers the OpenClaw sessions, the Claude Code and pi transcripts and the validation set', () => {
    const found = compactionsIn(files)
    expect([...new Set(found.map((c) => c.format))].sort()).toEqual(['claude-code', 'openclaw', 'pi'])
    expect(found.filter((c) => c.file.includes('transcripts-validation')).length).toBeGreaterThanOrEqual(4)
    expect(found.length).toBeGreaterThanOrEqual(24)
  })
  for (const f of files) {
    it(`${base(f)}: no credential`, async () => {
      await each(f, (d, where) => expect(d.credential.length, `${where}: ${d.credential.length} line(s) with a credential`).toBe(0))
    })
    it(`${base(f)}: no host text`, async () => {
      await each(f, (d, where) => expect(d.host, where).toEqual([]))
    })
    it(`${base(f)}: identifiers are names (no prose, no escaped-text fragment)`, async () => {
      await each(f, (d, where) => {
        expect(d.prose, where).toEqual([])
        expect(d.escaped, where).toEqual([])
      })
    })
    it(`${base(f)}: each item of the Identifiers line is whole (no interpolation, no unpaired bracket or quote, no URL cut before its host)`, async () => {
      const r = await evaluate(f)
      for (const x of r.restores) {
        for (const text of [x.restore, x.replaceRestore].filter(Boolean)) {
          const items = (/^Identifiers: (.*)$/m.exec(text)?.[1] ?? '').split(', ').filter(Boolean)
          const pairs = (s: string, open: string, close: string) => s.split(open).length === s.split(close).length
          const cut = items.filter((s) => /\$[({]/.test(s) || s.endsWith('\\') || !pairs(s, '(', ')') || !pairs(s, '[', ']') || !pairs(s, '{', '}') || s.split('"').length % 2 === 0 || s.endsWith('://'))
          expect(cut, `${base(f)}:${x.line}`).toEqual([])
        }
      }
    })
    it(`${base(f)}: every path in the restore is one the agent could open as written`, async () => {
      // the transcript as the agent saw it, JSON escapes undone: a path it read or wrote is in it whole
      const raw = readFileSync(f, 'utf8').replace(/\\\//g, '/')
      const r = await evaluate(f)
      for (const x of r.restores) {
        for (const [budget, text] of [[800, x.restore], [2000, x.replaceRestore]] as const) {
          // the file lists' paths, and the paths among the names (`Identifiers: /repo/src/hooks/useNav.ts`)
          const named = (/^Identifiers: (.*)$/m.exec(text)?.[1] ?? '').split(', ').filter((n) => isPath(n))
          const paths = [...filePaths(text), ...named]
          for (const p of paths) {
            const where = `${base(f)}:${x.line} at ${budget} tokens: ${p}`
            expect(p, where).not.toMatch(/[{}]/)
            expect(raw.includes(p), where).toBe(true)
          }
        }
      }
    })
    it(`${base(f)}: after a change of plan the task is the new one, the replaced one never the task`, async () => {
      const r = await evaluate(f)
      for (const c of r.compactions) {
        const replaced = c.checkpoint.replacedTask
        if (!replaced) continue
        expect(c.checkpoint.task, `${base(f)}:${c.line}`).not.toBe(replaced)
        expect(c.restore, `${base(f)}:${c.line}`).toMatch(/^Task: .* \(the user changed the plan\)$/m)
      }
    })
    it(`${base(f)}: the task is the user's request, not a greeting or a host prompt`, async () => {
      await each(f, (d, where) => expect({ task: d.task, defect: d.taskDefect }, where).toEqual({ task: d.task, defect: null }))
    })
  }
})
