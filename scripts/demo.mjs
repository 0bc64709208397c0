#!/usr/bin/env node
// npm run demo: replays the bundled real pi session (large-session.jsonl, MIT, see its README) through the
// addon into a temporary state dir and prints the report, then the restore text a host would inject
// after compaction. `--keep` keeps the state dir for `openclaw-context inspect`; other arguments are
// passed to the replay (e.g. `npm run demo -- --window 180000`, or another session file).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const fixtures = join(root, '__test__', 'fixtures', 'transcripts')
const require = createRequire(import.meta.url)

/** Loads the addon; on a fresh clone it is not built yet, so build it once (release, as CI does). */
function ensureAddon() {
  try {
    require(join(root, 'index.js'))
    return
  } catch (err) {
    if (!/Cannot find native binding|Cannot find module|Failed to load native binding/i.test(String(err?.message))) throw err
  }
  process.stderr.write('The native addon is not built yet: building it once with `npm run build` (a few minutes)...\n')
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
  if (r.status !== 0) {
    process.stderr.write('Building the addon failed; see the output above (a Rust toolchain is needed: https://rustup.rs).\n')
    process.exit(1)
  }
}

function parse(argv) {
  const out = { keep: false, file: join(fixtures, 'large-session.jsonl'), window: undefined }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--keep') out.keep = true
    else if (a === '--window') out.window = Number(argv[++i])
    else if (a.startsWith('--window=')) out.window = Number(a.slice(9))
    else out.file = resolve(a)
  }
  if (out.window !== undefined && !(Number.isInteger(out.window) && out.window > 0)) {
    process.stderr.write('--window must be a positive integer\n')
    process.exit(2)
  }
  return out
}

async function main() {
  const args = parse(process.argv.slice(2))
  ensureAddon()
  const { parseTranscript } = await import('../bin/lib/transcript.mjs')
  const { replay } = await import('../bin/lib/replay.mjs')
  const { formatReplay } = await import('../bin/lib/report.mjs')
  const { native, has } = await import('../bin/lib/native.mjs')

  const bundled = dirname(args.file) === fixtures
  if (bundled) {
    process.stdout.write(
      `Replaying ${relative(root, args.file)}: a real pi coding-agent session recorded by Mario Zechner,\n` +
        `published with badlogic/pi-mono under the MIT licence (see ${relative(root, join(fixtures, 'README.md'))}).\n\n`,
    )
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'openclaw-context-demo-'))
  const tty = process.stderr.isTTY
  let report
  try {
    report = await replay(parseTranscript(readFileSync(args.file, 'utf8')), {
      file: relative(process.cwd(), args.file) || args.file,
      stateDir,
      window: args.window,
      onProgress: tty
        ? ({ done, total, turn }) => process.stderr.write(`\rreplaying ${done}/${total} entries, turn ${turn}   `)
        : undefined,
    })
  } finally {
    if (tty) process.stderr.write('\r\x1b[2K')
  }
  process.stdout.write(`${formatReplay(report)}\n`)

  const last = report.checkpoints.written.at(-1)
  if (last && has('renderCheckpoint')) {
    const text = native.renderCheckpoint({ stateDir, sessionKey: report.sessionKey }, { mode: 'post-compaction' })
    if (typeof text === 'string') {
      process.stdout.write(
        `\nrestore text of the latest checkpoint (${last.id}, ${native.countTokens(text)} tokens), as a host injects it after compaction:\n`,
      )
      process.stdout.write(`${text.replace(/^/gm, '  | ')}\n`)
    }
  }

  if (args.keep) {
    process.stdout.write(`\nstate dir kept: ${stateDir}\n  node bin/openclaw-context.mjs inspect ${stateDir}\n`)
  } else {
    rmSync(stateDir, { recursive: true, force: true })
    process.stdout.write('\n(the state dir was temporary and is removed; `npm run demo -- --keep` keeps it for `openclaw-context inspect`)\n')
  }
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${err?.code ? `${err.code}: ` : ''}${err?.stack ?? err}\n`)
  process.exit(1)
})
