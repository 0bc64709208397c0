// The pieces the real-host test scripts share (test-real, test-claude-cli, test-codex, test-host): a run's clock and
// its temporary folders, named checks with their results, a free port and waiting for a listener on 127.0.0.1, an OpenClaw gateway started and stopped, the
// plugin's sources copied into a folder OpenClaw loads by path, and the checkpoints the plugin wrote.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The seconds since this call, one decimal (`secs()` in a run's log lines). */
export function stopwatch() {
  const t0 = Date.now()
  return () => ((Date.now() - t0) / 1000).toFixed(1)
}

/**
 * A run's temporary folder `context-native-<tag>-*` with its `state`, `home` and `workspace` folders made (and
 * `homeDirs` below `home`, such as `.claude`): `{ work, stateDir, home, workspace }`.
 */
export function workDirs(tag, homeDirs = []) {
  const work = mkdtempSync(join(tmpdir(), `context-native-${tag}-`))
  const dirs = { work, stateDir: join(work, 'state'), home: join(work, 'home'), workspace: join(work, 'workspace') }
  for (const d of [dirs.stateDir, dirs.home, dirs.workspace, ...homeDirs.map((h) => join(dirs.home, h))]) mkdirSync(d, { recursive: true })
  return dirs
}

/**
 * Named checks: `check(name, fn)` runs `fn`, records `{ name, ok }` in `results` and prints `ok` or `FAIL` with the
 * stack. `only` (`a|b`): only the checks whose name contains one of the parts run. `unit`: the time printed, `'s'`
 * (seconds, one decimal) or `'ms'`; `stackLines`: how many lines of a failure's stack are printed.
 */
export function createChecks({ only, unit = 's', stackLines = 8 } = {}) {
  const results = []
  async function check(name, fn) {
    if (only && !only.split('|').some((part) => name.includes(part))) return
    const t = Date.now()
    try {
      await fn()
      results.push({ name, ok: true })
      const took = unit === 'ms' ? `${Date.now() - t} ms` : `${((Date.now() - t) / 1000).toFixed(1)} s`
      console.log(`  ok   ${name} (${took})`)
    } catch (e) {
      results.push({ name, ok: false })
      console.log(`  FAIL ${name}\n       ${String(e?.stack ?? e).split('\n').slice(0, stackLines).join('\n       ')}`)
    }
  }
  return { check, results }
}

/** A free TCP port on 127.0.0.1. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })

/** Resolves once something listens on 127.0.0.1:`port`; throws after `timeoutMs` with the tail of `log()`. */
export async function waitForPort(port, timeoutMs, log) {
  for (const t = Date.now(); ; ) {
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.end()
        resolve(true)
      })
      s.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() - t > timeoutMs) throw new Error(`the gateway did not listen on ${port} within ${timeoutMs} ms: ${log().slice(-1500)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

/**
 * `openclaw gateway run` on 127.0.0.1:`port` (auth none) in its own process group, so that stopping it stops whatever
 * it started. Returns `{ log, ready, stop }`: `log()` is its output so far, `ready()` waits for its port (120 s),
 * `stop()` stops it gracefully (SIGTERM, its exit awaited up to 20 s, then SIGKILL): a gateway killed mid-shutdown
 * leaves OpenClaw's state lock to a dead owner, and the next OpenClaw process on that state dir fails with
 * StateDatabaseCoordinatorContentionError.
 */
export function startGateway({ node, openclawBin, port, env, cwd }) {
  const gw = spawn(node, [openclawBin, 'gateway', 'run', '--port', String(port), '--bind', 'loopback', '--auth', 'none'], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let log = ''
  gw.stdout.on('data', (d) => (log += d))
  gw.stderr.on('data', (d) => (log += d))
  const signal = (s) => {
    try {
      process.kill(-gw.pid, s)
    } catch {
      // already gone
    }
  }
  return {
    log: () => log,
    ready: () => waitForPort(port, 120_000, () => log),
    async stop() {
      const exited = new Promise((r) => (gw.exitCode !== null || gw.signalCode !== null ? r() : gw.once('exit', r)))
      signal('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))])
      signal('SIGKILL')
    },
  }
}

/**
 * The plugin as a folder OpenClaw loads by path, in `pluginDir`: the TypeScript sources and the source folder's
 * package.json (`openclaw.extensions: ./index.ts`; OpenClaw runs a local plugin through jiti), the package's
 * manifest (it ships at the root), and @openclaw/context-native with the built binding in its node_modules.
 * Throws when no binding (*.node) is built.
 */
export function copyPluginSources(root, pluginDir) {
  mkdirSync(pluginDir, { recursive: true })
  for (const f of readdirSync(join(root, 'plugin'))) {
    if (f.endsWith('.ts') || f === 'package.json') cpSync(join(root, 'plugin', f), join(pluginDir, f))
  }
  cpSync(join(root, 'openclaw.plugin.json'), join(pluginDir, 'openclaw.plugin.json'))
  const pkgDir = join(pluginDir, 'node_modules/@openclaw/context-native')
  mkdirSync(pkgDir, { recursive: true })
  for (const f of ['package.json', 'loader.cjs', 'index.js', 'index.d.ts', 'bin/lib/transcript.mjs']) cpSync(join(root, f), join(pkgDir, f))
  const binaries = readdirSync(root).filter((f) => f.endsWith('.node'))
  if (binaries.length === 0) throw new Error('no built binding (*.node) in the package root: run `npm run build` first')
  for (const f of binaries) cpSync(join(root, f), join(pkgDir, f))
}

/** The checkpoints the plugin wrote for `sessionKey` under `stateDir` (YAML text, oldest first); `native` is the binding. */
export function readCheckpoints(native, stateDir, sessionKey) {
  const dir = join(stateDir, 'context/checkpoints', native.sessionDirName(sessionKey))
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => /^cp_\d+\.yaml$/.test(f))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
}
