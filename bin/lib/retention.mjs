// `openclaw-context gc` and `openclaw-context delete`: the retention policy on demand (issue 23).
// Thin JS over the addon's gcStateDir / deleteSession: parse the arguments, call, print the report.
import { homedir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fmt, table } from './format.mjs'
import { missing, native, notAvailable } from './native.mjs'

/** OpenClaw's state dir as OpenClaw resolves it by default: `$OPENCLAW_STATE_DIR`, else `~/.openclaw`. */
export function defaultStateDir() {
  return process.env.OPENCLAW_STATE_DIR || join(homedir(), '.openclaw')
}

/** A size in MiB/KiB/bytes. */
function size(bytes) {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`
  return `${fmt(bytes)} B`
}

function requireExports(...names) {
  const lacking = missing(...names)
  if (lacking.length) throw Object.assign(new Error(notAvailable(names.join(' / '), lacking)), { code: 'NotAvailable' })
}

/** The text report of a gcStateDir result. */
export function formatGc(r, stateDir) {
  const lines = [`${r.dryRun ? 'gc (dry run: nothing removed)' : 'gc'} of ${stateDir}`]
  lines.push(
    `  ${r.dryRun ? 'would remove' : 'removed'} ${fmt(r.removedSessions.length)} idle session(s), ${size(r.removedBytes)}`,
    `  kept ${fmt(r.keptSessions)} active session(s), ${size(r.keptBytes)}` +
      (r.removedEntries ? `; ${fmt(r.removedEntries)} expired or over-quota observation(s) removed, ${size(r.removedEntryBytes)}` : ''),
    `  visited ${fmt(r.visited)} of ${fmt(r.totalDirs)} session directories${r.more ? ' (more left: run gc again)' : ''}`,
  )
  if (r.removedSessions.length) {
    const rows = r.removedSessions.map((s) => [s.sessionKey ?? `(dir ${s.dir})`, s.lastActivityAt ?? '-', size(s.bytes)])
    lines.push('', ...table([{ title: 'session' }, { title: 'last activity' }, { title: 'size', align: 'right' }], rows))
  }
  // the compacted conversation kept per session (issue 49): in the session's quota, never evicted, gone with it
  const history = r.history ?? []
  if (history.length) {
    const rows = history.map((h) => [h.sessionKey ?? `(dir ${h.dir})`, fmt(h.entries), size(h.bytes), h.removed ? (r.dryRun ? 'would go with the session' : 'gone with the session') : 'kept'])
    lines.push('', 'history (compacted messages) per session:', ...table([{ title: 'session' }, { title: 'entries', align: 'right' }, { title: 'size', align: 'right' }, { title: '' }], rows))
  }
  for (const e of r.errors) lines.push(`  error: ${e}`)
  return lines.join('\n')
}

/** `gc [--dry-run] [--idle-days N] [--max-dirs N] [--json] [stateDir]`. Exit 1 when a session failed. */
export async function runGc(args, UsageError) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'idle-days': { type: 'string' },
      'max-dirs': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  if (positionals.length > 1) throw new UsageError('gc takes at most one state dir')
  const idleDays = values['idle-days'] === undefined ? undefined : Number(values['idle-days'])
  if (idleDays !== undefined && !(Number.isFinite(idleDays) && idleDays >= 0)) throw new UsageError(`--idle-days must be a number of days >= 0, got ${JSON.stringify(values['idle-days'])}`)
  const maxDirs = values['max-dirs'] === undefined ? undefined : Number(values['max-dirs'])
  if (maxDirs !== undefined && !(Number.isInteger(maxDirs) && maxDirs > 0)) throw new UsageError(`--max-dirs must be a positive integer, got ${JSON.stringify(values['max-dirs'])}`)
  requireExports('gcStateDir')
  const stateDir = positionals[0] ?? defaultStateDir()
  // Without --max-dirs the command goes over every session (the bound is for the plugin's runs).
  let report
  for (;;) {
    const r = await native.gcStateDir({ stateDir, dryRun: values['dry-run'], ...(idleDays !== undefined ? { idleDays } : {}), maxDirs: maxDirs ?? 100_000 })
    if (!report) report = r
    else {
      report.removedSessions.push(...r.removedSessions)
      for (const k of ['removedBytes', 'keptSessions', 'keptBytes', 'removedEntries', 'removedEntryBytes', 'visited']) report[k] += r[k]
      report.errors.push(...r.errors)
      report.history = [...(report.history ?? []), ...(r.history ?? [])]
      report.more = r.more
    }
    if (maxDirs !== undefined || !r.more || report.visited >= r.totalDirs) break
  }
  if (maxDirs === undefined) report.more = false
  process.stdout.write(values.json ? `${JSON.stringify({ stateDir, ...report }, null, 2)}\n` : `${formatGc(report, stateDir)}\n`)
  return report.errors.length ? 1 : 0
}

/** `delete --session <key> [--json] [stateDir]`. */
export async function runDelete(args, UsageError) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { session: { type: 'string' }, json: { type: 'boolean', default: false } },
  })
  if (!values.session) throw new UsageError('delete needs --session <key>')
  if (positionals.length > 1) throw new UsageError('delete takes at most one state dir')
  requireExports('deleteSession')
  const stateDir = positionals[0] ?? defaultStateDir()
  const r = await native.deleteSession({ stateDir, sessionKey: values.session })
  const text = r.existed
    ? `deleted session ${JSON.stringify(values.session)} from ${stateDir}: ${fmt(r.removedFiles)} file(s), ${size(r.removedBytes)}`
    : `session ${JSON.stringify(values.session)} has nothing in ${stateDir}`
  process.stdout.write(values.json ? `${JSON.stringify({ stateDir, sessionKey: values.session, ...r }, null, 2)}\n` : `${text}\n`)
  return 0
}
