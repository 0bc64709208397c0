// Invariants of the restore text over every real compaction of the bundled pi and Claude Code transcripts
// (the same replay `npm run eval:restore` measures): the session's task is in every restore, no line repeats,
// no section holds the package's own injections or a host's wrappers (issue 21),
// the budget holds, the task is carried across compactions (the second compaction's checkpoint
// still states the session's first request), and a replayed checkpoint carries the transcript's time.
// Recall figures are reported by the evaluation, never asserted here.
import { describe, expect, it } from 'vitest'
// @ts-ignore plain ESM module without types
import { DEFAULT_DIR, evaluateTranscript, transcriptFiles } from '../bin/lib/eval-restore.mjs'

/** Markers of the package's own injections and the hosts' wrappers (crates/state/src/wrappers.rs). */
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
]

describe('restore invariants over the bundled transcripts', async () => {
  const files: string[] = transcriptFiles([DEFAULT_DIR])
  it('bundles at least four real compactions', async () => {
    let n = 0
    for (const f of files) n += (await evaluateTranscript(f)).compactions.length
    expect(n).toBeGreaterThanOrEqual(4)
  })
  for (const f of files) {
    it(`${f.replace(/^.*[\\/]/, '')}: task, no repeated line, budget, chain, transcript time`, async () => {
      const r = await evaluateTranscript(f)
      expect(r.notes.filter((n: string) => /threw/.test(n))).toEqual([])
      let task: string | null = null
      for (const c of r.compactions) {
        expect(c.restoreTokens, c.restore).toBeLessThanOrEqual(800)
        expect(c.task, c.restore).toBe(true)
        expect(c.repeated, c.restore).toEqual([])
        expect(c.replace.restoreTokens, c.restore).toBeLessThanOrEqual(2000)
        // the header and the fence once; nothing injected by the package or wrapped by the host inside
        expect(c.restore.split('[Post-compaction checkpoint restore]').length, c.restore).toBe(2)
        expect(c.restore.toLowerCase().split('<checkpoint-data>').length, c.restore).toBe(2)
        for (const marker of OWN_AND_HOST_MARKERS) expect(c.restore, marker).not.toContain(marker)
        expect(c.checkpoint.compactionCount).toBe(c.compaction)
        expect(c.checkpoint.task).toBeTruthy()
        if (task !== null) expect(c.checkpoint.task).toBe(task)
        task = c.checkpoint.task
        if (c.compaction > 1) expect(c.checkpoint.previous).toMatch(/^cp_\d{3}$/)
        expect(Date.parse(c.checkpoint.createdAt)).toBe(Date.parse(c.compactionTime))
        expect(c.restore).toContain(`saved ${c.compactionTime.slice(0, 10)} ${c.compactionTime.slice(11, 16)} UTC`)
      }
    })
  }
})
