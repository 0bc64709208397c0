// Reading OpenClaw 2026.9's own session store, read-only, the way OpenClaw reads it.
//
// Where OpenClaw keeps sessions (pinned openclaw 2026.9.6, docs/concepts/session.md "Where state lives",
// docs/reference/database-schemas/layout.md):
//   <stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite   session rows (`session_nodes`: key ->
//       current session id), transcript generations (`session_windows`) and their events
//       (`transcript_events`: one pi entry per row, the `session` header at seq 0, in `event_json` TEXT or,
//       since agent schema 23, a level-1 zstd frame with checksum in `event_zstd` whose decoded size is
//       `event_utf8_bytes`)
//   <stateDir>/agents/<agentId>/sessions/   reset and deleted archives (`<id>.jsonl.reset.<time>[.zst]`,
//       `<id>.jsonl.deleted.<time>[.zst]`), cold storage (`cold/<sha256>.jsonl.zst`), and on older installs
//       the legacy `sessions.json` + `<id>.jsonl` files `openclaw doctor --fix` imports.
//   <stateDir> is `$OPENCLAW_STATE_DIR`, else `~/.openclaw`.
//
// The database is opened with node:sqlite's `readOnly` (SQLITE_OPEN_READONLY): no write lock is ever taken,
// and in WAL mode (OpenClaw's) a reader sees the last committed state while a gateway writes. One read
// transaction covers everything read from one database, so a session's rows and its events are one snapshot.
//
// A window OpenClaw moved to cold storage (`session_transcript_cold_archives`, agent schema 20+) is read from
// its archive (`sessions/cold/<sha256>.jsonl.zst`, or the row's blob), checked against the recorded size and
// sha256 as OpenClaw checks it. Nothing is restored into the database.
//
// The active branch is chosen by OpenClaw's own rules (src/config/sessions/transcript-tree.ts in the pinned
// dist, transcript-tree-*.mjs: scanSessionTranscriptNavigation and selectSessionTranscriptActiveEntries),
// ported below: `leaf` control rows move the active leaf, `appendMode: "side"` entries stay off it, entries
// after a `reset` are re-parented onto the current leaf, and when the path starts after a compaction or reset
// that boundary is kept in front of it. A transcript without explicit leaf updates is read whole, in order.
//
// node:sqlite and zstd in node:zlib come with Node 24 (OpenClaw 2026.9 itself requires Node >= 24.16). On an
// older Node these inputs are an error naming the version needed (code NodeTooOld); nothing else needs them.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { createHash } from 'node:crypto'
import zlib from 'node:zlib'
import { KNOWN_ENTRY_TYPES } from './transcript.mjs'

/** Agent schema versions this reader knows (`PRAGMA user_version` and `schema_meta.schema_version`). */
export const KNOWN_AGENT_SCHEMA_VERSIONS = Object.freeze([23])
/** The OpenClaw release whose store layout this reader follows. */
export const OPENCLAW_VERSION_READ = '2026.9.6'
/** The agent database's file name inside `agents/<agentId>/agent/`. */
export const AGENT_DB_NAME = 'openclaw-agent.sqlite'
/** The Node that has node:sqlite and zstd (OpenClaw 2026.9 itself needs >= 24.16). */
export const NODE_NEEDED = '24'

/** Exit codes of the store errors (the CLI's other codes: 1 error, 2 usage, 3 unknown transcript format). */
export const STORE_EXIT_CODES = Object.freeze({
  DamagedStore: 4,
  DamagedArchive: 4,
  ForeignStore: 5,
  UnknownSchemaVersion: 6,
  NodeTooOld: 7,
  SessionNotFound: 8,
})

/** An error reading the store: `code` one of STORE_EXIT_CODES' keys, `exitCode` the CLI's exit code. */
export class StoreError extends Error {
  constructor(code, message, extra = {}) {
    super(message)
    this.name = 'StoreError'
    this.code = code
    this.exitCode = STORE_EXIT_CODES[code] ?? 1
    Object.assign(this, extra)
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

/** OpenClaw's state dir: `$OPENCLAW_STATE_DIR`, else `~/.openclaw`. */
export function defaultOpenClawDir(env = process.env) {
  return env.OPENCLAW_STATE_DIR ? resolve(env.OPENCLAW_STATE_DIR) : join(homedir(), '.openclaw')
}

function headBytes(path, n) {
  const fd = openSync(path, 'r')
  try {
    const buf = Buffer.alloc(n)
    const got = readSync(fd, buf, 0, n, 0)
    return buf.subarray(0, got)
  } finally {
    closeSync(fd)
  }
}

/** What a file is by its first bytes: 'sqlite', 'zstd' or 'text'. */
export function fileKind(path) {
  const head = headBytes(path, 16)
  if (head.length >= 16 && head.equals(SQLITE_MAGIC)) return 'sqlite'
  if (head.length >= 4 && head.subarray(0, 4).equals(ZSTD_MAGIC)) return 'zstd'
  if (path.endsWith('.sqlite') || path.endsWith('.db')) return 'sqlite'
  if (path.endsWith('.zst')) return 'zstd'
  return 'text'
}

function nodeTooOld(what) {
  return new StoreError(
    'NodeTooOld',
    `${what} needs Node ${NODE_NEEDED} or later (OpenClaw 2026.9 itself requires Node >= 24.16); this is Node ${process.versions.node}. ` +
      'Run the CLI with Node 24; JSONL transcripts read on any Node >= 20.',
  )
}

let sqliteModule
/** node:sqlite, or a NodeTooOld error. */
export async function loadSqlite() {
  if (sqliteModule) return sqliteModule
  try {
    sqliteModule = await import('node:sqlite')
  } catch {
    throw nodeTooOld("Reading OpenClaw's SQLite session store (node:sqlite)")
  }
  return sqliteModule
}

/** True when this Node can read the store (node:sqlite and zstd). */
export async function canReadStore() {
  if (typeof zlib.zstdDecompressSync !== 'function') return false
  try {
    await loadSqlite()
    return true
  } catch {
    return false
  }
}

/** zstd-decoded bytes, or a NodeTooOld error. `maxOutputLength` bounds the output. */
export function zstdDecompress(bytes, maxOutputLength) {
  if (typeof zlib.zstdDecompressSync !== 'function') throw nodeTooOld('Decoding zstd (OpenClaw archives and compressed transcript rows)')
  return zlib.zstdDecompressSync(bytes, maxOutputLength === undefined ? undefined : { maxOutputLength })
}

/**
 * The text of a `.jsonl.zst` archive (reset, deleted or cold storage): OpenClaw writes it with
 * `zstdCompressSync` of the JSONL text (archive-compression.ts), so it is one zstd stream of JSONL.
 */
export function readArchiveText(path) {
  let bytes
  try {
    bytes = zstdDecompress(readFileSync(path))
  } catch (e) {
    if (e instanceof StoreError) throw e
    throw new StoreError('DamagedArchive', `${path}: not a readable zstd archive (${e?.code ?? 'Error'}: ${e?.message ?? e}); truncated or damaged`)
  }
  return new TextDecoder('utf-8').decode(bytes)
}

/**
 * Where OpenClaw keeps a cold archive of a database (session-cold-storage-codec.ts): a database in a folder
 * named `agent` uses the sibling `sessions/cold/`, any other layout `cold/` beside the database.
 */
export function coldArchivePath(storePath, archiveName) {
  if (!/^[a-f0-9]{64}\.jsonl\.zst$/.test(archiveName)) throw new StoreError('DamagedStore', `${storePath}: invalid cold archive name ${JSON.stringify(archiveName)}`)
  const dir = dirname(storePath)
  return basename(dir) === 'agent' ? join(dirname(dir), 'sessions', 'cold', archiveName) : join(dir, 'cold', archiveName)
}

/** True when archive text is OpenClaw's cold-storage format (its first record is the v1 cold header). */
export function isColdArchiveText(text) {
  const first = text.slice(0, text.indexOf('\n') >>> 0)
  try {
    const v = JSON.parse(first)
    return isRecord(v) && v.kind === 'header' && v.version === 1 && typeof v.sessionId === 'string'
  } catch {
    return false
  }
}

/**
 * The transcript events of a cold archive's text (session-cold-storage-codec.ts: one JSON record a line, a
 * `header`, then `event` rows `{ seq, event_json, created_at }` beside identity, active-path, index and
 * search rows): `{ sessionId, events: [{ seq, value }], problems }`.
 */
export function coldArchiveEvents(text) {
  const events = []
  const problems = []
  let sessionId = null
  text.split('\n').forEach((line, k) => {
    if (line.trim() === '') return
    let rec
    try {
      rec = JSON.parse(line)
    } catch {
      problems.push({ line: k + 1, kind: 'garbage', detail: `cold archive line ${k + 1}: not JSON; skipped` })
      return
    }
    if (rec?.kind === 'header') sessionId = rec.sessionId ?? null
    if (rec?.kind !== 'event' || !isRecord(rec.row) || typeof rec.row.event_json !== 'string') return
    try {
      events.push({ seq: rec.row.seq, value: JSON.parse(rec.row.event_json) })
    } catch {
      problems.push({ line: rec.row.seq + 1, kind: 'garbage', detail: `event seq ${rec.row.seq}: not JSON; skipped` })
    }
  })
  events.sort((a, b) => a.seq - b.seq)
  return { sessionId, events, problems }
}

/** A cold archive's bytes, checked against the size and sha256 its row records, as OpenClaw checks them. */
function readColdBytes(store, sessionId) {
  const row = store.db.prepare('SELECT archive_name, archive_sha256, archive_bytes, storage, archive_blob FROM session_transcript_cold_archives WHERE session_id = ?').get(sessionId)
  const where = row.storage === 'sqlite' ? `${store.path} (embedded)` : coldArchivePath(store.path, row.archive_name)
  let bytes
  try {
    bytes = row.storage === 'sqlite' ? Buffer.from(row.archive_blob ?? []) : readFileSync(where)
  } catch (e) {
    throw new StoreError('DamagedArchive', `cold transcript archive ${where} is missing or unreadable (${e?.code ?? e}): restore it from a backup`)
  }
  if (bytes.length !== row.archive_bytes || createHash('sha256').update(bytes).digest('hex') !== row.archive_sha256) {
    throw new StoreError('DamagedArchive', `cold transcript archive ${where} does not match the size and sha256 its database records: restore it from a backup`)
  }
  return bytes
}

/** The agent databases under an OpenClaw state dir: `[{ agentId, path }]`, sorted by agent id. */
export function findAgentStores(stateDir) {
  const agents = join(stateDir, 'agents')
  if (!existsSync(agents)) return []
  const out = []
  for (const d of readdirSync(agents, { withFileTypes: true })) {
    if (!d.isDirectory()) continue
    const path = join(agents, d.name, 'agent', AGENT_DB_NAME)
    if (existsSync(path)) out.push({ agentId: d.name, path })
  }
  return out.sort((a, b) => a.agentId.localeCompare(b.agentId))
}

/**
 * Archived transcripts of an agent (`agents/<id>/sessions/`): reset and deleted archives, plain or
 * `.zst`, and cold storage. `[{ file, path, kind: 'reset' | 'deleted' | 'cold', compressed, bytes, sessionId }]`.
 */
export function findArchives(stateDir, agentId) {
  const dir = join(stateDir, 'agents', agentId, 'sessions')
  const out = []
  const add = (path, name, kind) => {
    const st = statSync(path)
    out.push({ file: name, path, kind, compressed: name.endsWith('.zst'), bytes: st.size, modified: st.mtime.toISOString(), sessionId: kind === 'cold' ? null : name.replace(/\.jsonl\..*$/, '') })
  }
  if (existsSync(dir)) {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (!d.isFile()) continue
      const m = /\.jsonl\.(reset|deleted)\./.exec(d.name)
      if (m) add(join(dir, d.name), d.name, m[1])
    }
  }
  const cold = join(dir, 'cold')
  if (existsSync(cold)) {
    for (const d of readdirSync(cold, { withFileTypes: true })) if (d.isFile() && d.name.endsWith('.jsonl.zst')) add(join(cold, d.name), `cold/${d.name}`, 'cold')
  }
  return out.sort((a, b) => a.file.localeCompare(b.file))
}

/** SQLite's result codes for a damaged or non-database file (SQLITE_CORRUPT, SQLITE_NOTADB). */
const DAMAGED_ERRCODES = new Set([11, 26])

function sqliteFailure(path, e) {
  if (e instanceof StoreError) return e
  const errcode = typeof e?.errcode === 'number' ? e.errcode & 0xff : null
  if (errcode !== null && DAMAGED_ERRCODES.has(errcode)) {
    return new StoreError('DamagedStore', `${path}: ${e.errstr ?? e.message} (SQLite code ${e.errcode}): the database is truncated or damaged`)
  }
  return e
}

/** Checks the file before SQLite sees it: a SQLite header, and not shorter than the header says. */
function checkDatabaseFile(path) {
  const st = statSync(path)
  if (st.size === 0) throw new StoreError('DamagedStore', `${path}: empty file (0 bytes), not an OpenClaw agent database`)
  const head = headBytes(path, 100)
  if (head.length < 100 || !head.subarray(0, 16).equals(SQLITE_MAGIC)) {
    throw new StoreError('DamagedStore', `${path}: not a SQLite database (${head.length < 100 ? `only ${st.size} bytes` : 'no SQLite header'}): truncated or not a database`)
  }
  let pageSize = head.readUInt16BE(16)
  if (pageSize === 1) pageSize = 65536
  const pages = head.readUInt32BE(28)
  // The in-header size is valid when its version-valid-for number matches the change counter.
  if (pages > 0 && head.readUInt32BE(92) === head.readUInt32BE(24) && st.size < pages * pageSize) {
    throw new StoreError('DamagedStore', `${path}: truncated: ${st.size} bytes, its header says ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes)`)
  }
}

const REQUIRED_TABLES = ['schema_meta', 'session_nodes', 'session_windows', 'transcript_events']

/**
 * Opens an agent database read-only and checks it is one this reader knows. Returns
 * `{ db, path, agentId, schemaVersion, appVersion, close() }`. Errors: DamagedStore, ForeignStore,
 * UnknownSchemaVersion, NodeTooOld.
 */
export async function openAgentStore(path) {
  const { DatabaseSync } = await loadSqlite()
  if (typeof zlib.zstdDecompressSync !== 'function') throw nodeTooOld("Reading OpenClaw's session store (zstd rows)")
  checkDatabaseFile(path)
  let db
  try {
    // readOnly: SQLITE_OPEN_READONLY, never a write lock. timeout: wait (do not fail) while a writer
    // holds the WAL index briefly (checkpoint, recovery).
    db = new DatabaseSync(path, { readOnly: true, timeout: 5000 })
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name))
    const missingTables = REQUIRED_TABLES.filter((t) => !tables.has(t))
    if (missingTables.length) {
      const role = tables.has('schema_meta') ? db.prepare('SELECT role FROM schema_meta LIMIT 1').get()?.role : undefined
      throw new StoreError(
        'ForeignStore',
        `${path}: not an OpenClaw agent database (${role ? `schema_meta role "${role}"; ` : ''}no ${missingTables.join(', ')} table${missingTables.length > 1 ? 's' : ''}). ` +
          `OpenClaw keeps sessions in <stateDir>/agents/<agentId>/agent/${AGENT_DB_NAME}.`,
      )
    }
    const userVersion = db.prepare('PRAGMA user_version').get().user_version
    const meta = db.prepare("SELECT role, schema_version, agent_id, app_version FROM schema_meta WHERE role = 'agent' ORDER BY meta_key = 'primary' DESC LIMIT 1").get()
    if (!meta) {
      const other = db.prepare('SELECT role FROM schema_meta LIMIT 1').get()
      throw new StoreError('ForeignStore', `${path}: not an OpenClaw agent database (schema_meta has ${other ? `role "${other.role}"` : 'no row'}, not role "agent")`)
    }
    const versions = [...new Set([meta.schema_version, userVersion])]
    const unknown = versions.find((v) => !KNOWN_AGENT_SCHEMA_VERSIONS.includes(v))
    if (unknown !== undefined) {
      const newest = Math.max(...KNOWN_AGENT_SCHEMA_VERSIONS)
      const advice =
        unknown > newest
          ? `it was written by a newer OpenClaw (${meta.app_version ?? 'version unknown'}) than this CLI reads: update @openclaw/context-native`
          : 'it predates the layout this CLI reads: `openclaw doctor --fix` of OpenClaw 2026.9 migrates it'
      throw new StoreError(
        'UnknownSchemaVersion',
        `${path}: agent schema version ${unknown} (schema_meta ${meta.schema_version}, user_version ${userVersion}); this CLI reads agent schema ${KNOWN_AGENT_SCHEMA_VERSIONS.join(', ')} (OpenClaw ${OPENCLAW_VERSION_READ}): ${advice}`,
        { schemaVersion: unknown },
      )
    }
    const agentId = meta.agent_id ?? basename(dirname(dirname(path)))
    return {
      db,
      path,
      agentId,
      schemaVersion: meta.schema_version,
      appVersion: meta.app_version ?? null,
      close() {
        db.close()
      },
    }
  } catch (e) {
    try {
      db?.close()
    } catch {}
    throw sqliteFailure(path, e)
  }
}

/** Runs `fn` inside one read transaction (one snapshot of the database). */
export function inSnapshot(store, fn) {
  const { db, path } = store
  try {
    db.exec('BEGIN')
    try {
      return fn()
    } finally {
      db.exec('COMMIT')
    }
  } catch (e) {
    throw sqliteFailure(path, e)
  }
}

function parseJsonOr(text, fallback) {
  try {
    return JSON.parse(text)
  } catch {
    return fallback
  }
}

/**
 * The session rows of a store: `[{ sessionKey, sessionId, updatedAt, lastActivityAt, lastInteractionAt,
 * archivedAt, displayName, compactionCount, windows: [{ sessionId, reason, createdAt, updatedAt }] }]`,
 * newest first. Times are epoch milliseconds.
 */
export function listSessionRows(store) {
  const { db } = store
  const nodes = db
    .prepare(
      'SELECT session_key, current_session_id, entry_json, updated_at, last_activity_at, last_interaction_at, archived_at, display_name, label FROM session_nodes',
    )
    .all()
  const windows = db.prepare('SELECT session_id, session_key, previous_session_id, reason, created_at, updated_at, transcript_updated_at FROM session_windows').all()
  const byKey = new Map()
  for (const w of windows) {
    const list = byKey.get(w.session_key) ?? []
    list.push({ sessionId: w.session_id, previousSessionId: w.previous_session_id, reason: w.reason, createdAt: w.created_at, updatedAt: w.updated_at, transcriptUpdatedAt: w.transcript_updated_at })
    byKey.set(w.session_key, list)
  }
  const rows = nodes.map((n) => {
    const entry = parseJsonOr(n.entry_json, {})
    const win = (byKey.get(n.session_key) ?? []).sort((a, b) => b.createdAt - a.createdAt)
    const current = win.find((w) => w.sessionId === n.current_session_id)
    // lastActivityAt: the last agent run or user interaction OpenClaw recorded (updated_at is any row write).
    const activity = Math.max(n.last_activity_at ?? 0, n.last_interaction_at ?? 0)
    return {
      sessionKey: n.session_key,
      sessionId: n.current_session_id,
      updatedAt: n.updated_at,
      lastActivityAt: activity || null,
      lastInteractionAt: n.last_interaction_at ?? null,
      archivedAt: n.archived_at ?? null,
      displayName: n.display_name ?? n.label ?? null,
      compactionCount: typeof entry.compactionCount === 'number' ? entry.compactionCount : null,
      windows: win,
      current: current ?? null,
    }
  })
  const newest = (r) => Math.max(r.lastActivityAt ?? 0, r.updatedAt ?? 0)
  return rows.sort((a, b) => newest(b) - newest(a) || a.sessionKey.localeCompare(b.sessionKey))
}

/** The row of a session key, or of a session id (any of its windows), or null. */
export function findSessionRow(rows, keyOrId) {
  return rows.find((r) => r.sessionKey === keyOrId) ?? rows.find((r) => r.sessionId === keyOrId) ?? rows.find((r) => r.windows.some((w) => w.sessionId === keyOrId)) ?? null
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The transcript events of one session window, decoded, in seq order: `{ events: [{ seq, value }],
 * problems, zstdRows, cold }`. A zstd row is decoded as OpenClaw decodes it (openclaw_transcript_payload_decode:
 * the frame, bounded by and checked against `event_utf8_bytes`, strict UTF-8); a row that does not decode
 * or parse is reported and skipped. `cold` is the window's cold-storage record, when its events were moved
 * out of the database.
 */
export function readSessionEvents(store, sessionId) {
  const { db } = store
  const rows = db.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq').all(sessionId)
  const events = []
  const problems = []
  let zstdRows = 0
  for (const r of rows) {
    let text = r.event_json
    if (text === null || text === undefined) {
      zstdRows++
      try {
        const bytes = zstdDecompress(r.event_zstd, r.event_utf8_bytes)
        if (bytes.byteLength !== r.event_utf8_bytes) throw new Error(`decoded ${bytes.byteLength} bytes, the row records ${r.event_utf8_bytes}`)
        text = utf8.decode(bytes)
      } catch (e) {
        if (e instanceof StoreError) throw e
        problems.push({ line: r.seq + 1, kind: 'undecodable-row', detail: `event seq ${r.seq}: compressed payload does not decode (${e?.message ?? e}); skipped` })
        continue
      }
    }
    let value
    try {
      value = JSON.parse(text)
    } catch {
      problems.push({ line: r.seq + 1, kind: 'garbage', detail: `event seq ${r.seq}: not JSON; skipped` })
      continue
    }
    events.push({ seq: r.seq, value })
  }
  const cold = db.prepare('SELECT archive_name, storage, event_count, last_seq FROM session_transcript_cold_archives WHERE session_id = ?').get(sessionId) ?? null
  if (cold) {
    // Cold storage moved the window's events to an archive; rows written after it stay in the table.
    let text
    try {
      text = new TextDecoder('utf-8').decode(zstdDecompress(readColdBytes(store, sessionId)))
    } catch (e) {
      if (e instanceof StoreError) throw e
      throw new StoreError('DamagedArchive', `cold transcript archive of ${sessionId} does not decode (${e?.message ?? e})`)
    }
    const archived = coldArchiveEvents(text)
    const seqs = new Set(events.map((e) => e.seq))
    events.unshift(...archived.events.filter((e) => !seqs.has(e.seq)))
    events.sort((a, b) => a.seq - b.seq)
    problems.push(...archived.problems)
  }
  return { events, problems, zstdRows, cold }
}

// ---- OpenClaw's active branch (port of transcript-tree.ts, openclaw 2026.9.6, MIT) ----

const CANONICAL_TYPES = new Set(['message', 'thinking_level_change', 'model_change', 'compaction', 'reset', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info'])
const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const nonBlank = (v) => (typeof v === 'string' && v.trim() !== '' ? v : undefined)
const isCanonical = (r) => isRecord(r) && CANONICAL_TYPES.has(r.type)

function treeEntry(record) {
  if (!isRecord(record) || record.type === 'session' || !Object.hasOwn(record, 'parentId')) return undefined
  const id = nonBlank(record.id)
  const parentId = record.parentId === null ? null : nonBlank(record.parentId)
  if (!id || parentId === undefined) return undefined
  if (record.type === 'leaf') {
    const targetId = record.targetId === null ? null : nonBlank(record.targetId)
    const appendParentId = record.appendParentId === undefined ? targetId : record.appendParentId === null ? null : nonBlank(record.appendParentId)
    const appendMode = record.appendMode === undefined ? undefined : record.appendMode === 'side' ? 'side' : null
    if (targetId === undefined || appendParentId === undefined || appendMode === null) return undefined
    return { id, parentId: targetId, leafId: targetId, appendParentId, ...(appendMode ? { appendMode } : {}) }
  }
  return { id, parentId, leafId: isCanonical(record) && record.appendMode !== 'side' ? id : undefined, appendParentId: id, ...(record.appendMode === 'side' ? { appendMode: 'side' } : {}) }
}

const isLeafControl = (r) => isRecord(r) && r.type === 'leaf' && treeEntry(r) !== undefined

function parentlessCanonical(record, parentId) {
  if (!isCanonical(record) || Object.hasOwn(record, 'parentId')) return undefined
  const id = nonBlank(record.id)
  return id ? { id, parentId, leafId: record.appendMode === 'side' ? undefined : id, appendParentId: id, ...(record.appendMode === 'side' ? { appendMode: 'side' } : {}) } : undefined
}

function canonicalParent(parentId, byId) {
  const seen = new Set()
  let cur = parentId
  while (cur !== null) {
    if (seen.has(cur)) return cur
    const parent = byId.get(cur)
    if (!parent || !isLeafControl(parent.entry)) return cur
    seen.add(cur)
    cur = parent.parentId
  }
  return null
}

/** OpenClaw's transcript tree: `{ nodes, byId, leafId, hasLeafControl, hasExplicitLeafUpdate, hasInvalidLeafControl }`. */
export function scanTranscriptTree(records) {
  const nodes = []
  const byId = new Map()
  const resetDescendants = new Set()
  const invalidLeafControls = new Set()
  let leafId = null
  let appendParentId = null
  let hasLeafControl = false
  let hasExplicitLeafUpdate = false
  let hasInvalidLeafControl = false
  let latestResetId
  records.forEach((entry, index) => {
    let explicit = treeEntry(entry)
    if (latestResetId && leafId !== null && explicit?.leafId !== undefined && isLeafControl(entry) && (explicit.leafId === null || !resetDescendants.has(explicit.leafId))) {
      explicit = { ...explicit, parentId: leafId, leafId, appendParentId: leafId }
    }
    const known = (id) => id === null || (byId.has(id) && !invalidLeafControls.has(id))
    if (explicit?.leafId !== undefined && isLeafControl(entry) && (!known(explicit.leafId) || !known(explicit.appendParentId))) {
      hasInvalidLeafControl = true
      invalidLeafControls.add(explicit.id)
      const node = { ...explicit, parentId: entry.parentId, leafId: undefined, appendParentId, entry, index }
      nodes.push(node)
      byId.set(node.id, node)
      return
    }
    let te = explicit ?? parentlessCanonical(entry, leafId)
    if (te && isCanonical(entry)) {
      const staleParent = explicit && te.parentId !== null && !byId.has(te.parentId) && leafId !== null
      const wanted =
        latestResetId !== undefined && te.appendMode !== 'side' && (te.parentId === null || !resetDescendants.has(te.parentId))
          ? leafId
          : te.appendMode !== 'side' && staleParent
            ? leafId
            : explicit && te.appendMode !== 'side' && te.parentId === appendParentId && leafId !== appendParentId
              ? leafId
              : te.parentId
      const normalized = canonicalParent(wanted, byId)
      if (normalized !== te.parentId) te = { ...te, parentId: normalized }
    }
    if (!te) return
    const node = { ...te, entry, index }
    nodes.push(node)
    byId.set(node.id, node)
    if (isRecord(entry) && entry.type === 'reset') {
      latestResetId = node.id
      resetDescendants.clear()
      resetDescendants.add(node.id)
    } else if (latestResetId !== undefined && node.parentId !== null && resetDescendants.has(node.parentId)) resetDescendants.add(node.id)
    appendParentId = node.appendParentId
    if (node.leafId !== undefined) {
      leafId = node.leafId
      if (explicit) hasExplicitLeafUpdate = true
    }
    if (isLeafControl(entry)) hasLeafControl = true
  })
  return { nodes, byId, leafId, appendParentId, hasLeafControl, hasExplicitLeafUpdate, hasInvalidLeafControl }
}

function treePath(tree, leafId) {
  if (leafId === null) return []
  const path = []
  const seen = new Set()
  let cur = leafId
  while (cur) {
    if (seen.has(cur)) return []
    seen.add(cur)
    const node = tree.byId.get(cur)
    if (!node) break
    if (!isLeafControl(node.entry)) path.push(node)
    cur = node.parentId
  }
  return path.reverse()
}

/**
 * The indexes (into `records`) of the active branch, as OpenClaw selects it
 * (selectSessionTranscriptActiveEntries): every record when no entry names a parent; else the path from
 * the root to the active leaf, preceded by the compaction or reset it starts after (for a reset that kept
 * messages, the kept part of the reset's own path).
 */
export function activeIndexes(records) {
  const tree = scanTranscriptTree(records)
  if (!tree.hasExplicitLeafUpdate) return records.map((_, i) => i)
  const path = treePath(tree, tree.leafId)
  const active = path.map((n) => n.index)
  for (let i = (path[0]?.index ?? 0) - 1; i >= 0; i--) {
    const r = records[i]
    if (!isRecord(r) || (r.type !== 'compaction' && r.type !== 'reset')) continue
    if (r.type === 'reset') {
      const resetId = nonBlank(r.id)
      const keptId = nonBlank(r.firstKeptEntryId)
      if (resetId && keptId) {
        const resetPath = treePath(tree, resetId)
        const start = resetPath.findIndex((n) => n.id === keptId)
        if (start >= 0) return [...resetPath.slice(start).map((n) => n.index), ...active]
      }
    }
    return [i, ...active]
  }
  return active
}

/**
 * A session's events as `parseTranscript` returns a transcript (so `replay` and `eval` take both alike):
 * the active branch as pi entries. `line` is the event's seq + 1 (seq 0 is the header, as line 1 is in a
 * JSONL file), so a store imported from a JSONL file reports the positions the file had.
 */
export function parsedFromEvents(events, problems = []) {
  const records = events.map((e) => e.value)
  const headerAt = records.findIndex((r) => isRecord(r) && r.type === 'session')
  const header = headerAt >= 0 ? records[headerAt] : null
  const body = events.filter((_, i) => i !== headerAt)
  const order = activeIndexes(body.map((e) => e.value))
  const byType = {}
  for (const r of records) if (isRecord(r) && typeof r.type === 'string') byType[r.type] = (byType[r.type] ?? 0) + 1
  const out = []
  const probs = [...problems]
  for (const i of order) {
    const { seq, value } = body[i]
    const line = seq + 1
    if (!isRecord(value) || typeof value.type !== 'string') {
      probs.push({ line, kind: 'not-an-entry', detail: `event seq ${seq}: JSON that is not a session entry; skipped` })
      continue
    }
    if (value.type === 'leaf') continue
    if (!KNOWN_ENTRY_TYPES.has(value.type)) {
      probs.push({ line, kind: 'unknown-type', detail: `event seq ${seq}: entry type "${String(value.type).slice(0, 40)}" is not one this reader knows; skipped` })
      continue
    }
    if (value.type === 'message' && !isRecord(value.message)) {
      probs.push({ line, kind: 'missing-message', detail: `event seq ${seq}: a message entry without a message object; skipped` })
      continue
    }
    out.push({ line, fileIndex: i + 1, entry: value })
  }
  if (!header) probs.push({ line: events[0] ? events[0].seq + 1 : 1, kind: 'no-header', detail: 'no session header event; read anyway' })
  probs.sort((a, b) => a.line - b.line)
  const declared = header && typeof header.version === 'number' ? header.version : null
  return {
    format: 'openclaw-sqlite',
    family: 'pi',
    version: declared,
    header,
    entries: out,
    problems: probs,
    stats: { lines: events.length, entries: events.length, recovered: 0, offBranch: body.length - order.length, byType },
  }
}

/**
 * Reads one session of an open store: the row of `keyOrId` (a session key, or a session id of any of its
 * windows; the key's current window unless an older window's id is named). Returns `{ row, sessionId,
 * parsed, zstdRows, eventCount }`. Errors: SessionNotFound (listing the keys there are), DamagedStore.
 */
export function readSession(store, keyOrId) {
  return inSnapshot(store, () => {
    const rows = listSessionRows(store)
    const row = findSessionRow(rows, keyOrId)
    if (!row) {
      const keys = rows.slice(0, 10).map((r) => `  ${r.sessionKey} (${r.sessionId})`)
      throw new StoreError(
        'SessionNotFound',
        `no session ${JSON.stringify(keyOrId)} in ${store.path} (agent ${store.agentId}). ${rows.length ? `Sessions (newest first):\n${keys.join('\n')}${rows.length > 10 ? `\n  ... ${rows.length - 10} more (openclaw-context inspect lists them)` : ''}` : 'It holds no session.'}`,
      )
    }
    const sessionId = row.windows.some((w) => w.sessionId === keyOrId) ? keyOrId : row.sessionId
    const { events, problems, zstdRows, cold } = readSessionEvents(store, sessionId)
    return { row, sessionId, parsed: parsedFromEvents(events, problems), zstdRows, eventCount: events.length, cold: cold ? { archive: cold.archive_name, storage: cold.storage } : null }
  })
}
