// What `replay` and `eval` read, from what the user named:
//   a transcript file        pi JSONL (v1-v3, OpenClaw's legacy `<id>.jsonl`, `.jsonl.reset.<time>`,
//                            `.jsonl.deleted.<time>`), Claude Code JSONL, or a `.jsonl.zst` archive
//   an agent database        `.../agents/<agentId>/agent/openclaw-agent.sqlite` (+ a session key or id)
//   an OpenClaw state dir    (+ a session key or id; `--agent` narrows the agents searched)
//   a session key or id      alone: looked up in $OPENCLAW_STATE_DIR, else ~/.openclaw
// In a state dir, a key or id is looked up in the agents' SQLite databases, then in legacy
// `agents/<id>/sessions/sessions.json` indexes (an older OpenClaw, or sessions doctor has not imported).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseTranscript } from './transcript.mjs'
import { AGENT_DB_NAME, StoreError, coldArchiveEvents, defaultOpenClawDir, fileKind, findAgentStores, isColdArchiveText, openAgentStore, parsedFromEvents, readArchiveText, readSession } from './openclaw-store.mjs'

/** An agent database inside `dir` when `dir` is an agent's folder (`agents/<id>` or `agents/<id>/agent`). */
function agentDbIn(dir) {
  for (const p of [join(dir, AGENT_DB_NAME), join(dir, 'agent', AGENT_DB_NAME)]) if (existsSync(p)) return p
  return null
}

/** The agent id a session key names (`agent:<id>:...`), or null. */
export function agentOfKey(key) {
  const m = /^agent:([^:]+):/.exec(key ?? '')
  return m ? m[1] : null
}

/**
 * What a path names: `{ kind: 'file', path, fileKind }`, `{ kind: 'store', path }` (an agent database),
 * `{ kind: 'stateDir', path, stores }` or null when it does not exist.
 */
export function classifyTarget(path) {
  if (!existsSync(path)) return null
  if (statSync(path).isDirectory()) {
    const db = agentDbIn(path)
    if (db) return { kind: 'store', path: db }
    return { kind: 'stateDir', path, stores: findAgentStores(path) }
  }
  const k = fileKind(path)
  return k === 'sqlite' ? { kind: 'store', path } : { kind: 'file', path, fileKind: k }
}

/**
 * Reads a transcript file (plain or zstd) into parseTranscript's result; an OpenClaw cold-storage archive
 * (`sessions/cold/<sha256>.jsonl.zst`) is read as the store reads it.
 */
export function readTranscriptFile(path, kind = fileKind(path)) {
  const text = kind === 'zstd' ? readArchiveText(path) : readFileSync(path, 'utf8')
  if (kind === 'zstd' && isColdArchiveText(text)) {
    const { events, problems } = coldArchiveEvents(text)
    return parsedFromEvents(events, problems)
  }
  return parseTranscript(text)
}

/** A session of an agent database, opened and closed here. */
async function fromStore(dbPath, keyOrId) {
  const store = await openAgentStore(dbPath)
  try {
    const s = readSession(store, keyOrId)
    return {
      parsed: s.parsed,
      file: `${dbPath}#${s.row.sessionKey}`,
      source: { kind: 'openclaw-sqlite', path: dbPath, agentId: store.agentId, schemaVersion: store.schemaVersion, sessionKey: s.row.sessionKey, sessionId: s.sessionId, events: s.eventCount, zstdRows: s.zstdRows, cold: s.cold },
    }
  } finally {
    store.close()
  }
}

/** The agents of a state dir to search for `keyOrId`: `--agent`, else the key's agent, else all. */
function storesFor(stateDir, stores, keyOrId, agent) {
  const wanted = agent ?? agentOfKey(keyOrId)
  if (!wanted) return stores
  const hit = stores.filter((s) => s.agentId === wanted)
  if (hit.length === 0) {
    throw new StoreError('SessionNotFound', `no agent ${JSON.stringify(wanted)} in ${stateDir} (agents: ${stores.map((s) => s.agentId).join(', ') || 'none'})`)
  }
  return hit
}

/**
 * A session of an older, file-backed OpenClaw (before 2026.7's SQLite store, or not yet imported by
 * `openclaw doctor --fix`): `agents/<id>/sessions/sessions.json` maps the key to its `sessionId` and
 * `sessionFile`. Returns the session as `loadSession` does, or null.
 */
function fromLegacyIndex(stateDir, keyOrId, agent) {
  const agentsDir = join(stateDir, 'agents')
  if (!existsSync(agentsDir)) return null
  const wanted = agent ?? agentOfKey(keyOrId)
  for (const id of readdirSync(agentsDir).sort()) {
    if (wanted && id !== wanted) continue
    const dir = join(agentsDir, id, 'sessions')
    const indexPath = join(dir, 'sessions.json')
    if (!existsSync(indexPath)) continue
    let index
    try {
      index = JSON.parse(readFileSync(indexPath, 'utf8'))
    } catch {
      continue
    }
    const key = Object.hasOwn(index, keyOrId) ? keyOrId : Object.keys(index).find((k) => index[k]?.sessionId === keyOrId)
    const entry = key === undefined ? undefined : index[key]
    if (!entry || typeof entry.sessionId !== 'string') continue
    const file = typeof entry.sessionFile === 'string' ? resolve(dir, entry.sessionFile) : join(dir, `${entry.sessionId}.jsonl`)
    if (!existsSync(file)) continue
    return { parsed: readTranscriptFile(file), file, source: { kind: 'legacy-jsonl', path: file, agentId: id, sessionKey: key, sessionId: entry.sessionId } }
  }
  return null
}

/** The session `keyOrId` in a state dir: the one agent that has it (an id in two agents is ambiguous). */
async function fromStateDir(stateDir, stores, keyOrId, agent) {
  if (stores.length === 0) {
    const legacy = fromLegacyIndex(stateDir, keyOrId, agent)
    if (legacy) return legacy
    throw new StoreError('SessionNotFound', `no OpenClaw agent database (agents/<agentId>/agent/${AGENT_DB_NAME}) in ${stateDir}, and no session ${JSON.stringify(keyOrId)} in a legacy agents/<agentId>/sessions/sessions.json`)
  }
  const candidates = storesFor(stateDir, stores, keyOrId, agent)
  const found = []
  let lastMiss
  for (const s of candidates) {
    try {
      found.push(await fromStore(s.path, keyOrId))
    } catch (e) {
      if (e?.code !== 'SessionNotFound') throw e
      lastMiss = e
    }
  }
  if (found.length === 1) return found[0]
  if (found.length === 0) {
    // Not imported yet: a legacy sessions.json beside the databases may still name it.
    const legacy = fromLegacyIndex(stateDir, keyOrId, agent)
    if (legacy) return legacy
    if (candidates.length === 1) throw lastMiss // its message lists that database's sessions
  }
  if (found.length > 1) {
    throw new StoreError('SessionNotFound', `session ${JSON.stringify(keyOrId)} is in ${found.length} agents (${found.map((f) => f.source.agentId).join(', ')}): name one with --agent`)
  }
  throw new StoreError('SessionNotFound', `no session ${JSON.stringify(keyOrId)} in any agent of ${stateDir} (${candidates.map((s) => s.agentId).join(', ')})${lastMiss ? '; `openclaw-context inspect` lists them' : ''}`)
}

/**
 * Resolves the replay / eval input: `positionals` = [target] or [target, keyOrId]. Returns
 * `{ parsed, file, source }`. A session key or id alone is looked up in the default state dir.
 * @param {string[]} positionals
 * @param {{ agent?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export async function loadSession(positionals, { agent, env = process.env } = {}) {
  const [target, keyOrId] = positionals
  const t = classifyTarget(target)
  if (t === null) {
    if (keyOrId !== undefined) {
      const err = new Error(`no such file or directory: ${target}`)
      err.code = 'ENOENT'
      throw err
    }
    // Not a path: a session key or id in the default state dir.
    const stateDir = defaultOpenClawDir(env)
    if (!existsSync(stateDir)) {
      const err = new Error(`no such file or directory: ${target} (and no OpenClaw state dir at ${stateDir} to look it up as a session key or id)`)
      err.code = 'ENOENT'
      throw err
    }
    return fromStateDir(stateDir, findAgentStores(stateDir), target, agent)
  }
  if (t.kind === 'file') {
    if (keyOrId !== undefined) throw Object.assign(new Error('a transcript file takes no session key'), { usage: true })
    return { parsed: readTranscriptFile(t.path, t.fileKind), file: t.path, source: { kind: t.fileKind === 'zstd' ? 'archive' : 'file', path: t.path } }
  }
  if (keyOrId === undefined) throw Object.assign(new Error(`name a session: ${t.kind === 'store' ? 'an agent database' : 'a state dir'} takes a session key or id (openclaw-context inspect ${target} lists them)`), { usage: true })
  if (t.kind === 'store') return fromStore(t.path, keyOrId)
  return fromStateDir(t.path, t.stores, keyOrId, agent)
}
