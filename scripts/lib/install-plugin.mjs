// The plugin installed the way a user installs it: `openclaw plugins install @openclaw/context-native`, run by
// the pinned openclaw CLI (scripts/host.mjs) under Node 24, into a given OpenClaw state dir, from the tarballs
// `npm run pack:local -- --host --from-build` leaves in dist/, served by a local npm registry on 127.0.0.1
// (scripts/lib/local-registry.mjs). OpenClaw runs its own npm install path: a managed project under
// <stateDir>/npm/projects/, `npm install --omit=dev --omit=peer --ignore-scripts` (optional dependencies, so
// the platform package, kept), its `requiredPlatformPackages` check, then the plugin's load.
// Why a registry and not `openclaw plugins install npm-pack:<root.tgz>` (the same managed path): npm then fetches
// the optional platform packages from the public registry, where an unpublished version is a 404; npm skips it
// without a lockfile entry, so OpenClaw's check has nothing to verify and the plugin installs without its binary
// (measured: "Installed plugin", then NativeBindingMissing at load).
//
// `installPackedPlugin({ stateDir })` then `setupPlugin([], { stateDir })` is what `npm run test:plugin-install`
// runs, and what a real-run test can run to drive the installed copy (openclaw() runs any other CLI command,
// e.g. `agent --local`, against the same state dir).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ensureOpenClaw, hostNode, openclawDir, root } from '../host.mjs'
import { hostTarget, pkg, targets } from '../targets.mjs'
import { startLocalRegistry } from './local-registry.mjs'

export const PLUGIN_ID = 'context-native'

/** The packed tarballs in dist/ for this host: `{ rootTgz, hostTgz }`; throws with the command that makes them. */
export function packedTarballs(dist = join(root, 'dist')) {
  const manifestPath = join(dist, 'pack.json')
  const again = 'run `npm run pack:local -- --host --from-build` (after `npm run build`)'
  if (!existsSync(manifestPath)) throw new Error(`dist/pack.json is missing: ${again}`)
  const packed = JSON.parse(readFileSync(manifestPath, 'utf8'))
  if (packed.version !== pkg.version) throw new Error(`dist/ holds ${packed.version}, the repository is at ${pkg.version}: ${again}`)
  const host = hostTarget()
  const hostPacked = host && packed.packages.find((p) => p.target === host.triple)
  if (!hostPacked) throw new Error(`dist/ has no platform package for this host: ${again}`)
  return { rootTgz: join(dist, packed.root), hostTgz: join(dist, hostPacked.tarball), hostPackage: host.packageName }
}

/**
 * Runs the pinned openclaw CLI with `args` against `stateDir` (HOME beside it unless given), under Node 24.
 * Resolves to `{ status, stdout, stderr }`; never rejects on a non-zero exit. `timeoutMs` kills it (status null).
 */
export function openclaw(args, { stateDir, home = join(dirname(stateDir), 'home'), env = {}, timeoutMs = 180_000, cwd } = {}) {
  ensureOpenClaw({ quiet: true })
  const node = hostNode()
  mkdirSync(home, { recursive: true })
  const childEnv = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: stateDir, NO_COLOR: '1', FORCE_COLOR: '0', ...env }
  // npm (run by OpenClaw) and the CLI both under Node 24; nothing of the repository's npm run environment.
  childEnv.PATH = [dirname(node), process.env.PATH].join(process.platform === 'win32' ? ';' : ':')
  for (const k of Object.keys(childEnv)) if (k.startsWith('npm_') && !(k in env)) delete childEnv[k]
  return new Promise((resolve, reject) => {
    const child = spawn(node, [join(openclawDir, 'openclaw.mjs'), ...args], { cwd: cwd ?? home, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

/**
 * `openclaw plugins install @openclaw/context-native` into `stateDir` from the packed tarballs, through a local
 * registry. Returns `{ status, stdout, stderr, packageDir, requests }`: `packageDir` is where OpenClaw put the
 * package (its managed npm project), `requests` what npm fetched from the registry. `flags` replace the default
 * `--force --accept-capabilities`; `withoutBinary` serves no tarball for this host's platform package.
 */
export async function installPackedPlugin({ stateDir, home, dist, spec = pkg.name, flags = ['--force', '--accept-capabilities'], extraArgs = [], withoutBinary = false }) {
  const { rootTgz, hostTgz } = packedTarballs(dist)
  // The other platforms' packages exist on the real registry too: npm reads their os/cpu/libc and skips them.
  // `withoutBinary`: this host's platform package is listed but its tarball is missing (404), as when a download
  // fails: OpenClaw's requiredPlatformPackages check must refuse the install.
  const manifests = targets.map((t) => JSON.parse(readFileSync(join(root, 'npm', t.suffix, 'package.json'), 'utf8')))
  const registry = await startLocalRegistry({ tarballs: withoutBinary ? [rootTgz] : [rootTgz, hostTgz], manifests })
  mkdirSync(stateDir, { recursive: true })
  try {
    // `flags` by default: --force confirms a source outside ClawHub (npm), --accept-capabilities the consent to
    // the plugin's declared capabilities (tools, tool-result middleware) that a user gives when asked.
    const r = await openclaw(['plugins', 'install', ...flags, ...extraArgs, spec], {
      stateDir,
      home,
      env: { npm_config_registry: registry.url, npm_config_cache: join(stateDir, '..', 'npm-cache'), npm_config_update_notifier: 'false' },
    })
    return { ...r, packageDir: findInstalledPackage(stateDir), requests: registry.requests }
  } finally {
    await registry.close()
  }
}

/**
 * `openclaw-context setup [...args]` as a user runs it after the install: the installed package's own
 * bin/openclaw-context.mjs (the repository's when nothing is installed), under Node 24, driving the pinned openclaw
 * CLI against `stateDir`. Returns `{ status, stdout, stderr }`.
 */
export function setupPlugin(args = [], { stateDir, home = join(dirname(stateDir), 'home') } = {}) {
  return installedCli('setup', args, { stateDir, home })
}

/**
 * `openclaw-context <command> --openclaw <the pinned CLI> [...args]` as a user runs it (`setup`, `doctor`): the
 * installed package's own bin/openclaw-context.mjs (the repository's when nothing is installed), under Node 24,
 * against `stateDir`. Returns `{ status, stdout, stderr }`.
 */
export function installedCli(command, args = [], { stateDir, home = join(dirname(stateDir), 'home'), env: extra = {} } = {}) {
  ensureOpenClaw({ quiet: true })
  const node = hostNode()
  const installed = findInstalledPackage(stateDir)
  const bin = join(installed ?? root, 'bin', 'openclaw-context.mjs')
  const cli = join(dirname(openclawDir), '.bin', 'openclaw')
  const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: stateDir, NO_COLOR: '1', PATH: [dirname(node), process.env.PATH].join(process.platform === 'win32' ? ';' : ':'), ...extra }
  const r = spawnSync(node, [bin, command, '--openclaw', cli, ...args], { encoding: 'utf8', env, timeout: 180_000 })
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' }
}

/** The installed package's folder under `<stateDir>/npm/projects/*`, or undefined. */
export function findInstalledPackage(stateDir) {
  const projects = join(stateDir, 'npm', 'projects')
  if (!existsSync(projects)) return undefined
  for (const p of readdirSync(projects)) {
    const dir = join(projects, p, 'node_modules', ...pkg.name.split('/'))
    if (existsSync(join(dir, 'package.json'))) return dir
  }
  return undefined
}
