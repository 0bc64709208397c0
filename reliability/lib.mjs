// Shared helpers of the reliability suite: the addon, temp dirs, tree snapshots, error checks.
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')

// Pin one build for the whole run: the loader honours NAPI_RS_NATIVE_LIBRARY_PATH, and children
// and workers inherit it, so a rebuild during the run cannot swap the addon under a case.
if (!process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
  const built = join(root, `context-native.${process.platform}-${process.arch}${process.platform === 'linux' ? '-gnu' : ''}.node`)
  if (existsSync(built)) {
    const pinned = join(mkdtempSync(join(tmpdir(), 'ctx-rel-addon-')), 'context-native.node')
    copyFileSync(built, pinned)
    process.env.NAPI_RS_NATIVE_LIBRARY_PATH = pinned
    process.on('exit', () => rmSync(dirname(pinned), { recursive: true, force: true }))
  }
}
export const native = createRequire(import.meta.url)(join(root, 'index.js'))
export const YAML = createRequire(import.meta.url)(join(root, 'node_modules/yaml'))

/** Every code a host may branch on; `Panic` is a bug and never acceptable here. */
export const STABLE_CODES = new Set([
  'InvalidArg', 'NotFound', 'Io', 'Corrupt', 'NoSpace', 'PermissionDenied', 'TooLarge', 'UnsafePath', 'UnsafeFile',
])

/** The prefix of the temp files of `atomic_write` (crates/fsio). */
export const TEMP_PREFIX = '.tmp-'

const made = []
export function tempDir(tag) {
  const d = mkdtempSync(join(tmpdir(), `ctx-rel-${tag}-`))
  made.push(d)
  return d
}
export function cleanupTemps() {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
}

/** Every path under `dir` (relative), with a type and size: to prove nothing appeared elsewhere. */
export function snapshot(dir) {
  const out = new Map()
  const walk = (d, rel) => {
    let names
    try {
      names = readdirSync(d)
    } catch {
      return
    }
    for (const n of names) {
      const p = join(d, n)
      const r = rel ? `${rel}/${n}` : n
      const st = lstatSync(p)
      if (st.isSymbolicLink()) out.set(r, `link:${readlinkSync(p)}`)
      else if (st.isDirectory()) {
        out.set(r, 'dir')
        walk(p, r)
      } else out.set(r, `file:${st.size}`)
    }
  }
  walk(dir, '')
  return out
}

/** Paths in `after` that are not in `before`. */
export function added(before, after) {
  return [...after.keys()].filter((k) => !before.has(k))
}

/** Every file under `dir` whose name starts with the temp prefix. */
export function tempFiles(dir) {
  return [...snapshot(dir).keys()].filter((k) => k.split('/').pop().startsWith(TEMP_PREFIX))
}

/** Runs `f` (sync or async); resolves to `{ ok, value }` or `{ ok: false, error }`. */
export async function attempt(f) {
  try {
    let v = f()
    if (v && typeof v.then === 'function') v = await v
    return { ok: true, value: v }
  } catch (error) {
    return { ok: false, error }
  }
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg)
}

/** Throws unless `r` failed with one of `codes` (an array, or any stable code when omitted). */
export function expectCode(r, codes, what = '') {
  if (r.ok) throw new Error(`${what}: expected an error ${codes ? codes.join('|') : ''}, got ${short(r.value)}`)
  const code = r.error?.code
  if (!(r.error instanceof Error)) throw new Error(`${what}: threw a non-Error ${short(r.error)}`)
  if (codes ? !codes.includes(code) : !STABLE_CODES.has(code)) {
    throw new Error(`${what}: code ${code} (${r.error.message.slice(0, 200)}), expected ${codes ? codes.join('|') : 'a stable code'}`)
  }
  return code
}

export function short(v) {
  let s
  try {
    s = JSON.stringify(v)
  } catch {
    s = String(v)
  }
  return s === undefined ? 'undefined' : s.length > 160 ? `${s.slice(0, 160)}...` : s
}

/** Whether `mount` works here (root in a namespace that allows tmpfs / bind mounts). */
export function canMount() {
  const d = mkdtempSync(join(tmpdir(), 'ctx-rel-mnt-'))
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', d], { stdio: 'ignore' })
    if (r.status !== 0) return false
    spawnSync('umount', [d], { stdio: 'ignore' })
    return true
  } finally {
    rmSync(d, { recursive: true, force: true })
  }
}

export function mount(args) {
  const r = spawnSync('mount', args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`mount ${args.join(' ')}: ${r.stderr}`)
}
export function umount(dir) {
  const r = spawnSync('umount', [dir], { encoding: 'utf8' })
  if (r.status !== 0) {
    spawnSync('umount', ['-l', dir], { encoding: 'utf8' })
  }
}

export const sessionDir = (stateDir, kind, key) => join(stateDir, 'context', kind, native.sessionDirName(key))

/** The checkpoint files of a session dir, ascending by number. */
export function cpFiles(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((n) => /^cp_\d+\.yaml$/.test(n))
    .sort((a, b) => Number(a.slice(3, -5)) - Number(b.slice(3, -5)))
}

export const isDir = (p) => existsSync(p) && statSync(p).isDirectory()

/** A minimal valid checkpoint input. */
export function cpInput(stateDir, sessionKey, extra = {}) {
  return {
    stateDir,
    sessionKey,
    trigger: 'auto-80pct',
    tokenUsage: { inputTokens: 1000, contextWindow: 200000 },
    working: { topic: 'reliability', status: 'in_progress' },
    ...extra,
  }
}
