// `openclaw-context inspect <stateDir> [sessionKey]`: what the addon has written under a state dir.
// Session directories are found on disk (<stateDir>/context/{checkpoints,state,observations}/<session dir>);
// their contents are read through the addon (readCheckpoint, renderCheckpoint, listObservations), so this
// shows what a host would get, and a file the addon cannot read shows up as an error, not as data.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { has, missing, native, notAvailable } from './native.mjs'
import { fmt, pct, table } from './format.mjs'

const AREAS = ['checkpoints', 'state', 'observations']

function subdirs(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
}

function filesIn(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const st = statSync(join(dir, d.name))
      return { name: d.name, bytes: st.size, modified: st.mtime.toISOString() }
    })
}

/** Reads a field in camelCase (the JS view) or snake_case (the YAML view). */
function pick(obj, camel) {
  if (!obj || typeof obj !== 'object') return undefined
  if (camel in obj) return obj[camel]
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
  return obj[snake]
}

function checkpointSummary(yaml, file) {
  const out = { file: file.name, bytes: file.bytes }
  try {
    const cp = native.readCheckpoint({ yaml })
    if (!cp) return { ...out, error: 'not a checkpoint' }
    const meta = pick(cp, 'meta') ?? {}
    const usage = pick(meta, 'tokenUsage') ?? {}
    return {
      ...out,
      id: pick(meta, 'checkpointId'),
      sessionKey: pick(meta, 'sessionKey'),
      trigger: pick(meta, 'trigger'),
      createdAt: pick(meta, 'createdAt'),
      compactionCount: pick(meta, 'compactionCount'),
      inputTokens: pick(usage, 'inputTokens'),
      contextWindow: pick(usage, 'contextWindow'),
      utilization: pick(usage, 'utilization'),
      previous: pick(meta, 'previousCheckpoint') ?? null,
      tokens: native.countTokens(yaml),
    }
  } catch (e) {
    return { ...out, error: `${e?.code ?? 'Error'}: ${e?.message ?? e}` }
  }
}

function inspectSession(stateDir, dirName, key) {
  const base = join(stateDir, 'context')
  const session = { dir: dirName, sessionKey: key ?? null, checkpoints: [], latest: null, restore: null, state: [], observations: null }

  const cpDir = join(base, 'checkpoints', dirName)
  const cpFiles = filesIn(cpDir).filter((f) => /^cp_\d+\.yaml$/.test(f.name)).sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
  const canRead = has('readCheckpoint')
  for (const f of cpFiles) {
    const yaml = readFileSync(join(cpDir, f.name), 'utf8')
    session.checkpoints.push(canRead ? checkpointSummary(yaml, f) : { file: f.name, bytes: f.bytes })
  }
  if (!canRead && cpFiles.length) session.checkpointsNote = notAvailable('reading checkpoints', missing('readCheckpoint'))
  const latestPath = join(cpDir, '_latest.json')
  if (existsSync(latestPath)) {
    try {
      session.latest = JSON.parse(readFileSync(latestPath, 'utf8'))
    } catch (e) {
      session.latest = { error: `unreadable _latest.json: ${e.message}` }
    }
  }
  if (!session.sessionKey) session.sessionKey = [...session.checkpoints].reverse().find((c) => c.sessionKey)?.sessionKey ?? null

  const latestId = session.latest?.checkpoint_id
  const latestFile = cpFiles.find((f) => f.name === `${latestId}.yaml`) ?? cpFiles[cpFiles.length - 1]
  if (latestFile) {
    if (has('renderCheckpoint')) {
      try {
        const text = native.renderCheckpoint({ yaml: readFileSync(join(cpDir, latestFile.name), 'utf8') }, { mode: 'post-compaction' })
        session.restore = text === undefined || text === null ? null : { checkpoint: latestFile.name.replace(/\.yaml$/, ''), tokens: native.countTokens(text), text }
      } catch (e) {
        session.restore = { checkpoint: latestFile.name.replace(/\.yaml$/, ''), error: `restore text: ${e?.code ?? 'Error'}: ${e?.message ?? e}` }
      }
    } else session.restore = { error: notAvailable('restore text', missing('renderCheckpoint')) }
  }

  session.state = filesIn(join(base, 'state', dirName)).filter((f) => f.name.endsWith('.json'))

  const obsDir = join(base, 'observations', dirName)
  if (existsSync(obsDir)) {
    if (session.sessionKey && has('listObservationsSync')) {
      try {
        const list = native.listObservationsSync({ stateDir, sessionKey: session.sessionKey, includeExpired: true })
        const entries = Array.isArray(list) ? list : (list?.entries ?? [])
        // the compacted conversation kept (issue 49): `history-<n>` entries, in the session's quota
        const history = entries.filter((e) => /^history-\d+$/.test(pick(e, 'name') ?? ''))
        session.observations = {
          count: entries.length,
          bytes: entries.reduce((a, e) => a + (pick(e, 'sizeBytes') ?? 0), 0),
          history: { entries: history.length, bytes: history.reduce((a, e) => a + (pick(e, 'sizeBytes') ?? 0), 0) },
          entries: entries.map((e) => ({
            id: pick(e, 'id'),
            name: pick(e, 'name'),
            toolName: pick(e, 'toolName') ?? null,
            kind: pick(e, 'kind'),
            sizeBytes: pick(e, 'sizeBytes'),
            expiresAt: pick(e, 'expiresAt') ?? null,
          })),
        }
      } catch (e) {
        session.observations = { error: `${e?.code ?? 'Error'}: ${e?.message ?? e}` }
      }
    } else {
      const files = filesIn(obsDir)
      session.observations = {
        files: files.length,
        bytes: files.reduce((a, f) => a + f.bytes, 0),
        note: session.sessionKey
          ? notAvailable('listing observations', missing('listObservationsSync'))
          : 'session key unknown (no checkpoint names it): pass it as the second argument to list the entries',
      }
    }
  }
  return session
}

/** Everything under `stateDir`, or only `sessionKey`'s session. */
export function inspect(stateDir, sessionKey) {
  if (!existsSync(stateDir)) {
    const err = new Error(`no such state dir: ${stateDir}`)
    err.code = 'ENOENT'
    throw err
  }
  const base = join(stateDir, 'context')
  const dirs = new Set(AREAS.flatMap((a) => subdirs(join(base, a))))
  let wanted = [...dirs].sort()
  let note = null
  if (sessionKey) {
    if (has('sessionDirName')) {
      const name = native.sessionDirName(sessionKey)
      wanted = wanted.filter((d) => d === name)
    } else {
      note = notAvailable('session directory names', missing('sessionDirName'))
    }
  }
  let sessions = wanted.map((d) => inspectSession(stateDir, d, sessionKey && has('sessionDirName') ? sessionKey : undefined))
  if (sessionKey && !has('sessionDirName')) sessions = sessions.filter((s) => s.sessionKey === sessionKey)
  return { stateDir, sessionKey: sessionKey ?? null, note, sessions }
}

export function formatInspect(r) {
  const out = [`openclaw-context inspect ${r.stateDir}${r.sessionKey ? ` ${r.sessionKey}` : ''}`]
  if (r.note) out.push(`  ${r.note}`)
  if (r.sessions.length === 0) {
    const what = r.openclaw?.agents?.length ? 'this package has written nothing under context/ yet' : 'no sessions: nothing written under context/ yet'
    out.push(r.sessionKey ? `  no session ${r.sessionKey} in this state dir${r.openclaw?.agents?.length ? "'s context/ (this package's data)" : ''}` : `  ${what}`)
    return out.join('\n')
  }
  out.push(`  ${r.sessions.length} session(s)`)
  for (const s of r.sessions) {
    out.push('')
    out.push(`session ${s.sessionKey ?? '(key unknown)'}`)
    out.push(`  dir ${s.dir}`)
    if (s.checkpoints.length === 0) out.push('  checkpoints: none')
    else {
      out.push(`  checkpoints: ${s.checkpoints.length}, latest ${s.latest?.checkpoint_id ?? '-'}`)
      if (s.checkpointsNote) out.push(`    ${s.checkpointsNote}`)
      out.push(
        ...table(
          [
            { title: 'id' },
            { title: 'trigger' },
            { title: 'created' },
            { title: 'context', align: 'right' },
            { title: 'compactions', align: 'right' },
            { title: 'yaml tokens', align: 'right' },
          ],
          s.checkpoints.map((c) =>
            c.error
              ? [c.file, 'error', c.error, '', '', '']
              : [c.id ?? c.file, c.trigger ?? '-', c.createdAt ?? '-', c.inputTokens === undefined ? '-' : `${pct(c.utilization)} ${fmt(c.inputTokens)}`, c.compactionCount ?? '-', fmt(c.tokens)],
          ),
          '    ',
        ),
      )
    }
    if (s.state.length) out.push(`  incremental state: ${s.state.map((f) => `${f.name} (${fmt(f.bytes)} B)`).join(', ')}`)
    else out.push('  incremental state: none')
    const o = s.observations
    if (!o) out.push('  observation store: none')
    else if (o.error) out.push(`  observation store: ${o.error}`)
    else if (o.entries) {
      out.push(`  observation store: ${fmt(o.count)} entries, ${fmt(o.bytes)} bytes`)
      if (o.history?.entries) out.push(`  history (compacted messages, scratchpad_read "history"): ${fmt(o.history.entries)} entries, ${fmt(o.history.bytes)} bytes of them`)
      for (const e of o.entries.slice(0, 10)) {
        out.push(`    ${e.id}  ${String(e.name ?? '').padEnd(20)} ${String(e.toolName ?? '-').padEnd(8)} ${fmt(e.sizeBytes).padStart(9)} B${e.expiresAt ? `  expires ${typeof e.expiresAt === 'number' ? new Date(e.expiresAt).toISOString() : e.expiresAt}` : ''}`)
      }
      if (o.entries.length > 10) out.push(`    ... ${o.entries.length - 10} more (--json lists them all)`)
    } else out.push(`  observation store: ${fmt(o.files)} files, ${fmt(o.bytes)} bytes (${o.note})`)
    if (s.restore?.text) {
      out.push(`  restore text of ${s.restore.checkpoint} (${fmt(s.restore.tokens)} tokens):`)
      out.push(...s.restore.text.split('\n').map((l) => `    | ${l}`))
    } else if (s.restore?.error) out.push(`  ${s.restore.error}`)
  }
  return out.join('\n')
}
