#!/usr/bin/env node
// npm run eval:restore: the restore-quality measure of bin/lib/eval-restore.mjs over transcripts, printed.
//
// Usage: node scripts/eval-restore.mjs [file-or-dir ...] [--max-tokens N] [--json | --markdown] [--missed]
//   --missed lists the summary items and the needed names each restore missed, and each defect line;
//   --markdown prints the BENCHMARKS.md section.
//   Without a path: the bundled transcripts (__test__/fixtures/transcripts: pi, Claude Code and OpenClaw sessions,
//   reported per format), then, measured apart, the validation set (__test__/fixtures/transcripts-validation: real
//   compactions of other projects the rules were not shaped on, see its README). With paths: those, as one set.
//   Two measures (bin/lib/eval-restore.mjs, docs/restore.md "How the restore is measured"): summary recall and
//   continuation recall; and the defect scan of every restore.
// Exit codes: 0 measured (whatever the figures), 1 nothing could be measured (no transcript with a
// compaction), 2 bad arguments or a path that does not exist.
import { readFileSync } from 'node:fs'
import { basename, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  DEFAULT_DIR,
  DEFAULT_MAX_TOKENS,
  evaluateTranscript,
  formatReport,
  markdownSection,
  summarize,
  transcriptFiles,
  VALIDATION_DIR,
} from '../bin/lib/eval-restore.mjs'
import { briefingMeans, briefingRows, formatBriefing } from '../bin/lib/briefing.mjs'

// The measure moved to bin/lib/eval-restore.mjs (issue 21); this module still exports it for old imports.
export * from '../bin/lib/eval-restore.mjs'

async function main(argv) {
  let values
  let positionals
  try {
    ;({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        markdown: { type: 'boolean', default: false },
        missed: { type: 'boolean', default: false },
        'max-tokens': { type: 'string' },
      },
    }))
  } catch (e) {
    process.stderr.write(`eval:restore: ${e.message}\nusage: npm run eval:restore -- [file-or-dir ...] [--max-tokens N] [--json] [--missed]\n`)
    return 2
  }
  const maxTokens = values['max-tokens'] === undefined ? DEFAULT_MAX_TOKENS : Number(values['max-tokens'])
  if (!Number.isInteger(maxTokens) || maxTokens < 200) {
    process.stderr.write(`eval:restore: --max-tokens must be an integer >= 200, got ${values['max-tokens']}\n`)
    return 2
  }
  const sets = positionals.length ? [{ name: null, paths: positionals }] : [{ name: 'bundled', paths: [DEFAULT_DIR] }, { name: 'validation', paths: [VALIDATION_DIR] }]
  const out = []
  let measured = 0
  for (const set of sets) {
    let files
    try {
      files = transcriptFiles(set.paths)
    } catch (e) {
      process.stderr.write(`eval:restore: ${e.code === 'ENOENT' ? `no such file or directory: ${e.path}` : e.message}\n`)
      return 2
    }
    const results = []
    const briefing = []
    for (const f of files) {
      process.stderr.write(`eval:restore: ${relative(process.cwd(), f)}...\n`)
      const { latestRestore, ...r } = await evaluateTranscript(f, { maxTokens })
      briefing.push(...briefingRows(readFileSync(f, 'utf8'), basename(f), r.restores, { budget: maxTokens, latest: latestRestore }))
      // (latestRestore holds every checkpoint the replay wrote: not kept past its file over a long run)
      results.push(r)
    }
    const rows = results.flatMap((r) => r.compactions)
    const s = summarize(rows, maxTokens, { continuation: results.flatMap((r) => r.continuation), restores: results.flatMap((r) => r.restores) })
    // the briefing overlap (issue 51): ROUGE against the summary's written text, beside the naive text and the oracle
    s.briefing = { rows: briefing, default: briefingMeans(briefing, 'default'), replace: briefingMeans(briefing, 'replace'), lines: formatBriefing(briefing, { budget: maxTokens }) }
    measured += rows.length + s.continuation.compactions
    out.push({ set: set.name, summary: s, results })
  }
  const title = (o) => (o.set ? `== ${o.set === 'bundled' ? 'bundled transcripts (__test__/fixtures/transcripts)' : 'validation set (__test__/fixtures/transcripts-validation)'}\n\n` : '')
  if (values.json) process.stdout.write(`${JSON.stringify(sets.length > 1 ? { maxTokens, sets: out } : { maxTokens, summary: out[0].summary, results: out[0].results }, null, 2)}\n`)
  else if (values.markdown) process.stdout.write(`${out.map((o) => `${o.set ? `#### ${o.set}\n\n` : ''}${markdownSection(o.results, o.summary, maxTokens).join('\n')}\n\n${o.summary.briefing.lines.join('\n')}`).join('\n\n')}\n`)
  else process.stdout.write(`${out.map((o) => `${title(o)}${formatReport(o.results, o.summary, { missed: values.missed })}\n\n${o.summary.briefing.lines.join('\n')}`).join('\n\n')}\n`)
  return measured ? 0 : 1
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
