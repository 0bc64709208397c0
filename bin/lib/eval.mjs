// `openclaw-context eval <session | stateDir>`: for each real compaction in a user's own sessions, what the
// restore would have kept of OpenClaw's summary and of what the agent went on to need, and what it must not carry:
// the measures of `npm run eval:restore` (lib/eval-restore.mjs, lib/recall.mjs, lib/continuation.mjs,
// lib/restore-defects.mjs), run on the user's data so they can judge the package before enabling it.
//   eval                          every session of every agent in $OPENCLAW_STATE_DIR (else ~/.openclaw),
//                                 and the agents' reset / deleted archives
//   eval <stateDir> [--agent ID]  the same for that state dir
//   eval <agent database>         every session of that database
//   eval <session>                one session: a transcript file or archive, or a state dir / agent database
//                                 and a session key or id, or a key or id alone
// Exit codes: 0 measured, 1 no compaction to measure; the store errors' own codes (lib/openclaw-store.mjs).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_MAX_TOKENS, evaluateTranscript, formatReport, summarize } from './eval-restore.mjs'
import { defaultOpenClawDir, findAgentStores, findArchives, inSnapshot, listSessionRows, openAgentStore, parsedFromEvents, readSessionEvents } from './openclaw-store.mjs'
import { classifyTarget, readTranscriptFile } from './session-source.mjs'
import { firstKeptIndex } from './transcript.mjs'

/** Every session of an agent database, read in one snapshot: `[{ name, parsed }]`. */
async function storeSessions(path, agentId) {
  const store = await openAgentStore(path)
  try {
    return inSnapshot(store, () =>
      listSessionRows(store).map((row) => {
        const { events, problems } = readSessionEvents(store, row.sessionId)
        return { name: `${agentId ?? store.agentId}/${row.sessionKey}`, parsed: parsedFromEvents(events, problems) }
      }),
    )
  } finally {
    store.close()
  }
}

/** The sessions `positionals` name, as `[{ name, parsed }]` (or `{ name, path }` for a JSONL file). */
async function sessionsOf(positionals, { agent, loadSession }) {
  const [target, keyOrId] = positionals
  const t = target === undefined ? { kind: 'stateDir', path: defaultOpenClawDir(), stores: findAgentStores(defaultOpenClawDir()) } : classifyTarget(target)
  if (t !== null && keyOrId === undefined && t.kind === 'file' && t.fileKind === 'text') {
    // A JSONL file is measured as `npm run eval:restore` measures it: the file itself.
    return [{ name: t.path, path: t.path }]
  }
  if (t === null || keyOrId !== undefined || t.kind === 'file') {
    const s = await loadSession(positionals, { agent })
    return [{ name: s.source.sessionKey ? `${s.source.agentId}/${s.source.sessionKey}` : s.file, parsed: s.parsed }]
  }
  if (t.kind === 'store') return storeSessions(t.path)
  if (!existsSync(t.path)) {
    const err = new Error(`no OpenClaw state dir at ${t.path}`)
    err.code = 'ENOENT'
    throw err
  }
  const out = []
  for (const s of t.stores.filter((x) => !agent || x.agentId === agent)) {
    out.push(...(await storeSessions(s.path, s.agentId)))
    for (const a of findArchives(t.path, s.agentId)) {
      if (a.kind === 'cold') continue // cold storage holds windows of the sessions above
      out.push({ name: `${s.agentId}/sessions/${a.file}`, parsed: readTranscriptFile(a.path, a.compressed ? 'zstd' : 'text') })
    }
  }
  return out
}

/**
 * The measure of one parsed session through the measure's own entry point, `evaluateTranscript(file)`: the
 * session's active branch is written as a pi v3 JSONL file (a temporary one, each entry's parent the entry
 * before it, so the file's branch is that branch), and the rows and notes it gives are named after the session
 * with the session's own lines (for a store, seq + 1).
 */
async function evaluateSession({ name, parsed }, maxTokens, detail) {
  const dir = mkdtempSync(join(tmpdir(), 'openclaw-context-eval-'))
  const file = join(dir, 'session.jsonl')
  try {
    const header = parsed.header ?? { type: 'session', version: 3, id: name, timestamp: new Date(0).toISOString(), cwd: '' }
    const lines = [JSON.stringify({ ...header, type: 'session', version: Math.max(3, Number(header.version) || 3) })]
    const lineOf = [null, parsed.header ? 1 : null] // file line -> the session's own line
    const ids = parsed.entries.map(({ entry }, k) => (typeof entry.id === 'string' && entry.id ? entry.id : `eval-${k}`))
    parsed.entries.forEach(({ line, entry }, k) => {
      const out = { ...entry, id: ids[k], parentId: k ? ids[k - 1] : null }
      // A v1 compaction names its first kept entry by file index: by id here, the file being v3.
      if (entry.type === 'compaction' && typeof entry.firstKeptEntryId !== 'string') {
        const kept = firstKeptIndex(entry, parsed.entries)
        if (kept >= 0) out.firstKeptEntryId = ids[kept]
        delete out.firstKeptEntryIndex
      }
      lines.push(JSON.stringify(out))
      lineOf.push(line)
    })
    writeFileSync(file, `${lines.join('\n')}\n`)
    const r = await evaluateTranscript(file, { maxTokens, detail })
    // Notes read `<file>:<line>: ...` or `<file>: ...`.
    const rename = (text) => (text.startsWith(`${r.file}:`) ? `${name}${text.slice(r.file.length).replace(/^:(\d+)/, (_, n) => `:${lineOf[Number(n)] ?? n}`)}` : text)
    return {
      file: name,
      notes: r.notes.map(rename),
      compactions: r.compactions.map((c) => ({ ...c, file: name, line: lineOf[c.line] ?? c.line })),
      ...(r.replay ? { replay: r.replay } : {}),
      continuation: r.continuation.map((c) => ({ ...c, file: name, line: lineOf[c.line] ?? c.line })),
      restores: r.restores.map((c) => ({ ...c, file: name, line: lineOf[c.line] ?? c.line })),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Runs the measure. Returns `{ text, code, result }` (`text` the report, or JSON with --json).
 * @param {string[]} positionals
 * `html`: also write the HTML report (lib/html-report.mjs) to that file: per session the replay's curve, and per
 * compaction the real summary beside the restore at `maxTokens`.
 * @param {{ agent?: string, maxTokens?: number, json?: boolean, missed?: boolean, html?: string, loadSession: Function }} options
 */
export async function runEval(positionals, { agent, maxTokens = DEFAULT_MAX_TOKENS, json = false, missed = false, html, loadSession }) {
  const detail = html !== undefined
  const sessions = await sessionsOf(positionals, { agent, loadSession })
  const results = []
  for (const s of sessions) {
    if (s.path) {
      results.push(await evaluateTranscript(s.path, { maxTokens, detail }))
      continue
    }
    if (!s.parsed.entries.some((e) => e.entry.type === 'compaction')) {
      results.push({ file: s.name, notes: [`${s.name}: no compaction entry, so no real summary to compare a restore with; skipped`], compactions: [], continuation: [], restores: [] })
      continue
    }
    if (process.stderr.isTTY) process.stderr.write(`eval: ${s.name}...\n`)
    results.push(await evaluateSession(s, maxTokens, detail))
  }
  if (detail) {
    const { renderPage, sessionView, writePage } = await import('./html-report.mjs')
    const { native } = await import('./native.mjs')
    const measured = results.filter((r) => r.replay)
    writePage(
      html,
      renderPage({
        title: `openclaw-context eval: ${measured.length} session(s) with compactions`,
        intro: `Per real compaction, OpenClaw's own summary beside the restore @openclaw/context-native would have injected (at most ${maxTokens} tokens), and what the restore kept of the files, code spans and identifiers the summary named. Sessions without a compaction are left out (${results.length - measured.length}).`,
        sessions: measured.map((r) => sessionView(r.file, r.replay, r.compactions, r.format)),
        countTokens: (t) => native.countTokens(t ?? ''),
      }),
    )
    // The printed report stays what it is without --html.
    for (const r of measured) {
      delete r.replay
      for (const c of r.compactions) {
        delete c.summary
        delete c.turn
      }
    }
  }
  const rows = results.flatMap((r) => r.compactions)
  const summary = summarize(rows, maxTokens, { continuation: results.flatMap((r) => r.continuation), restores: results.flatMap((r) => r.restores) })
  const result = { maxTokens, sessions: sessions.length, summary, results }
  const text = json
    ? `${JSON.stringify(result, null, 2)}\n`
    : `openclaw-context eval: ${sessions.length} session(s), ${rows.length} compaction(s) measured; restore text at ${maxTokens} tokens (post-compaction) against OpenClaw's own summary\n\n${formatReport(results, summary, { missed })}\n`
  return { text, code: rows.length || summary.continuation.compactions ? 0 : 1, result }
}
