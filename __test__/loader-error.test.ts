// loader.cjs, the package's main: what a user sees when the platform package is missing, broken or does
// not exist, and that it is a transparent re-export of the generated index.js when the binary loads.
// Each case lays out node_modules/@openclaw/context-native in a temporary directory outside the repo
// (loader.cjs + the generated index.js + package.json, as the tarball ships them) and requires it in a
// fresh Node process, so no binary next to the repo's index.js can be picked up.
import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const { parseTriple } = createRequire(import.meta.url)('@napi-rs/cli') as {
  parseTriple: (t: string) => { platformArchABI: string }
}
const suffixes: string[] = pkg.napi.targets.map((t: string) => parseTriple(t).platformArchABI)

function isMusl(): boolean {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } }
  return process.platform === 'linux' && !report.header?.glibcVersionRuntime
}
const hostSuffix =
  process.platform === 'linux'
    ? `linux-${process.arch}-${isMusl() ? 'musl' : 'gnu'}`
    : process.platform === 'win32'
      ? `win32-${process.arch}-msvc`
      : `${process.platform}-${process.arch}`
const needed = `${pkg.name}-${hostSuffix}`

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A project dir with the root package installed as its tarball lays it out; returns the project dir. */
function project(opts: { optionalDependencies?: boolean; platformBinary?: Buffer | 'real' } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'context-native-loader-'))
  dirs.push(dir)
  const at = join(dir, 'node_modules', ...pkg.name.split('/'))
  mkdirSync(at, { recursive: true })
  for (const f of ['loader.cjs', 'index.js', 'index.d.ts']) copyFileSync(join(root, f), join(at, f))
  const manifest = { ...pkg }
  delete manifest.devDependencies
  if (opts.optionalDependencies) {
    manifest.optionalDependencies = Object.fromEntries(suffixes.map((s) => [`${pkg.name}-${s}`, pkg.version]))
  }
  writeFileSync(join(at, 'package.json'), JSON.stringify(manifest, null, 2))
  if (opts.platformBinary) {
    const sub = join(dir, 'node_modules', ...needed.split('/'))
    mkdirSync(sub, { recursive: true })
    const file = `${pkg.napi.binaryName}.${hostSuffix}.node`
    writeFileSync(join(sub, 'package.json'), JSON.stringify({ name: needed, version: pkg.version, main: file }))
    if (opts.platformBinary === 'real') copyFileSync(join(root, file), join(sub, file))
    else writeFileSync(join(sub, file), opts.platformBinary)
  }
  return dir
}

/** Runs `code` in a fresh Node in `cwd`; returns what it printed. */
function node(cwd: string, code: string, args: string[] = []) {
  const env = { ...process.env }
  delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  delete env.NAPI_RS_FORCE_WASI
  const r = spawnSync(process.execPath, [...args, '-e', code], { cwd, env, encoding: 'utf8' })
  return { status: r.status, out: r.stdout + r.stderr }
}

/** Requires the package and prints the error's fields as JSON. */
const REPORT = `try { require('${pkg.name}'); console.log('LOADED') } catch (e) {
  const causes = []; for (let c = e.cause; c; c = c.cause) causes.push(c.message)
  console.log(JSON.stringify({ message: e.message, code: e.code, packageName: e.packageName, causes }))
}`

function loadError(cwd: string, args: string[] = []) {
  const { out } = node(cwd, REPORT, args)
  expect(out).not.toContain('LOADED')
  return JSON.parse(out.trim().split('\n').pop()!) as {
    message: string
    code: string
    packageName: string
    causes: string[]
  }
}

describe('loader.cjs: the error when no native binary loads', () => {
  it('package.json main is loader.cjs and the tarball ships it', () => {
    expect(pkg.main).toBe('loader.cjs')
    expect(pkg.files).toContain('loader.cjs')
    expect(pkg.files).toContain('index.js')
  })

  it('platform package missing, none declared: names it, how to install it, every target, no npm-bug advice', () => {
    const e = loadError(project())
    expect(e.code).toBe('NativeBindingMissing')
    expect(e.packageName).toBe(needed)
    expect(e.message).toContain(`This platform needs the package ${needed}, which is not installed`)
    expect(e.message).toContain(`npm install ${needed}@${pkg.version}`)
    expect(e.message).toContain('declares no platform packages in optionalDependencies')
    expect(e.message).toContain(`Prebuilt targets: ${suffixes.join(', ')}.`)
    expect(e.message).not.toMatch(/npm has a bug|4828/)
    // the cause chain keeps what the generated loader tried, without its misleading headline
    expect(e.causes.join('\n')).toContain(needed)
    expect(e.causes.join('\n')).not.toMatch(/npm has a bug/)
  })

  it('platform package declared in optionalDependencies but not installed: says why npm skips it', () => {
    const e = loadError(project({ optionalDependencies: true }))
    expect(e.message).toContain(`npm install ${needed}@${pkg.version}`)
    expect(e.message).toContain('lists it in optionalDependencies')
    expect(e.message).toContain('--omit=optional')
    expect(e.message).toContain('https://github.com/npm/cli/issues/4828')
    expect(e.message).not.toContain('declares no platform packages')
  })

  it('platform package installed but its binary is damaged: gives the real reason, not "missing"', () => {
    const e = loadError(project({ optionalDependencies: true, platformBinary: Buffer.from('not an ELF/Mach-O/PE file') }))
    expect(e.code).toBe('NativeBindingMissing')
    expect(e.message).toContain(`${needed} is installed but its binary failed to load`)
    expect(e.message).toMatch(/Reason: .*context-native\./)
    expect(e.message).not.toContain('is not installed')
  })

  it('a platform with no prebuilt target: says so and lists the packages that exist', () => {
    const dir = project({ optionalDependencies: true })
    writeFileSync(join(dir, 'fake-arch.cjs'), "Object.defineProperty(process, 'arch', { value: 'mips' })\n")
    const e = loadError(dir, ['--require', './fake-arch.cjs'])
    expect(e.message).toContain('no prebuilt binary exists for this platform')
    expect(e.message).toContain(`${pkg.name}-${hostSuffix.replace(process.arch, 'mips')}`)
    for (const s of suffixes) expect(e.message).toContain(`${pkg.name}-${s}`)
    expect(e.message).toContain('npm run build')
  })

  it('binary present: require and ESM named imports see every export through loader.cjs', () => {
    const dir = project({ optionalDependencies: true, platformBinary: 'real' })
    const cjs = node(dir, `const m = require('${pkg.name}'); console.log(m.countTokens('hello world'), Object.keys(m).length)`)
    expect(cjs.status, cjs.out).toBe(0)
    const [count, keys] = cjs.out.trim().split(' ').map(Number)
    expect(count).toBe(2)
    const direct = Object.keys(createRequire(import.meta.url)(join(root, 'index.js'))).length
    expect(keys).toBe(direct)
    const esm = node(
      dir,
      `import { countTokens, warmup, writeCheckpoint } from '${pkg.name}'
      console.log(typeof countTokens, typeof warmup, countTokens('hello world'), typeof writeCheckpoint)`,
      ['--input-type=module'],
    )
    expect(esm.status, esm.out).toBe(0)
    expect(esm.out.trim()).toBe('function function 2 function')
  })
})
