#!/usr/bin/env node
// Regenerates __test__/fixtures/openclaw-store/: OpenClaw 2026.9 session stores made by the pinned OpenClaw
// itself. The legacy sessions of scripts/lib/legacy-sessions.mjs (bundled pi transcripts) are laid out as an
// older OpenClaw kept them (agents/<id>/sessions/sessions.json + <sessionId>.jsonl) under a temporary HOME and
// OPENCLAW_STATE_DIR, and `openclaw doctor --fix --non-interactive` (openclaw 2026.9.6 from .cache/openclaw-host,
// run with Node >= 24.16, no model and no network needed) imports them into each agent's
// agents/<id>/agent/openclaw-agent.sqlite. Those databases are copied into the fixture folder with a
// manifest.json (versions, session keys and ids, sources, doctor's exit code and the import issues it recorded).
//
// Then the same OpenClaw's gateway (`openclaw gateway run`, loopback, auth none, with
// session.maintenance.coldStorage enabled) moves one session to cold storage
// (agents/main/sessions/cold/<sha256>.jsonl.zst): the telegram session's window is dated back 60 days first
// (session_windows.transcript_updated_at, the one value set by hand: the import dates it now) so that it
// qualifies; then the gateway's `sessions.reset` (what /reset does) resets the ops session, a real `reset` entry;
// then the gateway is stopped.
//
// Usage: node scripts/make-openclaw-store-fixture.mjs    (about 1-2 min; installs the pinned host on first use;
// the gateway tries the network for its model catalog and carries on without it)
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { OPENCLAW_VERSION, ensureOpenClaw, hostNode, root } from './host.mjs'
import { LEGACY_SESSIONS, legacySessionId, legacySessionText } from './lib/legacy-sessions.mjs'
import { freePort } from './lib/harness.mjs'

export const FIXTURE_DIR = join(root, '__test__', 'fixtures', 'openclaw-store')

/** The session the gateway moves to cold storage. */
const COLD_SESSION = 'agent:main:telegram:direct:42'
/** The session the gateway resets (sessions.reset, as /reset does). */
const RESET_SESSION = 'agent:ops:main'

/** Runs the gateway with cold storage on until it has archived `session`; returns the archive `{ path, name }`. */
async function coldStorage(node, openclaw, home, stateDir, env, session) {
  const { DatabaseSync } = await import('node:sqlite')
  const db = new DatabaseSync(join(stateDir, 'agents', session.agentId, 'agent', 'openclaw-agent.sqlite'))
  const old = Date.now() - 60 * 24 * 3600 * 1000
  db.prepare('UPDATE session_windows SET transcript_updated_at = ? WHERE session_id = ?').run(old, session.sessionId)
  db.close()
  const config = join(stateDir, 'openclaw.json')
  const current = existsSync(config) ? JSON.parse(readFileSync(config, 'utf8')) : {}
  current.gateway = { ...current.gateway, mode: 'local', bind: 'loopback' }
  current.session = { ...current.session, maintenance: { ...current.session?.maintenance, coldStorage: { enabled: true, afterDays: 30 } } }
  writeFileSync(config, `${JSON.stringify(current, null, 2)}\n`)
  const dir = join(stateDir, 'agents', session.agentId, 'sessions', 'cold')
  const port = String(await freePort())
  const token = randomUUID()
  console.log(`openclaw gateway run --bind loopback --port ${port} until ${session.sessionKey} is in cold storage, then sessions.reset ${RESET_SESSION}`)
  const gw = spawn(node, [join(openclaw, 'openclaw.mjs'), 'gateway', 'run', '--bind', 'loopback', '--port', port, '--auth', 'token', '--token', token], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  gw.stdout.on('data', (d) => (log += d))
  gw.stderr.on('data', (d) => (log += d))
  const exited = new Promise((res) => gw.on('close', res))
  try {
    for (let waited = 0; waited < 240_000; waited += 2000) {
      const found = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl.zst')) : []
      if (found.length) {
        await new Promise((r) => setTimeout(r, 3000)) // the guarded transaction after the file
        // A reset as /reset makes it (the gateway's sessions.reset): a real `reset` entry in that transcript.
        const call = spawnSync(node, [join(openclaw, 'openclaw.mjs'), 'gateway', 'call', 'sessions.reset', '--port', port, '--token', token, '--params', JSON.stringify({ key: RESET_SESSION }), '--json'], { cwd: home, env, encoding: 'utf8', timeout: 60_000 })
        if (call.status !== 0 || JSON.parse(call.stdout).ok === false) throw new Error(`sessions.reset failed: ${call.stdout}${call.stderr}`)
        return { path: join(dir, found[0]), name: found[0] }
      }
      if (gw.exitCode !== null) break
      await new Promise((r) => setTimeout(r, 2000))
    }
    throw new Error(`no cold archive appeared; gateway log:\n${log.slice(-3000)}`)
  } finally {
    gw.kill('SIGTERM')
    await exited
  }
}

async function main() {
  const openclaw = ensureOpenClaw()
  const node = hostNode()
  const home = mkdtempSync(join(tmpdir(), 'openclaw-store-fixture-'))
  const stateDir = join(home, '.openclaw')
  try {
    const sessions = []
    const stores = new Map()
    for (const s of LEGACY_SESSIONS) {
      const text = legacySessionText(s)
      const sessionId = legacySessionId(text)
      const dir = join(stateDir, 'agents', s.agentId, 'sessions')
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, `${sessionId}.jsonl`), text)
      const index = stores.get(s.agentId) ?? {}
      index[s.sessionKey] = { sessionId, updatedAt: s.updatedAt, sessionFile: `${sessionId}.jsonl` }
      stores.set(s.agentId, index)
      sessions.push({ ...s, sessionId, lines: text.split('\n').length - 1 })
    }
    for (const [agentId, index] of stores) writeFileSync(join(stateDir, 'agents', agentId, 'sessions', 'sessions.json'), `${JSON.stringify(index, null, 2)}\n`)

    console.log(`openclaw ${OPENCLAW_VERSION} doctor --fix --non-interactive (Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}) in ${home}`)
    const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: stateDir, OPENCLAW_NO_RESPAWN: '1', NO_COLOR: '1' }
    for (const k of Object.keys(env)) if (/^(OPENAI|ANTHROPIC)_/.test(k)) delete env[k]
    const r = spawnSync(node, [join(openclaw, 'openclaw.mjs'), 'doctor', '--fix', '--non-interactive'], { cwd: home, env, encoding: 'utf8', timeout: 300_000 })
    if (r.status !== 0) {
      process.stderr.write(`${r.stdout}\n${r.stderr}\n`)
      throw new Error(`openclaw doctor --fix exited ${r.status}`)
    }
    const issues = []
    const runs = join(stateDir, 'session-sqlite-migration-runs')
    for (const f of existsSync(runs) ? readdirSync(runs) : []) {
      const run = JSON.parse(readFileSync(join(runs, f), 'utf8'))
      for (const t of run.targets ?? []) for (const i of t.issues ?? []) issues.push({ agentId: t.agentId, code: i.code, message: i.message })
    }
    if (issues.length) throw new Error(`doctor's import recorded issues: ${JSON.stringify(issues)}`)

    const cold = await coldStorage(node, openclaw, home, stateDir, env, sessions.find((x) => x.sessionKey === COLD_SESSION))

    rmSync(join(FIXTURE_DIR, 'agents'), { recursive: true, force: true }) // README.md and .gitignore stay
    const { DatabaseSync } = await import('node:sqlite')
    const agents = []
    for (const agentId of stores.keys()) {
      const src = join(stateDir, 'agents', agentId, 'agent', 'openclaw-agent.sqlite')
      // Everything committed into the main file, so that one file is the whole database.
      const db = new DatabaseSync(src)
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      db.close()
      const dest = join(FIXTURE_DIR, 'agents', agentId, 'agent', 'openclaw-agent.sqlite')
      mkdirSync(join(dest, '..'), { recursive: true })
      copyFileSync(src, dest)
      agents.push({ agentId, bytes: statSync(dest).size })
    }
    const coldDest = join(FIXTURE_DIR, 'agents', 'main', 'sessions', 'cold')
    mkdirSync(coldDest, { recursive: true })
    copyFileSync(cold.path, join(coldDest, cold.name))
    const manifest = {
      madeBy: `openclaw ${OPENCLAW_VERSION} doctor --fix --non-interactive (scripts/make-openclaw-store-fixture.mjs)`,
      node: spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim(),
      doctorExit: r.status,
      agents,
      sessions: sessions.map(({ agentId, sessionKey, sessionId, source, firstLines, lines, updatedAt }) => ({
        agentId,
        sessionKey,
        sessionId,
        source,
        firstLines,
        lines,
        updatedAt,
        ...(sessionKey === COLD_SESSION ? { cold: `sessions/cold/${cold.name}` } : {}),
        ...(sessionKey === RESET_SESSION ? { reset: 'sessions.reset by the gateway after the import' } : {}),
      })),
    }
    writeFileSync(join(FIXTURE_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    console.log(`wrote ${FIXTURE_DIR}: ${agents.map((a) => `${a.agentId} ${a.bytes} B`).join(', ')}`)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

// The fixture needs node:sqlite (Node 24): on an older Node, run again under the host's Node.
let sqlite = true
try {
  await import('node:sqlite')
} catch {
  sqlite = false
}
if (sqlite) await main()
else {
  const r = spawnSync(hostNode(), [fileURLToPath(import.meta.url)], { stdio: 'inherit' })
  process.exitCode = r.status ?? 1
}
