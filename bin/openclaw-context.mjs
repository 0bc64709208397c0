#!/usr/bin/env node
// openclaw-context: see a session through @openclaw/context-native.
//   replay <session.jsonl | archive.jsonl.zst> | replay [stateDir | agent db] <session key | id> [--agent ID]
//          [--window N] [--state-dir DIR] [--keep] [--session-key KEY] [--threshold BYTES] [--json] [--html FILE]
//   inspect [stateDir] [sessionKey] [--agent ID] [--json]   |   inspect <session.jsonl> [--json]
//   eval [stateDir | session] [--agent ID] [--max-tokens N] [--json] [--missed] [--html FILE]
//   count [file] [--encoding E] [--json]
//   gc [--dry-run] [--idle-days N] [--max-dirs N] [--json] [stateDir]   |   delete --session KEY [--json] [stateDir]
//   setup [--replace] [--print] [--dry-run] [--openclaw CMD]   (bin/lib/setup.mjs)
//   doctor [stateDir] [--json] [--openclaw CMD]                (bin/lib/doctor.mjs)
// Thin JS over the addon: the logic it measures lives in Rust; this file parses arguments and prints.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { cmdSetup, SETUP_USAGE } from './lib/setup.mjs'
import { DOCTOR_USAGE } from './lib/doctor.mjs'

const USAGE = `usage: openclaw-context <command> [options]

commands
  replay <session>           replay a session through the gauge, checkpoints, observation store and
                             scratchpad, and report what they did. <session> is one of:
                               a transcript file: pi v1-v3, Claude Code / Claude Agent SDK, or an OpenClaw
                               archive (.jsonl.zst, .jsonl.reset.<time>, .jsonl.deleted.<time>)
                               <stateDir | openclaw-agent.sqlite> <session key | id>: OpenClaw 2026.9's store
                               <session key | id>: in $OPENCLAW_STATE_DIR, else ~/.openclaw
      --agent ID             the OpenClaw agent to look in (default: the key's agent, else every agent)
      --window N             context window in tokens (default 200000)
      --state-dir DIR        where checkpoints and observations go (default: a new temporary directory,
                             removed when the replay ends)
      --keep                 keep the temporary state dir (for inspect)
      --session-key KEY      session key to write under (default agent:main:replay:<session id>)
      --threshold BYTES      offload tool results over this many bytes (default 4096)
      --json                 the report as JSON
      --html FILE            also write the report as one self-contained page to open in a browser: the
                             context per turn with the gauge and checkpoint lines, checkpoints and
                             compactions on it, each real summary beside its restore, offloaded results
  inspect [stateDir] [key]   OpenClaw's agents and sessions in a state dir (default $OPENCLAW_STATE_DIR or
                             ~/.openclaw), newest first, and this package's checkpoints, observation stores
                             and latest restore text per session (--agent ID, --json for data)
  inspect <session.jsonl>    what a transcript holds as replay reads it: format, turns, usage, compactions,
                             unreadable lines (nothing is written)
  eval [stateDir | session]  per real compaction of your sessions (all of a state dir, or one session named
                             as for replay): what the restore text keeps of OpenClaw's summary, beside two
                             naive texts of the same budget, and of the names the agent went on to use
                             (continuation recall); what it must not carry (defects) (--max-tokens N,
                             default 800; --missed; --json; --html FILE: the page replay --html writes,
                             one section per session)
  count [file]               tokens of a file, or of stdin, per encoding (--encoding E, --json)
  gc [stateDir]              apply the retention policy: remove sessions idle longer than --idle-days N
                             (default 30), expired observations of the others; --dry-run reports only;
                             stateDir defaults to $OPENCLAW_STATE_DIR or ~/.openclaw (--max-dirs N, --json)
  delete --session KEY [stateDir]
                             remove everything the package holds for one session (--json)
${SETUP_USAGE}
${DOCTOR_USAGE}

Lines that do not parse are skipped, as pi's session loader skips them, and each is reported. A file in
no known format is an error (exit 3) that lists the formats known and the first lines it could not place.
OpenClaw's SQLite store and .zst archives need Node 24 (exit 7 on older Nodes). Store errors: 4 truncated or
damaged, 5 not an OpenClaw agent database, 6 unknown agent schema version, 8 no such session.`

class UsageError extends Error {}

/** Exit code of a transcript in no known format. */
const EXIT_UNKNOWN_FORMAT = 3

function positiveInt(value, name) {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive integer, got ${JSON.stringify(value)}`)
  return n
}

/** A progress line on stderr, only when stderr is a terminal. Returns { tick, done }. */
function progressLine(label) {
  if (!process.stderr.isTTY) return { tick() {}, done() {} }
  let last = 0
  return {
    tick({ done, total, turn }) {
      const now = Date.now()
      if (now - last < 80 && done < total) return
      last = now
      const width = 24
      const filled = total ? Math.round((done / total) * width) : width
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} entries, turn ${turn}`)
    },
    done() {
      process.stderr.write('\r\x1b[2K')
    },
  }
}

/** The --html target, checked before any work: its directory must exist. */
function htmlTarget(path) {
  if (path === undefined) return undefined
  if (path === '' || path.endsWith('/')) throw new UsageError('--html takes the path of the page to write')
  const dir = dirname(resolve(path))
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--html ${path}: no directory ${dir} to write it in`)
  return path
}

async function cmdReplay(args) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      window: { type: 'string' },
      'state-dir': { type: 'string' },
      'session-key': { type: 'string' },
      threshold: { type: 'string' },
      keep: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      html: { type: 'string' },
      agent: { type: 'string' },
    },
  })
  const html = htmlTarget(values.html)
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('replay takes a session file, or an OpenClaw state dir / agent database and a session key or id, or a session key or id')
  const window = positiveInt(values.window, '--window')
  const thresholdBytes = positiveInt(values.threshold, '--threshold')
  const { replay } = await import('./lib/replay.mjs')
  const { formatReplay } = await import('./lib/report.mjs')
  // Throws UnknownFormat / a store error before anything is created.
  const { parsed, file, source } = await loadSessionOrUsage(positionals, values.agent)
  const temporary = values['state-dir'] === undefined
  const stateDir = temporary ? mkdtempSync(join(tmpdir(), 'openclaw-context-replay-')) : values['state-dir']
  const progress = progressLine('replaying')
  let report
  try {
    report = await replay(parsed, {
      file,
      window,
      stateDir,
      sessionKey: values['session-key'],
      thresholdBytes,
      detail: html !== undefined,
      onProgress: (p) => progress.tick(p),
    })
  } finally {
    progress.done()
    // A temporary state dir goes when the replay ends, whatever happened, unless --keep.
    if (temporary && !values.keep) rmSync(stateDir, { recursive: true, force: true })
  }
  report.stateDirTemporary = temporary
  report.stateDirKept = !temporary || values.keep
  report.source = source
  if (html !== undefined) {
    const { renderPage, sessionView, writePage } = await import('./lib/html-report.mjs')
    const { native } = await import('./lib/native.mjs')
    const { transcriptKind } = await import('./lib/eval-restore.mjs')
    const name = source?.sessionKey ? `${source.agentId}/${source.sessionKey}` : (file ?? 'session')
    const page = renderPage({
      title: `openclaw-context replay: ${name}`,
      intro: `What @openclaw/context-native would have done on this session: replayed with a window of ${report.window.toLocaleString('en-US')} tokens, tool results over ${report.offload.thresholdBytes ?? thresholdBytes ?? 4096} bytes offloaded. Each restore is the one the next prompt after the compaction would carry.`,
      sessions: [sessionView(name, report, report.compactions, transcriptKind(parsed))],
      countTokens: (t) => native.countTokens(t ?? ''),
    })
    writePage(html, page)
    // The printed report stays what it is without --html.
    for (const c of report.compactions) {
      delete c.summary
      delete c.restore
    }
    delete report.series
    if (report.offload) delete report.offload.results
    process.stderr.write(`openclaw-context: the HTML report is in ${html}\n`)
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReplay(report)}\n`)
  return report.errors.length ? 1 : 0
}

async function cmdInspect(args) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, agent: { type: 'string' } },
  })
  if (positionals.length > 2) throw new UsageError('inspect takes a state dir and an optional session key, or one session file')
  const { defaultOpenClawDir, fileKind } = await import('./lib/openclaw-store.mjs')
  const target = positionals[0] ?? defaultOpenClawDir()
  if (statSync(target).isFile() && fileKind(target) !== 'sqlite') {
    if (positionals.length !== 1) throw new UsageError('inspect of a session file takes no session key')
    const { readTranscriptFile } = await import('./lib/session-source.mjs')
    const { summarizeTranscript, formatTranscriptSummary } = await import('./lib/report.mjs')
    const summary = summarizeTranscript(readTranscriptFile(target), target)
    process.stdout.write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatTranscriptSummary(summary)}\n`)
    return 0
  }
  const { inspectTarget } = await import('./lib/openclaw-inspect.mjs')
  const { result, text, code } = await inspectTarget(target, positionals[1], { agent: values.agent })
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${text}\n`)
  return code
}

/** The session `positionals` name (lib/session-source.mjs); its usage errors as UsageError. */
async function loadSessionOrUsage(positionals, agent) {
  const { loadSession } = await import('./lib/session-source.mjs')
  try {
    return await loadSession(positionals, { agent })
  } catch (e) {
    if (e?.usage) throw new UsageError(e.message)
    throw e
  }
}

async function cmdEval(args) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      agent: { type: 'string' },
      'max-tokens': { type: 'string' },
      missed: { type: 'boolean', default: false },
      html: { type: 'string' },
    },
  })
  const html = htmlTarget(values.html)
  if (positionals.length > 2) throw new UsageError('eval takes a session (file, or state dir / agent database and a key or id) or a state dir')
  const maxTokens = positiveInt(values['max-tokens'], '--max-tokens')
  const { runEval } = await import('./lib/eval.mjs')
  const { loadSession } = await import('./lib/session-source.mjs')
  const out = await runEval(positionals, { agent: values.agent, maxTokens, json: values.json, missed: values.missed, html, loadSession })
  if (html !== undefined) process.stderr.write(`openclaw-context: the HTML report is in ${html}\n`)
  process.stdout.write(out.text)
  return out.code
}

async function cmdCount(args) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, encoding: { type: 'string' } },
  })
  if (positionals.length > 1) throw new UsageError('count takes at most one file (none or "-" reads stdin)')
  const { runCount, formatCount } = await import('./lib/count.mjs')
  const result = runCount(positionals[0], { encoding: values.encoding })
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatCount(result)}\n`)
  return 0
}

async function main(argv) {
  const [command, ...rest] = argv
  switch (command) {
    case 'replay':
      return cmdReplay(rest)
    case 'eval':
      return cmdEval(rest)
    case 'inspect':
      return cmdInspect(rest)
    case 'count':
      return cmdCount(rest)
    case 'gc':
    case 'delete': {
      const { runGc, runDelete } = await import('./lib/retention.mjs')
      return (command === 'gc' ? runGc : runDelete)(rest, UsageError)
    }
    case 'setup':
      return cmdSetup(rest)
    case 'doctor': {
      const { cmdDoctor } = await import('./lib/doctor.mjs')
      return cmdDoctor(rest)
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`)
      return command === undefined ? 2 : 0
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err) => {
    if (err instanceof UsageError || err?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || err?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      process.stderr.write(`openclaw-context: ${err.message}\n\n${USAGE}\n`)
      process.exitCode = 2
    } else if (typeof err?.exitCode === 'number') {
      // Reading OpenClaw's store (lib/openclaw-store.mjs): each kind of failure has its own exit code.
      process.stderr.write(`openclaw-context: ${err.code}: ${err.message}\n`)
      process.exitCode = err.exitCode
    } else if (err?.code === 'UnknownFormat') {
      process.stderr.write(`openclaw-context: UnknownFormat: ${err.message}\n`)
      process.exitCode = EXIT_UNKNOWN_FORMAT
    } else if (err?.code === 'ENOENT' || err?.code === 'EISDIR' || err?.code === 'EACCES') {
      process.stderr.write(`openclaw-context: ${err.message}\n`)
      process.exitCode = 1
    } else {
      process.stderr.write(`openclaw-context: ${err?.code ? `${err.code}: ` : ''}${err?.stack ?? err}\n`)
      process.exitCode = 1
    }
  },
)
