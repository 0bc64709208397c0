// The CLI on OpenClaw 2026.9's own session store (issue 22): replay / inspect / eval of the SQLite stores in
// __test__/fixtures/openclaw-store, made by the pinned openclaw's own `doctor --fix` import of bundled
// transcripts (scripts/make-openclaw-store-fixture.mjs), checked against the JSONL files they came from;
// zstd rows, .jsonl.zst archives and legacy .jsonl.reset/.deleted files, a store written while it is read,
// OpenClaw's active-branch rules against OpenClaw's own function, and the errors (truncated, foreign, unknown
// schema version, Node too old) with their exit codes.
//
// Reading SQLite and zstd needs Node 24 (node:sqlite, zlib zstd). `npm test` runs vitest on Node 20 and on
// Node 24: on Node 20 the store tests are skipped (their describe says why) and the Node 20 behaviour (a clear
// NodeTooOld error, exit 7; inspect still works) is tested instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import zlib from 'node:zlib'
// @ts-ignore plain ESM module without types
import { LEGACY_SESSIONS, legacySessionText } from '../scripts/lib/legacy-sessions.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..')
const CLI = join(root, 'bin', 'openclaw-context.mjs')
const STORE = join(here, 'fixtures', 'openclaw-store')
const MANIFEST = JSON.parse(readFileSync(join(STORE, 'manifest.json'), 'utf8'))
const MAIN_DB = join(STORE, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')

async function hasSqlite() {
  try {
    await import('node:sqlite')
    return true
  } catch {
    return false
  }
}
const CAN = typeof (zlib as any).zstdDecompressSync === 'function' && (await hasSqlite())
const WHY = CAN ? '' : ` (skipped on Node ${process.versions.node}: node:sqlite and zstd need Node 24; npm test runs this file on Node 24 too)`

let tmp: string
beforeAll(() => {
  // Said once in the run's output, not only in the skipped tests' names.
  if (!CAN) console.info(`cli-openclaw-store: the SQLite store tests are skipped on Node ${process.versions.node} (node:sqlite and zstd need Node 24); npm test runs them on Node 24`)
  tmp = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'cli-store-test-'))
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
})

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...env } })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function replayJson(args: string[]) {
  const r = run(['replay', ...args, '--json', '--state-dir', mkdtempSync(join(tmp, 'state-'))])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout)
}

/** The legacy JSONL a session of the fixture was imported from, written to a file. */
function legacyFile(sessionKey: string) {
  const s = LEGACY_SESSIONS.find((x: any) => x.sessionKey === sessionKey)
  const path = join(tmp, `${sessionKey.replace(/\W/g, '_')}.jsonl`)
  writeFileSync(path, legacySessionText(s))
  return path
}

/** A copy of the fixture state dir to change. */
function storeCopy() {
  const dir = mkdtempSync(join(tmp, 'openclaw-'))
  // Not the -shm / -wal files a read of the fixture leaves beside it.
  cpSync(STORE, dir, { recursive: true, filter: (src) => !/\.sqlite-(shm|wal)$/.test(src) })
  return dir
}

/** What a replay did, without what depends on where it ran. */
function outcome(r: any) {
  const cps = r.checkpoints.written.map(({ path, ...rest }: any) => rest)
  // The synthetic observation that replaces a parked result names its own expiry time, whose token count
  // varies from run to run: tokensAfter / tokensMoved are left out.
  const { tokensAfter, tokensMoved, ...offload } = r.offload
  return { turns: r.turns, peak: r.peak, compactions: r.compactions, checkpoints: cps, skipped: r.checkpoints.skipped, offload, entries: r.entries }
}

describe('the fixture', () => {
  it('was made by the pinned openclaw (doctor --fix import) from the bundled transcripts, and says so', () => {
    expect(MANIFEST.madeBy).toMatch(/^openclaw 2026\.9\.6 doctor --fix/)
    expect(MANIFEST.doctorExit).toBe(0)
    expect(MANIFEST.sessions.map((s: any) => s.sessionKey)).toEqual(LEGACY_SESSIONS.map((s: any) => s.sessionKey))
    for (const a of MANIFEST.agents) expect(statSync(join(STORE, 'agents', a.agentId, 'agent', 'openclaw-agent.sqlite')).size).toBe(a.bytes)
  })
})

describe('a legacy (file-backed) OpenClaw state dir, on any Node', () => {
  it('replay <stateDir> <key | id> reads the session sessions.json names', () => {
    const dir = mkdtempSync(join(tmp, 'legacy-'))
    for (const s of LEGACY_SESSIONS) {
      const text = legacySessionText(s)
      const id = JSON.parse(text.slice(0, text.indexOf('\n'))).id
      const sessions = join(dir, 'agents', s.agentId, 'sessions')
      mkdirSync(sessions, { recursive: true })
      writeFileSync(join(sessions, `${id}.jsonl`), text)
      const indexPath = join(sessions, 'sessions.json')
      const index = existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : {}
      index[s.sessionKey] = { sessionId: id, updatedAt: s.updatedAt, sessionFile: `${id}.jsonl` }
      writeFileSync(indexPath, JSON.stringify(index))
    }
    const key = 'agent:main:telegram:direct:42'
    const want = outcome(replayJson([legacyFile(key)]))
    const r = replayJson([dir, key])
    expect(r.source).toMatchObject({ kind: 'legacy-jsonl', agentId: 'main', sessionKey: key })
    expect(outcome(r)).toEqual(want)
    expect(outcome(replayJson([dir, r.source.sessionId]))).toEqual(want)
    const n = run(['replay', dir, 'agent:main:nope'])
    expect(n.code).toBe(8)
    expect(n.stderr).toMatch(/SessionNotFound: .*no session "agent:main:nope" in a legacy/)
  })
})

describe.runIf(!CAN)(`on Node ${process.versions.node} (no node:sqlite / zstd)`, () => {
  it('replay of a store is a NodeTooOld error naming Node 24, exit 7', () => {
    const r = run(['replay', STORE, 'agent:main:main'])
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/NodeTooOld: .*needs Node 24 or later .*this is Node 20/)
    expect(r.stdout).toBe('')
  })
  it('a .jsonl.zst archive is the same error; a legacy .jsonl.reset file still replays', () => {
    const text = legacySessionText(LEGACY_SESSIONS[1])
    const zst = join(tmp, 'x.jsonl.reset.2026-01-01T00-00-00.000Z.zst')
    writeFileSync(zst, Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.alloc(20)]))
    const a = run(['replay', zst])
    expect(a.code).toBe(7)
    expect(a.stderr).toMatch(/NodeTooOld: Decoding zstd/)
    const plain = join(tmp, 'x.jsonl.reset.2026-01-01T00-00-00.000Z')
    writeFileSync(plain, text)
    const b = replayJson([plain])
    expect(b.turns.assistant).toBe(15)
  })
  it('inspect of a state dir still works, and says what it could not read and why', () => {
    const r = run(['inspect', STORE])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/not read: reading them needs Node 24 or later/)
    const j = JSON.parse(run(['inspect', STORE, '--json']).stdout)
    expect(j.openclaw.available).toBe(false)
    expect(j.openclaw.agents.map((a: any) => a.agentId)).toEqual(['main', 'ops'])
  })
})

describe.runIf(CAN)(`OpenClaw's SQLite session store${WHY}`, () => {
  it('replay of a store session gives the same turns, compactions and checkpoints as the JSONL it was imported from', () => {
    const file = replayJson([legacyFile('agent:main:main')])
    const store = replayJson([STORE, 'agent:main:main'])
    expect(store.format).toBe('openclaw-sqlite')
    expect(store.source).toMatchObject({ kind: 'openclaw-sqlite', agentId: 'main', schemaVersion: 23, sessionKey: 'agent:main:main', sessionId: '5fd1e58c-9635-410e-a644-133a96057c90' })
    expect(store.compactions.length).toBe(1)
    expect(store.checkpoints.written.length).toBeGreaterThan(1)
    expect(store.problems).toEqual([])
    expect(outcome(store)).toEqual(outcome(file))
    // The other ways to name it: the session id, the agent database, a key alone in OPENCLAW_STATE_DIR.
    expect(outcome(replayJson([STORE, store.source.sessionId]))).toEqual(outcome(file))
    expect(outcome(replayJson([MAIN_DB, 'agent:main:main']))).toEqual(outcome(file))
    const r = run(['replay', 'agent:main:main', '--json'], { OPENCLAW_STATE_DIR: STORE })
    expect(r.code).toBe(0)
    expect(outcome(JSON.parse(r.stdout))).toEqual(outcome(file))
    // The smaller sessions, of both agents: the telegram one (in cold storage), and the ops one, which the
    // gateway reset after the import (a real `reset` entry after the imported ones).
    const tg = 'agent:main:telegram:direct:42'
    expect(outcome(replayJson([STORE, tg]))).toEqual(outcome(replayJson([legacyFile(tg)])))
    const ops = replayJson([STORE, 'agent:ops:main'])
    const opsFile = replayJson([legacyFile('agent:ops:main')])
    expect(ops.resets).toEqual([{ line: MANIFEST.sessions[2].lines + 1, reason: 'reset', keptMessages: 0 }])
    expect(opsFile.resets).toEqual([])
    const { entries: withReset, ...a } = outcome(ops)
    const { entries: imported, ...b } = outcome(opsFile)
    expect(a).toEqual(b)
    expect(withReset).toBe(imported + 1)
  })

  it('zstd rows decode to the entries the JSONL holds (and a damaged one is reported, not fatal)', async () => {
    // @ts-ignore plain ESM module without types
    const { openAgentStore, readSessionEvents } = await import('../bin/lib/openclaw-store.mjs')
    const lines = legacySessionText(LEGACY_SESSIONS[0]).trimEnd().split('\n')
    const store = await openAgentStore(MAIN_DB)
    const { events, zstdRows, problems } = readSessionEvents(store, '5fd1e58c-9635-410e-a644-133a96057c90')
    const { DatabaseSync } = await import('node:sqlite')
    const raw = new DatabaseSync(MAIN_DB, { readOnly: true })
    const compressed = raw.prepare('SELECT seq FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL ORDER BY seq').all('5fd1e58c-9635-410e-a644-133a96057c90').map((r: any) => r.seq)
    raw.close()
    store.close()
    expect(zstdRows).toBe(compressed.length)
    expect(compressed.length).toBeGreaterThan(10)
    expect(problems).toEqual([])
    expect(events.length).toBe(lines.length)
    // OpenClaw adds ids and parent ids and moves the header to v3 on import; the rest of each entry is the line.
    for (const seq of compressed) {
      const { id, parentId, ...entry } = events[seq].value
      expect(typeof id).toBe('string')
      const line = JSON.parse(lines[seq])
      if (line.type === 'compaction') {
        // v1 names the first kept entry by its index among the file's entries; the import, by its id.
        const { firstKeptEntryIndex, ...rest } = line
        const { firstKeptEntryId, ...mine } = entry
        expect(mine).toEqual(rest)
        expect(events[firstKeptEntryIndex].value.id).toBe(firstKeptEntryId)
      } else expect(entry).toEqual(line)
    }

    const dir = storeCopy()
    const db = join(dir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
    const w = new DatabaseSync(db)
    w.prepare('UPDATE transcript_events SET event_zstd = zeroblob(length(event_zstd)) WHERE session_id = ? AND seq = ?').run('5fd1e58c-9635-410e-a644-133a96057c90', compressed[0])
    w.close()
    const r = replayJson([dir, 'agent:main:main'])
    expect(r.problems).toEqual([expect.objectContaining({ line: compressed[0] + 1, kind: 'undecodable-row' })])
    const sum = (t: any) => t.assistant + t.user + t.toolResults
    expect(sum(r.turns)).toBe(sum(replayJson([STORE, 'agent:main:main']).turns) - 1)
  })

  it('archives: a .jsonl.zst reset archive and legacy .jsonl.reset / .jsonl.deleted files replay like the JSONL; inspect lists them', () => {
    const key = 'agent:main:telegram:direct:42'
    const text = legacySessionText(LEGACY_SESSIONS[1])
    const want = outcome(replayJson([legacyFile(key)]))
    const dir = storeCopy()
    const sessions = join(dir, 'agents', 'main', 'sessions')
    mkdirSync(join(sessions, 'cold'), { recursive: true })
    const id = MANIFEST.sessions[1].sessionId
    // As OpenClaw writes an archive (archive-compression.ts: zstdCompressSync of the JSONL text).
    const zst = join(sessions, `${id}.jsonl.reset.2026-01-02T03-04-05.678Z.zst`)
    writeFileSync(zst, zlib.zstdCompressSync(Buffer.from(text)))
    const reset = join(sessions, `${id}.jsonl.reset.2025-11-21T00-00-00.000Z`)
    const deleted = join(sessions, `${id}.jsonl.deleted.2025-11-22T00-00-00.000Z`)
    writeFileSync(reset, text)
    writeFileSync(deleted, text)
    for (const f of [zst, reset, deleted]) expect(outcome(replayJson([f]))).toEqual(want)
    const j = JSON.parse(run(['inspect', dir, '--json']).stdout)
    expect(j.openclaw.agents[0].archives.map((a: any) => [a.kind, a.compressed])).toEqual([
      ['cold', true],
      ['deleted', false],
      ['reset', false],
      ['reset', true],
    ])
    // A truncated archive is a clear error of its own.
    writeFileSync(zst, zlib.zstdCompressSync(Buffer.from(text)).subarray(0, 200))
    const t = run(['replay', zst])
    expect(t.code).toBe(4)
    expect(t.stderr).toMatch(/DamagedArchive: .*not a readable zstd archive/)
  })

  it('a session OpenClaw moved to cold storage is read from its archive (checked as OpenClaw checks it), in place or as a file', () => {
    const key = 'agent:main:telegram:direct:42'
    const want = outcome(replayJson([legacyFile(key)]))
    const m = MANIFEST.sessions.find((x: any) => x.sessionKey === key)
    expect(m.cold).toMatch(/^sessions\/cold\/[0-9a-f]{64}\.jsonl\.zst$/)
    const store = replayJson([STORE, key])
    expect(store.source.cold).toEqual({ archive: m.cold.replace('sessions/cold/', ''), storage: 'file' })
    expect(outcome(store)).toEqual(want)
    const archive = join(STORE, 'agents', 'main', m.cold)
    expect(outcome(replayJson([archive]))).toEqual(want)
    const j = JSON.parse(run(['inspect', STORE, '--json']).stdout)
    expect(j.openclaw.agents[0].sessions.find((x: any) => x.sessionKey === key)).toMatchObject({ turns: 15, cold: { storage: 'file' } })
    // An archive that does not match what its database records is an error, not an empty session.
    const dir = storeCopy()
    const copy = join(dir, 'agents', 'main', m.cold)
    const bytes = readFileSync(copy)
    bytes[bytes.length - 1] ^= 0xff
    writeFileSync(copy, bytes)
    const r = run(['replay', dir, key])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/DamagedArchive: cold transcript archive .* does not match the size and sha256 its database records/)
    rmSync(copy)
    expect(run(['replay', dir, key]).stderr).toMatch(/DamagedArchive: cold transcript archive .* is missing or unreadable/)
  })

  it('a store being written while it is read: every read succeeds on a committed snapshot and never blocks the writer', async () => {
    const dir = storeCopy()
    const db = join(dir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
    const base = replayJson([dir, 'agent:main:main']).turns.assistant
    const ROUNDS = 60
    // A writer as the gateway writes: WAL, one transaction per appended turn (an assistant message on the leaf).
    const writer = `
      const { DatabaseSync } = require('node:sqlite')
      const db = new DatabaseSync(${JSON.stringify(db)})
      db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 0')
      const sid = '5fd1e58c-9635-410e-a644-133a96057c90'
      let seq = db.prepare('SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?').get(sid).m
      let parent = JSON.parse(db.prepare('SELECT coalesce(event_json, ?) AS j FROM transcript_events WHERE session_id = ? AND seq = ?').get('{}', sid, seq).j).id
      const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)')
      let busy = 0
      for (let i = 0; i < ${ROUNDS}; i++) {
        const id = 'live-' + i
        const json = JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'text', text: 'turn ' + i }], usage: { input: 1000, output: 10, cacheRead: 0, cacheWrite: 0 } } })
        try {
          db.exec('BEGIN IMMEDIATE')
          insert.run(sid, ++seq, json, Date.now(), Buffer.byteLength(json))
          db.exec('COMMIT')
          parent = id
        } catch (e) { busy++; try { db.exec('ROLLBACK') } catch {} ; seq-- ; i-- }
        const until = Date.now() + 15; while (Date.now() < until) {}
      }
      db.close()
      process.stdout.write(JSON.stringify({ busy }))
    `
    const child = spawn(process.execPath, ['-e', writer], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const done = new Promise<number>((res) => child.on('close', (c) => res(c ?? -1)))
    const seen: number[] = []
    let running = true
    done.then(() => (running = false))
    while (running || seen.length < 3) {
      const r = await new Promise<{ code: number; stdout: string; stderr: string }>((res) => {
        const p = spawn(process.execPath, [CLI, 'replay', dir, 'agent:main:main', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] })
        let so = ''
        let se = ''
        p.stdout.on('data', (d) => (so += d))
        p.stderr.on('data', (d) => (se += d))
        p.on('close', (c) => res({ code: c ?? -1, stdout: so, stderr: se }))
      })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      seen.push(JSON.parse(r.stdout).turns.assistant)
    }
    expect(await done).toBe(0)
    expect(err).toBe('')
    expect(JSON.parse(out)).toEqual({ busy: 0 })
    // Each read saw a committed prefix of the appends, in order.
    for (const [i, n] of seen.entries()) {
      expect(n).toBeGreaterThanOrEqual(base)
      expect(n).toBeLessThanOrEqual(base + ROUNDS)
      if (i) expect(n).toBeGreaterThanOrEqual(seen[i - 1])
    }
    expect(replayJson([dir, 'agent:main:main']).turns.assistant).toBe(base + ROUNDS)
  })

  it('inspect <stateDir> lists agents and sessions newest first, with this package\'s checkpoints and observation bytes per key', () => {
    const dir = storeCopy()
    // This package's data for agent:main:main, as the plugin writes it under the same state dir.
    const r = run(['replay', dir, 'agent:main:main', '--state-dir', dir, '--session-key', 'agent:main:main', '--json'])
    expect(r.code).toBe(0)
    const replay = JSON.parse(r.stdout)
    const j = JSON.parse(run(['inspect', dir, '--json']).stdout)
    expect(j.openclaw.available).toBe(true)
    expect(j.openclaw.agents.map((a: any) => [a.agentId, a.schemaVersion])).toEqual([
      ['main', 23],
      ['ops', 23],
    ])
    const main = j.openclaw.agents[0].sessions
    expect(main.map((s: any) => s.sessionKey)).toEqual(['agent:main:main', 'agent:main:telegram:direct:42'])
    expect(main[0]).toMatchObject({ sessionId: '5fd1e58c-9635-410e-a644-133a96057c90', turns: replay.turns.assistant, compactions: 1, lastActivity: '2025-12-17T21:23:29.721Z' })
    expect(main[0].context.checkpoints).toBe(replay.checkpoints.written.length)
    expect(main[0].context.observationBytes).toBeGreaterThan(0)
    expect(main[1].context).toMatchObject({ checkpoints: 0, observationBytes: 0 })
    expect(j.openclaw.agents[1].sessions.map((s: any) => [s.sessionKey, s.turns])).toEqual([['agent:ops:main', 5]])
    // No argument: $OPENCLAW_STATE_DIR (else ~/.openclaw); --agent narrows it.
    const byEnv = JSON.parse(run(['inspect', '--json'], { OPENCLAW_STATE_DIR: dir }).stdout)
    expect(byEnv.openclaw.agents.map((a: any) => a.agentId)).toEqual(['main', 'ops'])
    expect(JSON.parse(run(['inspect', dir, '--agent', 'ops', '--json']).stdout).openclaw.agents.map((a: any) => a.agentId)).toEqual(['ops'])
    // One session: its agent only, and exit 1 for a key that is nowhere.
    const one = JSON.parse(run(['inspect', dir, 'agent:ops:main', '--json']).stdout)
    expect(one.openclaw.agents.map((a: any) => [a.agentId, a.sessions.map((x: any) => x.sessionKey)])).toEqual([['ops', ['agent:ops:main']]])
    expect(run(['inspect', dir, 'agent:main:nope']).code).toBe(1)
    const text = run(['inspect', dir]).stdout
    expect(text).toMatch(/agent main .*agent schema 23, written by OpenClaw 2026\.9\.6/)
    expect(text).toMatch(new RegExp(`agent:main:main\\s+5fd1e58c-9635-410e-a644-133a96057c90\\s+${replay.turns.assistant}\\s+1\\s+2025-12-17T21:23:29.721Z\\s+${replay.checkpoints.written.length}\\s+[\\d,]+`))
  })

  it('eval of a state dir measures every real compaction, as eval:restore measures the JSONL', () => {
    const r = run(['eval', STORE, '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j.sessions).toBe(3)
    expect(j.summary.compactions).toBe(1)
    const f = JSON.parse(run(['eval', legacyFile('agent:main:main'), '--json']).stdout)
    // the figures, not the labels: the file's name, and its format (the store's copy may hold OpenClaw's own entries)
    const strip = ({ file, restore, format, ...rest }: any) => rest
    expect(j.results.flatMap((x: any) => x.compactions).map(strip)).toEqual(f.results[0].compactions.map(strip))
    const byEnv = JSON.parse(run(['eval', '--json'], { OPENCLAW_STATE_DIR: STORE }).stdout)
    expect(byEnv.summary.compactions).toBe(1)
    const one = run(['eval', STORE, 'agent:ops:main'])
    expect(one.code).toBe(1)
    expect(one.stdout).toMatch(/no compaction entry/)
  })

  it('errors: truncated, foreign and unknown-version databases and a missing session, each with its own exit code', async () => {
    const { DatabaseSync } = await import('node:sqlite')
    const truncated = join(tmp, 'truncated.sqlite')
    copyFileSync(MAIN_DB, truncated)
    truncateSync(truncated, Math.floor(statSync(truncated).size / 2))
    const t = run(['replay', truncated, 'agent:main:main'])
    expect(t.code).toBe(4)
    expect(t.stderr).toMatch(/DamagedStore: .*truncated: \d+ bytes, its header says \d+ pages/)
    const tiny = join(tmp, 'tiny.sqlite')
    writeFileSync(tiny, readFileSync(MAIN_DB).subarray(0, 60))
    expect(run(['replay', tiny, 'x']).code).toBe(4)

    const foreign = join(tmp, 'foreign.sqlite')
    const f = new DatabaseSync(foreign)
    f.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (1)')
    f.close()
    const fr = run(['replay', foreign, 'agent:main:main'])
    expect(fr.code).toBe(5)
    expect(fr.stderr).toMatch(/ForeignStore: .*not an OpenClaw agent database .*no schema_meta, session_nodes, session_windows, transcript_events tables/)

    const dir = storeCopy()
    const db = join(dir, 'agents', 'main', 'agent', 'openclaw-agent.sqlite')
    const w = new DatabaseSync(db)
    w.exec("PRAGMA user_version = 24; UPDATE schema_meta SET schema_version = 24, app_version = '2027.1.0'")
    w.close()
    const u = run(['replay', dir, 'agent:main:main'])
    expect(u.code).toBe(6)
    expect(u.stderr).toMatch(/UnknownSchemaVersion: .*agent schema version 24 .*reads agent schema 23 .*newer OpenClaw \(2027\.1\.0\)/)
    // inspect reads what it can and exits with the failing store's code.
    const i = run(['inspect', dir])
    expect(i.code).toBe(6)
    expect(i.stdout).toMatch(/agent main .*\n\s+UnknownSchemaVersion: /)
    expect(i.stdout).toMatch(/agent:ops:main/)

    const n = run(['replay', STORE, 'agent:main:nope'])
    expect(n.code).toBe(8)
    expect(n.stderr).toMatch(/SessionNotFound: no session "agent:main:nope" .*\n\s+agent:main:main \(5fd1e58c/)
    const nk = run(['replay', STORE])
    expect(nk.code).toBe(2)
    expect(nk.stderr).toMatch(/takes a session key or id/)
  })
})

describe.runIf(CAN)(`OpenClaw's active-branch rules${WHY}`, () => {
  let select: (params: any) => any[]
  beforeAll(async () => {
    // OpenClaw's own function (src/config/sessions/transcript-tree.ts) from the pinned host.
    // @ts-ignore plain ESM module without types
    const { ensureOpenClaw } = await import('../scripts/host.mjs')
    const dist = join(ensureOpenClaw({ quiet: true }), 'dist')
    const file = readdirSync(dist).find((f) => /^transcript-tree-.*\.mjs$/.test(f))
    const mod = await import(pathToFileURL(join(dist, file!)).href)
    select = Object.values(mod).find((f: any) => typeof f === 'function' && f.name === 'selectSessionTranscriptActiveEntries') as any
    expect(typeof select).toBe('function')
  }, 600_000)

  const msg = (id: string, parentId: string | null, extra: object = {}) => ({ type: 'message', id, parentId, message: { role: 'user', content: id }, ...extra })
  const cases: Record<string, any[]> = {
    'flat (no parent ids)': [{ type: 'message', id: 'a', message: { role: 'user', content: 'a' } }, { type: 'message', id: 'b', message: { role: 'user', content: 'b' } }],
    'linear chain': [msg('a', null), msg('b', 'a'), msg('c', 'b')],
    'branch: the last entry wins': [msg('a', null), msg('b', 'a'), msg('c', 'a')],
    'leaf control moves the leaf back': [msg('a', null), msg('b', 'a'), msg('c', 'b'), { type: 'leaf', id: 'L', parentId: 'c', targetId: 'b' }, msg('d', 'L')],
    'side append stays off the branch': [msg('a', null), msg('b', 'a'), msg('s', 'b', { appendMode: 'side' }), msg('c', 'b')],
    'compaction before the path start': [msg('a', null), { type: 'compaction', id: 'k', parentId: 'a', summary: 's', firstKeptEntryId: 'a', tokensBefore: 1 }, { type: 'leaf', id: 'L', parentId: 'k', targetId: null }, msg('z', null)],
    'reset re-parents later entries': [msg('a', null), msg('b', 'a'), { type: 'reset', id: 'r', parentId: 'b', reason: 'new', firstKeptEntryId: 'b' }, msg('c', 'a'), msg('d', 'c')],
    'reset with kept entries before a leaf jump': [msg('a', null), msg('b', 'a'), { type: 'reset', id: 'r', parentId: 'b', reason: 'reset', firstKeptEntryId: 'b' }, msg('c', 'r'), { type: 'leaf', id: 'L', parentId: 'c', targetId: null }, msg('x', null)],
    'invalid leaf control': [msg('a', null), msg('b', 'a'), { type: 'leaf', id: 'L', parentId: 'b', targetId: 'nope' }, msg('c', 'b')],
  }
  for (const [name, records] of Object.entries(cases)) {
    it(name, async () => {
      // @ts-ignore plain ESM module without types
      const { activeIndexes } = await import('../bin/lib/openclaw-store.mjs')
      const theirs = select({ entries: records, recordOf: (e: any) => e }).map((e: any) => records.indexOf(e))
      expect(activeIndexes(records)).toEqual(theirs)
    })
  }

  it('a reset in a replay: the context starts over with the kept messages', () => {
    const lines = [
      { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' },
      msg('a', null, { message: { role: 'user', content: 'first task' } }),
      { type: 'message', id: 'b', parentId: 'a', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input: 5000, output: 5, cacheRead: 0, cacheWrite: 0 } } },
      { type: 'reset', id: 'r', parentId: 'b', reason: 'new', firstKeptEntryId: 'b' },
      msg('c', 'r', { message: { role: 'user', content: 'second task' } }),
    ]
    const file = join(tmp, 'reset.jsonl')
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
    const r = replayJson([file])
    expect(r.problems).toEqual([])
    expect(r.resets).toEqual([{ line: 4, reason: 'new', keptMessages: 1 }])
  })
})
