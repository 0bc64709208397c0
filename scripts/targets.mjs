// The eight targets of package.json `napi.targets`, how each is built, and where.
// One table for `npm run pack:local`, `npm run test:install`, the packaging test and the release
// workflow (.github/workflows/CI.yml builds each target with its `releaseArgs`;
// __test__/packaging.test.ts checks that it does).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const { parseTriple } = createRequire(import.meta.url)('@napi-rs/cli')

/** Oldest glibc the gnu binaries may need: cargo-zigbuild links against this version's symbols. */
export const GLIBC = '2.17'

/** Oldest macOS the darwin binaries load on (the release workflow sets the same; arm64 starts at 11.0). */
export const MACOSX_DEPLOYMENT_TARGET = '10.13'

/**
 * How each target is built.
 * - `buildArgs`: what `npm run pack:local` runs here (`napi build <buildArgs>`), or null when it cannot.
 *   Linux and macOS go through `napi build -x` (cargo-zigbuild, zig as the linker) from any Linux or macOS
 *   host; the gnu targets pin glibc 2.17 (`<triple>.2.17`, the floor `--use-napi-cross` used to give).
 * - `releaseArgs`: what the release workflow's build job runs for it (`npm run build -- <releaseArgs>`).
 *   Linux: the same as here. macOS: a native build on a macOS runner (Apple's SDK and linker). Windows:
 *   a native MSVC build on a Windows runner; nothing here can build it (cargo-xwin downloads the Windows
 *   SDK and CRT from Microsoft, out of this machine's reach).
 */
export function targetPlan(triple) {
  const t = parseTriple(triple)
  const suffix = t.platformArchABI
  const base = { triple, suffix, platform: t.platform, arch: t.arch, abi: t.abi ?? null, packageName: `${pkg.name}-${suffix}` }
  const file = `${pkg.napi.binaryName}.${suffix}.node`
  if (t.platform === 'linux') {
    const args = ['--target', t.abi === 'gnu' ? `${triple}.${GLIBC}` : triple, '-x']
    return { ...base, file, buildArgs: args, releaseArgs: args }
  }
  if (t.platform === 'darwin') {
    return {
      ...base,
      file,
      buildArgs: ['--target', triple, '-x'],
      releaseArgs: ['--target', triple],
      env: { MACOSX_DEPLOYMENT_TARGET },
    }
  }
  return {
    ...base,
    file,
    buildArgs: null,
    releaseArgs: ['--target', triple],
    why: 'only the release workflow builds it (windows-latest): the MSVC SDK and CRT cannot be fetched here (cargo-xwin downloads them from Microsoft)',
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
