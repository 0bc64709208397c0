// The plugin example's static contract with OpenClaw, checked without the host (npm run test:host runs the
// plugin itself under the pinned openclaw): the manifest declares exactly the tools the package defines, under
// provider-valid names, the middleware runtime it registers, a default and a description for every setting,
// and the package pins the OpenClaw release scripts/host.mjs tests against.
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const native = createRequire(import.meta.url)('../index.js') as typeof import('../index')
const dir = join(root, 'plugin')
// The package is the plugin: its manifest and its package.json `openclaw` block sit at the root.
const manifest = JSON.parse(readFileSync(join(root, 'openclaw.plugin.json'), 'utf8'))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const entry = readFileSync(join(dir, 'index.ts'), 'utf8')
// The plugin's sources: the entry and the modules it is split into (settings, state, tools, compaction, retention).
const source = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(dir, f), 'utf8'))
  .join('\n')

describe('plugin', () => {
  it('declares exactly the tools the package defines, under provider-valid names', () => {
    const names = [native.getScratchpadToolDefinition().name, ...native.observationToolDefinitions().map((d: { name: string }) => d.name)]
    expect([...manifest.contracts.tools].sort()).toEqual([...names].sort())
    for (const n of manifest.contracts.tools) {
      expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      expect(native.isValidToolName(n)).toBe(true)
    }
    expect(manifest.contracts.tools).not.toContain('session.scratchpad')
  })

  it('declares the tool-result middleware runtimes it registers (the embedded runtime and the Codex harness)', () => {
    expect(manifest.contracts.agentToolResultMiddleware).toEqual(['openclaw', 'codex'])
    expect(source).toContain("runtimes: ['openclaw', 'codex']")
  })

  it('every setting has a default and a description', () => {
    let leaves = 0
    const walk = (props: Record<string, any>, path: string) => {
      for (const [k, v] of Object.entries(props)) {
        if (v.type === 'object') walk(v.properties, `${path}${k}.`)
        else {
          leaves++
          expect(v.description, `${path}${k}`).toMatch(/\S/)
          if (k !== 'stateDir') expect(v.default, `${path}${k} default`).not.toBeUndefined()
        }
      }
    }
    walk(manifest.configSchema.properties, '')
    expect(leaves).toBeGreaterThanOrEqual(17)
    expect(manifest.configSchema.additionalProperties).toBe(false)
    for (const k of ['scratchpad', 'gauge', 'checkpoints', 'offload', 'compaction']) expect(manifest.configSchema.properties).toHaveProperty(k)
  })

  it('pins the OpenClaw release that test:host runs it under; openclaw is an optional peer (OpenClaw omits peers)', async () => {
    const { OPENCLAW_VERSION } = await import('../scripts/host.mjs')
    expect(pkg.openclaw.build.openclawVersion).toBe(OPENCLAW_VERSION)
    expect(pkg.openclaw.compat.pluginApi).toBe(`>=${OPENCLAW_VERSION}`)
    expect(pkg.openclaw.install.minHostVersion).toBe(`>=${OPENCLAW_VERSION}`)
    expect(pkg.peerDependencies).toEqual({ openclaw: `>=${OPENCLAW_VERSION}` })
    // Not installed with the library: a user of the binding alone never gets OpenClaw pulled in.
    expect(pkg.peerDependenciesMeta).toEqual({ openclaw: { optional: true } })
    expect(pkg.dependencies ?? {}).not.toHaveProperty('openclaw')
    expect(entry).toContain(`TESTED_OPENCLAW_VERSION = '${OPENCLAW_VERSION}'`)
    expect(manifest.id).toBe('context-native')
    // `npm run version` bumps package.json; the manifest OpenClaw reports must follow it
    expect(manifest.version).toBe(pkg.version)
  })

  it('ships the compiled entry: openclaw.extensions names dist/plugin/index.js, `files` carries it and the manifest', () => {
    // OpenClaw refuses a TypeScript entry for npm installs ("requires compiled runtime output").
    expect(pkg.openclaw.extensions).toEqual(['./dist/plugin/index.js'])
    expect(pkg.files).toEqual(expect.arrayContaining(['dist/plugin/', 'openclaw.plugin.json']))
    const build = JSON.parse(readFileSync(join(dir, 'tsconfig.build.json'), 'utf8').replace(/^\s*\/\/.*$/gm, ''))
    expect(build.compilerOptions.outDir).toBe('../dist/plugin')
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type).toBe('module')
  })

  it('requires the platform package of every napi target at install time', () => {
    expect(pkg.openclaw.install.requiredPlatformPackages).toHaveLength(pkg.napi.targets.length)
    const suffixes = readdirSync(join(root, 'npm')).map((d) => JSON.parse(readFileSync(join(root, 'npm', d, 'package.json'), 'utf8')).name).sort()
    expect([...pkg.openclaw.install.requiredPlatformPackages].sort()).toEqual(suffixes)
  })

  it('is a definePluginEntry plugin that never sets systemPrompt', () => {
    expect(entry).toMatch(/export default definePluginEntry\(/)
    expect(source).not.toMatch(/systemPrompt\s*:/)
  })
})
