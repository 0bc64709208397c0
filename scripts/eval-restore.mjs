#!/usr/bin/env node
// npm run eval:restore: the restore-quality measure of bin/lib/eval-restore.mjs over transcripts, printed.
//
// Usage: node scripts/eval-restore.mjs [file-or-dir ...] [--max-tokens N] [--json | --markdown] [--missed]
//   --missed lists the summary items each restore missed; --markdown prints the BENCHMARKS.md section.
//   Without a path: the bundled transcripts (__test__/fixtures/transcripts). Real compactions of other projects the
//   rules were not shaped on: `npm run eval:restore -- __test__/fixtures/transcripts-validation` (see its README).
// Exit codes: 0 measured (whatever the figures), 1 nothing could be measured (no transcript with a
// compaction), 2 bad arguments or a path that does not exist.
import { relative, resolve } from 'node:path'
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
} from '../bin/lib/eval-restore.mjs'

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
  let files
  try {
    files = transcriptFiles(positionals.length ? positionals : [DEFAULT_DIR])
  } catch (e) {
    process.stderr.write(`eval:restore: ${e.code === 'ENOENT' ? `no such file or directory: ${e.path}` : e.message}\n`)
    return 2
  }
  const results = []
  for (const f of files) {
    process.stderr.write(`eval:restore: ${relative(process.cwd(), f)}...\n`)
    results.push(await evaluateTranscript(f, { maxTokens }))
  }
  const rows = results.flatMap((r) => r.compactions)
  const s = summarize(rows, maxTokens)
  if (values.json) process.stdout.write(`${JSON.stringify({ maxTokens, summary: s, results }, null, 2)}\n`)
  else if (values.markdown) process.stdout.write(`${markdownSection(results, s, maxTokens).join('\n')}\n`)
  else process.stdout.write(`${formatReport(results, s, { missed: values.missed })}\n`)
  return rows.length ? 0 : 1
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
