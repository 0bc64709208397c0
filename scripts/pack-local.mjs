#!/usr/bin/env node
// `npm run pack:local`: the packages publishing would put on npm, built and packed on this machine.
//
// Builds every target of package.json `napi.targets` that this machine can build (scripts/targets.mjs
// says how: Linux x64/arm64 gnu/musl and macOS x64/arm64 through `napi build -x`, i.e. cargo-zigbuild
// with zig as the linker; the Windows MSVC targets only in the release workflow), then writes to dist/:
//   - one tarball per built platform package (npm/<platform>/ + its binary), as `npm pack` makes it;
//   - one tarball of the root package whose package.json has `optionalDependencies` on all the platform
//     packages, pinned to this version, as `napi prepublish` writes them before `npm publish`;
//   - dist/pack.json: what was built (size, seconds, oldest glibc it needs), what was skipped and why.
// The root tarball carries the OpenClaw plugin compiled from plugin/ (`npm run build:plugin`, run here first,
// into dist/plugin/). Nothing in the repository changes: builds go to dist/build/<platform>/ (the index.js / index.d.ts
// napi generates there must equal the committed ones, or the script stops).
//
// usage: node scripts/pack-local.mjs [--targets <triple|platform>,...] [--host] [--no-build | --from-build]
//   --targets     only these (e.g. linux-x64-gnu,aarch64-unknown-linux-gnu)
//   --host        only the target of the running Node (what `npm run test:install` needs)
//   --no-build    pack the binaries already in dist/build/ (an earlier run, or release artifacts put there)
//   --from-build  for this machine's own target, pack the binary `npm run build` left at the repository
//                 root instead of building it (a native build: its glibc floor is this machine's, reported,
//                 not held to 2.17); the other targets build as usual
// Needs: rustup (targets are added as needed); for `-x`: zig (`pip install ziglang`, found on PATH or as
// `python3 -m ziglang`) and cargo-zigbuild (`cargo install cargo-zigbuild --locked`). A missing tool skips
// the targets that need it, with the command that installs it.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { buildPlugin } from './build-plugin.mjs'
import { GLIBC, MACOSX_DEPLOYMENT_TARGET, hostTarget, pkg, publishedManifest, root, targets } from './targets.mjs'

const { values: opts } = parseArgs({
  options: {
    targets: { type: 'string' },
    host: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'from-build': { type: 'boolean', default: false },
  },
})

const dist = join(root, 'dist')
const napiBin = join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')

function sh(cmd, args, o = {}) {
  return spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...o })
}
const ok = (cmd, args, o) => {
  const r = sh(cmd, args, { stdio: 'ignore', ...o })
  return !r.error && r.status === 0
}

// ---- which targets
let wanted = targets
if (opts.host) {
  const h = hostTarget()
  if (!h) {
    console.error(`pack:local: no target of ${pkg.name} runs on ${process.platform} ${process.arch}`)
    process.exit(1)
  }
  wanted = [h]
} else if (opts.targets) {
  const names = opts.targets.split(',').map((s) => s.trim()).filter(Boolean)
  for (const n of names) {
    if (!targets.some((t) => t.triple === n || t.suffix === n)) {
      console.error(`pack:local: unknown target ${n}; targets: ${targets.map((t) => t.suffix).join(', ')}`)
      process.exit(2)
    }
  }
  wanted = targets.filter((t) => names.includes(t.triple) || names.includes(t.suffix))
}

// ---- tools
function zigAvailable() {
  return ok('zig', ['version']) || ok('python3', ['-m', 'ziglang', 'version'])
}
const tools = {
  zig: zigAvailable(),
  zigbuild: ok('cargo', ['zigbuild', '--help']),
  rustup: ok('rustup', ['--version']),
}
const installedTargets = tools.rustup ? sh('rustup', ['target', 'list', '--installed']).stdout.split('\n') : []

function cannotBuild(t) {
  if (!t.buildArgs) return t.why
  if (process.platform === 'win32') return 'cross builds with cargo-zigbuild need a Linux or macOS host'
  if (!tools.zig) return 'zig is missing: `pip install ziglang` (or zig on PATH)'
  if (!tools.zigbuild) return 'cargo-zigbuild is missing: `cargo install cargo-zigbuild --locked`'
  if (!installedTargets.includes(t.triple)) {
    if (!tools.rustup) return `Rust target ${t.triple} is missing and rustup is not available`
    console.log(`== rustup target add ${t.triple}`)
    if (!ok('rustup', ['target', 'add', t.triple], { stdio: 'inherit' })) return `rustup target add ${t.triple} failed`
  }
  return null
}

// ---- what a built binary is
const ELF_MACHINE = { x64: 62, arm64: 183 }
const MACHO_CPU = { x64: 0x01000007, arm64: 0x0100000c }

/** Checks the binary's format and architecture against the target; returns facts about it. */
function inspectBinary(t, file, enforceGlibc) {
  const b = readFileSync(file)
  const facts = { bytes: b.length }
  if (t.platform === 'linux') {
    if (b.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${file}: not an ELF file`)
    const machine = b.readUInt16LE(18)
    if (machine !== ELF_MACHINE[t.arch]) throw new Error(`${file}: ELF machine ${machine}, expected ${ELF_MACHINE[t.arch]} (${t.arch})`)
    const text = b.toString('latin1')
    if (t.abi === 'gnu') {
      const versions = [...new Set(text.match(/GLIBC_2\.\d+(\.\d+)?/g) ?? [])].map((v) => v.slice(6))
      const newest = versions.sort((x, y) => cmpVersion(y, x))[0] ?? null
      if (enforceGlibc && newest && cmpVersion(newest, GLIBC) > 0) throw new Error(`${file}: needs glibc ${newest}, newer than ${GLIBC}`)
      facts.glibc = newest
    } else {
      if (/GLIBC_2\./.test(text)) throw new Error(`${file}: a musl binary that references glibc symbols`)
      facts.libc = 'musl'
    }
  } else if (t.platform === 'darwin') {
    if (b.readUInt32LE(0) !== 0xfeedfacf) throw new Error(`${file}: not a 64-bit Mach-O file`)
    const cpu = b.readUInt32LE(4)
    if (cpu !== MACHO_CPU[t.arch]) throw new Error(`${file}: Mach-O cpu ${cpu.toString(16)}, expected ${t.arch}`)
    facts.macos = machoMinOs(b)
    const floor = t.arch === 'arm64' ? '11.0' : MACOSX_DEPLOYMENT_TARGET
    if (facts.macos && cmpVersion(facts.macos, floor) > 0) throw new Error(`${file}: needs macOS ${facts.macos}, newer than ${floor}`)
  }
  return facts
}

/** The minimum macOS of a 64-bit Mach-O file (LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX), as "major.minor". */
function machoMinOs(b) {
  const ncmds = b.readUInt32LE(16)
  let at = 32
  for (let i = 0; i < ncmds; i++) {
    const cmd = b.readUInt32LE(at)
    const size = b.readUInt32LE(at + 4)
    const v = cmd === 0x32 ? b.readUInt32LE(at + 12) : cmd === 0x24 ? b.readUInt32LE(at + 8) : null
    if (v !== null) return `${v >>> 16}.${(v >>> 8) & 0xff}`
    at += size
  }
  return null
}

function cmpVersion(a, b) {
  const x = a.split('.').map(Number)
  const y = b.split('.').map(Number)
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  return 0
}

// ---- build
mkdirSync(dist, { recursive: true })
for (const f of readdirSync(dist)) if (f.endsWith('.tgz') || f === 'pack.json') rmSync(join(dist, f))

const built = []
const skipped = []
for (const t of targets) {
  if (!wanted.includes(t)) continue
  const out = join(dist, 'build', t.suffix)
  const binary = join(out, t.file)
  if (opts['from-build'] && t === hostTarget()) {
    const local = join(root, t.file)
    if (!existsSync(local)) {
      console.error(`pack:local: ${t.file} is missing at the repository root: run \`npm run build\` first`)
      process.exit(1)
    }
    // kept apart from dist/build/<platform>/, which holds release builds only
    const native = join(dist, 'build', 'native', t.suffix)
    mkdirSync(native, { recursive: true })
    copyFileSync(local, join(native, t.file))
    built.push({ t, binary: join(native, t.file), seconds: null })
    continue
  }
  if (opts['no-build']) {
    if (!t.buildArgs) skipped.push({ target: t.triple, why: t.why })
    else if (existsSync(binary)) built.push({ t, binary, seconds: null })
    else skipped.push({ target: t.triple, why: `no binary in dist/build/${t.suffix} (run without --no-build)` })
    continue
  }
  const why = cannotBuild(t)
  if (why) {
    skipped.push({ target: t.triple, why })
    continue
  }
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const args = [napiBin, 'build', '--platform', '--release', ...t.buildArgs, '--output-dir', out]
  console.log(`\n== ${t.suffix}: napi ${args.slice(1).join(' ')}`)
  const started = process.hrtime.bigint()
  const r = sh('nice', ['-n', '10', process.execPath, ...args], { stdio: 'inherit', env: { ...process.env, ...t.env } })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (r.status !== 0 || !existsSync(binary)) {
    skipped.push({ target: t.triple, why: `napi build failed (exit ${r.status}); see the output above` })
    continue
  }
  for (const generated of ['index.js', 'index.d.ts']) {
    const mine = readFileSync(join(out, generated), 'utf8')
    if (mine !== readFileSync(join(root, generated), 'utf8')) {
      console.error(`pack:local: the ${generated} napi generates differs from the committed one: run \`npm run build\` and commit it`)
      process.exit(1)
    }
  }
  built.push({ t, binary, seconds })
}

// ---- pack
function npmPack(dir) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const r = sh(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', dist], { cwd: dir, shell: process.platform === 'win32' })
  if (r.status !== 0) {
    console.error(r.stderr)
    throw new Error(`npm pack failed in ${dir}`)
  }
  return JSON.parse(r.stdout)[0]
}

const stage = join(dist, 'stage')
rmSync(stage, { recursive: true, force: true })
const packages = []
for (const { t, binary, seconds } of built) {
  const src = join(root, 'npm', t.suffix)
  const sub = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8'))
  if (sub.name !== t.packageName || sub.version !== pkg.version) {
    throw new Error(`npm/${t.suffix}/package.json is ${sub.name}@${sub.version}, expected ${t.packageName}@${pkg.version} (run \`npm run version\`)`)
  }
  const dir = join(stage, t.suffix)
  mkdirSync(dir, { recursive: true })
  for (const f of readdirSync(src)) copyFileSync(join(src, f), join(dir, f))
  copyFileSync(binary, join(dir, t.file))
  const fromBuild = opts['from-build'] && t === hostTarget()
  const facts = inspectBinary(t, join(dir, t.file), !fromBuild)
  const packed = npmPack(dir)
  packages.push({
    target: t.triple,
    package: t.packageName,
    tarball: packed.filename,
    tarballBytes: statSync(join(dist, packed.filename)).size,
    binary: relative(dist, binary),
    binaryBytes: facts.bytes,
    ...(facts.glibc !== undefined ? { glibc: facts.glibc } : {}),
    ...(facts.libc ? { libc: facts.libc } : {}),
    ...(facts.macos ? { macos: facts.macos } : {}),
    buildSeconds: seconds === null ? null : Math.round(seconds),
    ...(fromBuild ? { from: 'npm run build (native, not the release build)' } : {}),
  })
}

// the root package: the files package.json `files` lists (the plugin compiled first), with the manifest
// publishing writes
buildPlugin({ quiet: true })
const rootDir = join(stage, 'root')
mkdirSync(rootDir, { recursive: true })
writeFileSync(join(rootDir, 'package.json'), JSON.stringify(publishedManifest(), null, 2) + '\n')
const rootFiles = sh(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
  shell: process.platform === 'win32',
})
for (const { path } of JSON.parse(rootFiles.stdout)[0].files) {
  if (path === 'package.json') continue
  mkdirSync(join(rootDir, path, '..'), { recursive: true })
  copyFileSync(join(root, path), join(rootDir, path))
}
const rootPacked = npmPack(rootDir)
if (rootPacked.files.some((f) => f.path.endsWith('.node'))) throw new Error('the root tarball must not carry a binary')
rmSync(stage, { recursive: true, force: true })

const report = {
  name: pkg.name,
  version: pkg.version,
  root: rootPacked.filename,
  optionalDependencies: publishedManifest().optionalDependencies,
  packages,
  skipped,
}
writeFileSync(join(dist, 'pack.json'), JSON.stringify(report, null, 2) + '\n')

console.log(`\n== dist/ (${pkg.name}@${pkg.version})`)
console.log(`  ${rootPacked.filename}  root, ${rootPacked.files.length} files, optionalDependencies on ${targets.length} platform packages`)
for (const p of packages) {
  const extra = [p.glibc ? `glibc >= ${p.glibc}` : p.macos ? `macOS >= ${p.macos}` : p.libc, p.buildSeconds !== null ? `built in ${p.buildSeconds} s` : null].filter(Boolean).join(', ')
  console.log(`  ${p.tarball}  ${(p.binaryBytes / 2 ** 20).toFixed(2)} MiB binary${extra ? `, ${extra}` : ''}`)
}
for (const s of skipped) console.log(`  skipped ${s.target}: ${s.why}`)
if (packages.length === 0) {
  console.error('pack:local: no platform package was built')
  process.exit(1)
}
