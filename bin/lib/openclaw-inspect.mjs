// `openclaw-context inspect <stateDir>`: OpenClaw's own sessions beside what this package wrote for them.
// Per agent (agents/<agentId>/agent/openclaw-agent.sqlite, read-only): every session row, newest first, with its
// key, current session id, turns and compactions on the active branch (the same reading replay makes), last
// activity, and this package's checkpoints and observation bytes for that key (context/ under the same state
// dir, matched through the addon's sessionDirName); and the agent's reset / deleted / cold archives.
import { canReadStore, findAgentStores, findArchives, inSnapshot, listSessionRows, NODE_NEEDED, openAgentStore, readSessionEvents, parsedFromEvents } from './openclaw-store.mjs'
import { fmt, table } from './format.mjs'
import { has, native } from './native.mjs'

function counts(parsed) {
  const c = { turns: 0, userTurns: 0, toolResults: 0, compactions: 0, resets: 0 }
  for (const { entry } of parsed.entries) {
    if (entry.type === 'message') {
      const role = entry.message.role
      if (role === 'assistant') c.turns++
      else if (role === 'user') c.userTurns++
      else if (role === 'toolResult') c.toolResults++
    } else if (entry.type === 'compaction') c.compactions++
    else if (entry.type === 'reset') c.resets++
  }
  return c
}

/**
 * When a session was last active: the newest of OpenClaw's last run / interaction times and the last entry's
 * timestamp on the active branch; else the row's last write.
 */
function lastActivity(row, parsed) {
  let t = row.lastActivityAt ?? 0
  const last = parsed.entries[parsed.entries.length - 1]?.entry.timestamp
  const lt = typeof last === 'string' ? Date.parse(last) : Number.NaN
  if (Number.isFinite(lt)) t = Math.max(t, lt)
  if (!t) t = row.updatedAt ?? 0
  return t ? new Date(t).toISOString() : null
}

/** This package's data for a session key: `{ checkpoints, observationBytes, historyBytes, dir }` from inspect()'s sessions. */
function packageData(contextSessions, sessionKey) {
  const dir = has('sessionDirName') ? native.sessionDirName(sessionKey) : null
  const s = contextSessions.find((c) => (dir !== null && c.dir === dir) || c.sessionKey === sessionKey)
  if (!s) return { dir, checkpoints: 0, observationBytes: 0, historyBytes: 0 }
  const o = s.observations
  const ok = o && !o.error
  // history (issue 49): the compacted conversation kept, part of the observation bytes
  return { dir: s.dir, checkpoints: s.checkpoints.length, observationBytes: ok ? o.bytes ?? 0 : 0, historyBytes: ok ? o.history?.bytes ?? 0 : 0 }
}

/**
 * The OpenClaw part of `inspect <stateDir>`. `contextSessions` is inspect()'s `sessions` (this package's
 * data). Returns `{ available, reason?, agents: [{ agentId, path, schemaVersion, appVersion, error?, sessions,
 * archives }] }`; a store that cannot be read is an agent with `error: { code, exitCode, message }`.
 */
export async function inspectOpenClaw(stateDir, { contextSessions = [], agent, sessionKey } = {}) {
  let stores = findAgentStores(stateDir)
  if (agent) stores = stores.filter((s) => s.agentId === agent)
  if (stores.length === 0) return { available: true, agents: [] }
  if (!(await canReadStore())) {
    return {
      available: false,
      reason: `OpenClaw's sessions (${stores.length} agent database${stores.length > 1 ? 's' : ''}) not read: reading them needs Node ${NODE_NEEDED} or later (node:sqlite, zstd); this is Node ${process.versions.node}`,
      agents: stores.map((s) => ({ agentId: s.agentId, path: s.path })),
    }
  }
  const agents = []
  for (const s of stores) {
    const a = { agentId: s.agentId, path: s.path, schemaVersion: null, appVersion: null, sessions: [], archives: findArchives(stateDir, s.agentId) }
    let store
    try {
      store = await openAgentStore(s.path)
      a.schemaVersion = store.schemaVersion
      a.storeAgentId = store.agentId
      a.appVersion = store.appVersion
      a.sessions = inSnapshot(store, () =>
        listSessionRows(store)
          .filter((row) => !sessionKey || row.sessionKey === sessionKey || row.sessionId === sessionKey)
          .map((row) => {
            const { events, problems, zstdRows, cold } = readSessionEvents(store, row.sessionId)
            const parsed = parsedFromEvents(events, problems)
            return {
              sessionKey: row.sessionKey,
              sessionId: row.sessionId,
              displayName: row.displayName,
              ...counts(parsed),
              events: events.length,
              zstdRows,
              cold: cold ? { archive: cold.archive_name, storage: cold.storage, events: cold.event_count } : null,
              problems: parsed.problems.length,
              lastActivity: lastActivity(row, parsed),
              archivedAt: row.archivedAt ? new Date(row.archivedAt).toISOString() : null,
              windows: row.windows.length,
              context: packageData(contextSessions, row.sessionKey),
            }
          }),
      )
    } catch (e) {
      a.error = { code: e?.code ?? 'Error', exitCode: e?.exitCode ?? 1, message: String(e?.message ?? e) }
    } finally {
      store?.close()
    }
    agents.push(a)
  }
  for (const a of agents) {
    a.sessions.sort((x, y) => (y.lastActivity ?? '').localeCompare(x.lastActivity ?? '') || x.sessionKey.localeCompare(y.sessionKey))
    // For one session: only its own archives.
    if (sessionKey) a.archives = a.archives.filter((f) => f.sessionId !== null && (f.sessionId === sessionKey || a.sessions.some((x) => x.sessionId === f.sessionId)))
  }
  return { available: true, agents }
}

/** The text of the OpenClaw part. */
export function formatOpenClaw(r) {
  if (!r || r.agents.length === 0) return []
  const out = ['', 'OpenClaw sessions (agents/<agentId>/agent/openclaw-agent.sqlite, newest first)']
  if (!r.available) {
    out.push(`  ${r.reason}`)
    for (const a of r.agents) out.push(`  agent ${a.agentId}: ${a.path}`)
    return out
  }
  for (const a of r.agents) {
    out.push('', `agent ${a.agentId}  ${a.path}${a.schemaVersion ? `  (agent schema ${a.schemaVersion}, written by OpenClaw ${a.appVersion ?? '?'})` : ''}`)
    if (a.error) {
      out.push(`  ${a.error.code}: ${a.error.message}`)
      continue
    }
    if (a.sessions.length === 0) out.push('  no sessions')
    else {
      out.push(
        ...table(
          [
            { title: 'session key' },
            { title: 'session id' },
            { title: 'turns', align: 'right' },
            { title: 'compactions', align: 'right' },
            { title: 'last activity' },
            { title: 'checkpoints', align: 'right' },
            { title: 'observation bytes', align: 'right' },
            { title: 'of them history', align: 'right' },
          ],
          a.sessions.map((s) => [
            `${s.sessionKey}${s.archivedAt ? ' (archived)' : ''}${s.cold ? ' (cold)' : ''}`,
            s.sessionId,
            fmt(s.turns),
            fmt(s.compactions),
            s.lastActivity ?? '-',
            fmt(s.context.checkpoints),
            fmt(s.context.observationBytes),
            fmt(s.context.historyBytes),
          ]),
          '  ',
        ),
      )
    }
    if (a.archives.length) {
      out.push(`  archives (agents/${a.agentId}/sessions/; replay one by its path):`)
      for (const f of a.archives) out.push(`    ${f.kind.padEnd(7)} ${f.file} (${fmt(f.bytes)} B)`)
    }
  }
  return out
}

/**
 * `inspect <target> [key]` of a directory or an agent database: this package's data (lib/inspect.mjs) and
 * OpenClaw's sessions. Returns `{ result, text, code }`; `code` is a store error's exit code when an agent
 * database could not be read, 1 when a named session is nowhere, else 0.
 */
export async function inspectTarget(target, sessionKey, { agent } = {}) {
  const { inspect, formatInspect } = await import('./inspect.mjs')
  const { statSync } = await import('node:fs')
  const { dirname, join } = await import('node:path')
  const dbFile = statSync(target).isFile() ? target : null
  // An agent database names its state dir: <stateDir>/agents/<id>/agent/openclaw-agent.sqlite.
  const stateDir = dbFile ? join(dirname(dbFile), '..', '..', '..') : target
  const result = inspect(stateDir, sessionKey)
  let openclaw
  if (dbFile) {
    const { basename } = await import('node:path')
    openclaw = await inspectOpenClaw(stateDir, { contextSessions: result.sessions, agent: agent ?? basename(join(dirname(dbFile), '..')), sessionKey })
    if (openclaw.agents.length === 0) openclaw = await inspectOneStore(dbFile, result.sessions, sessionKey)
  } else {
    // A key names its agent (agent:<id>:...): only that agent's database is read.
    const keyAgent = /^agent:([^:]+):/.exec(sessionKey ?? '')?.[1]
    openclaw = await inspectOpenClaw(stateDir, { contextSessions: result.sessions, agent: agent ?? keyAgent, sessionKey })
  }
  result.openclaw = openclaw
  const failed = openclaw.agents.find((a) => a.error)
  const found = result.sessions.length > 0 || openclaw.agents.some((a) => a.sessions?.length)
  const code = failed ? failed.error.exitCode : sessionKey && !found ? 1 : 0
  const text = [formatInspect(result), ...formatOpenClaw(openclaw)].join('\n')
  return { result, text, code }
}

/** An agent database outside the usual layout: read on its own. */
async function inspectOneStore(path, contextSessions, sessionKey) {
  const { mkdtempSync, mkdirSync, symlinkSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  // Laid out as a one-agent state dir (a symlink, nothing copied or written to the database).
  const dir = mkdtempSync(join(tmpdir(), 'openclaw-context-inspect-'))
  try {
    mkdirSync(join(dir, 'agents', 'agent', 'agent'), { recursive: true })
    symlinkSync(path, join(dir, 'agents', 'agent', 'agent', 'openclaw-agent.sqlite'))
    const r = await inspectOpenClaw(dir, { contextSessions, sessionKey })
    for (const a of r.agents) {
      if (a.error) a.error.message = a.error.message.split(a.path).join(path)
      a.agentId = a.storeAgentId ?? '(unknown)'
      a.path = path
    }
    return r
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
