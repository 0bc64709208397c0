// The eight targets of package.json `napi.targets`, how each is built, and where.
// One table for `npm run pack:local`, `npm run test:install`, the packaging test and the release
// workflow (.github/workflows/CI.yml runs the same `napi build` arguments; __test__/packaging.test.ts
// checks that it does).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const { parseTriple } = createRequire(import.meta.url)('@napi-rs/cli')

/** Oldest glibc the gnu binaries may need: cargo-zigbuild links against this version's symbols. */
export const GLIBC = '2.17'

/**
 * How each target is built.
 * - `zig`: `napi build -x` (cargo-zigbuild, zig as the linker) on any Linux or macOS host, so
 *   `npm run pack:local` builds it here; the gnu targets pin glibc 2.17 (`<triple>.2.17`).
 * - `release`: only the release workflow builds it, on its own runner: the MSVC targets need the
 *   Windows SDK and CRT (cargo-xwin downloads them from Microsoft, which this machine cannot reach).
 */
export function targetPlan(triple) {
  const t = parseTriple(triple)
  const suffix = t.platformArchABI
  const base = { triple, suffix, platform: t.platform, arch: t.arch, abi: t.abi ?? null, packageName: `${pkg.name}-${suffix}` }
  const file = `${pkg.napi.binaryName}.${suffix}.node`
  if (t.platform === 'linux' || t.platform === 'darwin') {
    const cargoTarget = t.platform === 'linux' && t.abi === 'gnu' ? `${triple}.${GLIBC}` : triple
    return { ...base, file, how: 'zig', buildArgs: ['--platform', '--release', '--target', cargoTarget, '-x'] }
  }
  return {
    ...base,
    file,
    how: 'release',
    buildArgs: ['--platform', '--release', '--target', triple],
    why: 'needs the Windows SDK and MSVC CRT (cargo-xwin downloads them from Microsoft, out of reach here); the release workflow builds it on windows-latest',
  }
}

export const targets = pkg.napi.targets.map(targetPlan)

/** The target of the running Node, or undefined when the package has none for it. */
export function hostTarget() {
  let abi = null
  if (process.platform === 'linux') {
    const report = process.report.getReport()
    abi = report.header && report.header.glibcVersionRuntime ? 'gnu' : 'musl'
  } else if (process.platform === 'win32') abi = 'msvc'
  return targets.find((t) => t.platform === process.platform && t.arch === process.arch && (t.abi ?? null) === abi)
}

/** The root package.json as publishing writes it: `optionalDependencies` on every platform package, pinned. */
export function publishedManifest() {
  const manifest = structuredClone(pkg)
  manifest.optionalDependencies = { ...(manifest.optionalDependencies ?? {}) }
  for (const t of targets) manifest.optionalDependencies[t.packageName] = pkg.version
  return manifest
}
