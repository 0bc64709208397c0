// The pinned OpenClaw host for `npm run test:host` and `npm run typecheck:example`: the published `openclaw`
// package installed from the npm registry into .cache/openclaw-host/ (ignored by git, reused once there), and
// the Node it needs (OpenClaw requires Node >= 24.16; on Node 20 the Node 24 that scripts/test.mjs installs
// into .tools/node24 is used, installed the same way if absent).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nodeBinary } from './lib/node-binary.mjs'

/** The OpenClaw release the plugin example is written and tested against. */
export const OPENCLAW_VERSION = '2026.9.6'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const sharedHostDir = join(root, '.cache/openclaw-host')
// npm test runs its real-host stages side by side, each on its own copy of sharedHostDir made of hard links (named by
// CONTEXT_NATIVE_OPENCLAW_HOST): OpenClaw's CLI takes a lock file in its own package folder
// (.openclaw-lifecycle-lock), and one that read it while another process was writing it failed with "OpenClaw package
// lifecycle ownership is uncertain (owner cannot be verified)".
export const hostDir = process.env.CONTEXT_NATIVE_OPENCLAW_HOST || sharedHostDir
export const openclawDir = join(hostDir, 'node_modules/openclaw')

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

// Written last, after a complete install: an interrupted install is never taken for a good one.
const marker = join(hostDir, '.installed.json')

function installedVersion() {
  try {
    return JSON.parse(readFileSync(marker, 'utf8')).openclaw
  } catch {
    return undefined
  }
}

/** Installs openclaw@OPENCLAW_VERSION into .cache/openclaw-host unless that exact version is there. */
export function ensureOpenClaw({ quiet = false } = {}) {
  if (installedVersion() === OPENCLAW_VERSION && existsSync(join(openclawDir, 'package.json'))) return openclawDir
  // Installed beside the cache and moved in place once complete.
  const staging = `${hostDir}.partial-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify({ private: true, description: 'cache: the OpenClaw host for npm run test:host', dependencies: { openclaw: OPENCLAW_VERSION } }, null, 2)}\n`,
  )
  if (!quiet) console.log(`installing openclaw@${OPENCLAW_VERSION} from the npm registry into ${hostDir} (once)`)
  const t0 = Date.now()
  // --ignore-scripts: nothing of the host is built or started, its code is only imported.
  // --omit=optional: sqlite-vec (vector memory) is not needed.
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=optional', '--no-package-lock', '--loglevel=error'], {
    cwd: staging,
    stdio: 'inherit',
    env: { ...process.env, npm_config_engine_strict: 'false' },
  })
  const got = (() => {
    try {
      return JSON.parse(readFileSync(join(staging, 'node_modules/openclaw/package.json'), 'utf8')).version
    } catch {
      return undefined
    }
  })()
  if (r.status !== 0 || got !== OPENCLAW_VERSION) {
    rmSync(staging, { recursive: true, force: true })
    throw new Error(`npm install openclaw@${OPENCLAW_VERSION} failed (exit ${r.status})`)
  }
  writeFileSync(join(staging, '.installed.json'), `${JSON.stringify({ openclaw: OPENCLAW_VERSION, installedAt: new Date().toISOString() })}\n`)
  rmSync(hostDir, { recursive: true, force: true })
  renameSync(staging, hostDir)
  if (!quiet) console.log(`openclaw@${OPENCLAW_VERSION} installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  return openclawDir
}

const satisfiesHostNode = (v) => {
  const [major, minor] = v.split('.').map(Number)
  return (major === 24 && minor >= 16) || (major === 26 && minor >= 1) || major > 26
}

/** A Node binary OpenClaw accepts (>= 24.16): this one, else .tools/node24 (installed from npm if absent). */
export function hostNode() {
  const r = nodeBinary(root, 24, { accept: satisfiesHostNode })
  if (r.error) throw new Error(`OpenClaw ${OPENCLAW_VERSION} needs Node >= 24.16; this is ${process.versions.node}: ${r.error}`)
  return r.bin
}

// `node scripts/host.mjs --ensure`: install the pinned host if absent (used by `npm run typecheck:example`).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes('--ensure')) ensureOpenClaw()
