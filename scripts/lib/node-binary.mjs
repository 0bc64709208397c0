// A Node binary of a given major version for the scripts that test on more than one Node: the running one
// when it fits, else one installed from the npm registry (`node-<platform>-<arch>@<major>`) into
// `.tools/node<major>[-<arch>]/`. Used by `npm test` (vitest on Node 24), `npm run test:host` (OpenClaw needs
// Node >= 24.16) and `npm run test:install` (Node 20 and 24, and Node 24 arm64 under qemu).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join, relative } from 'node:path'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** The version `bin` reports, without the `v` (empty when it does not run). */
export function nodeVersion(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : ''
}

/**
 * `{ bin }`: a Node binary of `major` whose version `accept` takes (any by default), for `arch` (npm's cpu
 * name; another arch than this one runs under emulation); `{ error }` when none can be had.
 * `root` is the repository, whose `.tools/` holds the installed ones.
 */
export function nodeBinary(root, major, { arch = process.arch, accept = () => true } = {}) {
  if (arch === process.arch && process.versions.node.split('.')[0] === String(major) && accept(process.versions.node)) {
    return { bin: process.execPath }
  }
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    return { error: `no Node ${major} can be installed automatically on ${process.platform}` }
  }
  const name = `node-${process.platform}-${arch}`
  const prefix = join(root, '.tools', arch === process.arch ? `node${major}` : `node${major}-${arch}`)
  const bin = join(prefix, 'node_modules', name, 'bin', 'node')
  // A foreign-arch binary cannot report its version without emulation: only its presence is checked.
  const fits = () => existsSync(bin) && (arch !== process.arch || accept(nodeVersion(bin)))
  if (!fits()) {
    mkdirSync(prefix, { recursive: true })
    const extra = arch === process.arch ? [] : [`--cpu=${arch}`, '--force']
    console.log(`..    installing ${name}@${major} into ${relative(root, prefix)}/`)
    const r = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', ...extra, '--prefix', prefix, `${name}@${major}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'inherit', 'pipe'],
    })
    if (r.status !== 0 || !existsSync(bin)) {
      return { error: `npm install ${name}@${major} failed: ${(r.stderr || '').trim().split('\n').slice(-3).join(' ')}` }
    }
    if (!fits()) return { error: `${relative(root, prefix)} holds Node ${nodeVersion(bin)}, which does not fit` }
  }
  return { bin }
}
