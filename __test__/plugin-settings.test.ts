// The plugin's settings (plugin/settings.ts): the manifest's configSchema, docs/configuration.md and resolveSettings
// follow one table; every value the table allows is one the binding honours (checked at the edges of each range);
// what it forbids is refused with a message naming the setting; the persisted scratchpad reads back at every size.
// (The real OpenClaw refusing the same values at `openclaw config set` and at load: npm run test:plugin-install.)
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  configSchema,
  InvalidSettingsError,
  piExtensionSchema,
  resolveSettings,
  SCRATCHPAD_READ_MAX_CHARS,
  SETTINGS,
  SETTINGS_PATH,
  settingsTable,
  uiHints,
} from '../plugin/settings'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const native = createRequire(import.meta.url)('../index.js') as typeof import('../index')
const manifest = JSON.parse(readFileSync(join(root, 'openclaw.plugin.json'), 'utf8'))
const doc = readFileSync(join(root, 'docs/configuration.md'), 'utf8')

/** The config with `path` (dot path under the plugin's config) set to `value`. */
function withSetting(path: string, value: unknown): Record<string, unknown> {
  const [group, key] = path.includes('.') ? path.split('.') : [undefined, path]
  return group ? { [group]: { [key as string]: value } } : { [key as string]: value }
}
const refusal = (raw: unknown): InvalidSettingsError => {
  try {
    resolveSettings(raw)
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidSettingsError)
    return e as InvalidSettingsError
  }
  throw new Error(`resolveSettings accepted ${JSON.stringify(raw)}`)
}

describe('one table for the manifest, the docs and resolveSettings', () => {
  it('openclaw.plugin.json configSchema and uiHints are the ones plugin/settings.ts defines', () => {
    // `node scripts/plugin-manifest.mjs` rewrites them from the table.
    expect(manifest.configSchema).toEqual(configSchema())
    expect(manifest.uiHints).toEqual(uiHints())
  })

  it('the pi extension (route 2) reads the same table: its settings.schema.json and resolveSettings are the plugin\'s', async () => {
    const schema = JSON.parse(readFileSync(join(root, 'examples/pi-extension/settings.schema.json'), 'utf8'))
    expect(schema).toEqual(piExtensionSchema())
    const ext = await import('../examples/pi-extension/index.ts')
    const plugin = resolveSettings({ scratchpad: { maxTokens: 3000 } }) as unknown as Record<string, unknown>
    const route2 = ext.resolveSettings({ stateDir: '/x', scratchpad: { maxTokens: 3000 } }) as unknown as Record<string, unknown>
    for (const k of ['contextWindow', 'scratchpad', 'gauge', 'checkpoints', 'offload']) expect(route2[k], k).toEqual(plugin[k])
    // The same ranges refuse the same values, naming the setting under the extension's `settings`.
    expect(() => ext.resolveSettings({ scratchpad: { maxTokens: 50 } })).toThrow(/settings\.scratchpad\.maxTokens must be integer >= 100/)
  })

  it('docs/configuration.md lists every setting with its range and default', () => {
    expect(doc).toContain(settingsTable())
    for (const s of SETTINGS) expect(doc).toContain(`| \`${s.path}\` |`)
  })

  it('resolveSettings({}) gives every documented default', () => {
    const r = resolveSettings({}) as unknown as Record<string, Record<string, unknown>>
    for (const s of SETTINGS) {
      const [group, key] = s.path.includes('.') ? s.path.split('.') : [undefined, s.path]
      const got = group ? r[group]?.[key as string] : (r as Record<string, unknown>)[key as string]
      expect(got, s.path).toEqual(s.default)
    }
  })
})

describe('resolveSettings refuses what the plugin cannot honour, naming the setting', () => {
  it('gaugeAt above checkpointAt (the InvalidArg of every prompt build before)', () => {
    const e = refusal({ gauge: { gaugeAt: 0.9, checkpointAt: 0.8 } })
    expect(e.setting).toBe(`${SETTINGS_PATH}.gauge.gaugeAt`)
    expect(e.message).toMatch(/gauge\.gaugeAt \(0\.9\) must not be above gauge\.checkpointAt \(0\.8\)/)
    expect(e.code).toBe('InvalidSettings')
    // against the default checkpointAt too
    expect(refusal({ gauge: { gaugeAt: 0.85 } }).setting).toBe(`${SETTINGS_PATH}.gauge.gaugeAt`)
    // equal is what the binding accepts (0 <= gaugeAt <= checkpointAt <= 1)
    const eq = resolveSettings({ gauge: { gaugeAt: 0.8, checkpointAt: 0.8 } })
    expect(native.evaluateContextUsage({ tokens: 90, contextWindow: 100 }, { ...eq.gauge, checkpointSaved: false }).action).toBe('checkpoint')
  })

  it('stateDir: ~ expanded, a relative path refused', () => {
    expect(resolveSettings({ stateDir: '~/.openclaw' }).stateDir).toBe(join(homedir(), '.openclaw'))
    expect(resolveSettings({ stateDir: '~' }, { home: '/home/u' }).stateDir).toBe('/home/u')
    expect(resolveSettings({ stateDir: '/var/lib/oc' }).stateDir).toBe('/var/lib/oc')
    for (const bad of ['state', './state', '../x', '~user/x']) {
      const e = refusal({ stateDir: bad })
      expect(e.setting).toBe(`${SETTINGS_PATH}.stateDir`)
      expect(e.message).toMatch(/absolute path/)
    }
    expect(refusal({ stateDir: '' }).setting).toBe(`${SETTINGS_PATH}.stateDir`)
    // the schema's pattern says the same
    const pattern = new RegExp(manifest.configSchema.properties.stateDir.pattern)
    for (const ok of ['~', '~/x', '/x', 'C:\\x', 'C:/x', '\\\\server\\share']) expect(pattern.test(ok), ok).toBe(true)
    for (const bad of ['state', './state', '~user/x', 'C:x']) expect(pattern.test(bad), bad).toBe(false)
  })

  it('booleans as booleans, integers as integers, ranges as the table says', () => {
    expect(refusal({ scratchpad: { enabled: 'false' } }).message).toMatch(/scratchpad\.enabled must be true or false/)
    expect(refusal({ offload: { ttlSeconds: -1 } }).message).toMatch(/offload\.ttlSeconds must be integer >= 0/)
    expect(refusal({ offload: { quotaBytes: 1024 } }).message).toMatch(/offload\.quotaBytes must be integer >= 1048576/)
    expect(refusal({ offload: { thresholdBytes: 0 } }).setting).toBe(`${SETTINGS_PATH}.offload.thresholdBytes`)
    expect(refusal({ scratchpad: { notesMaxChars: -1 } }).message).toMatch(/notesMaxChars must be integer >= 1, <= 100000, got -1/)
    expect(refusal({ scratchpad: { maxTokens: 1.5 } }).message).toMatch(/maxTokens must be an integer/)
    expect(refusal({ scratchpad: { nudgeOnPlanDetected: 2 } }).message).toMatch(/must be 0 or 1/)
    expect(refusal({ contextWindow: '200000' }).setting).toBe(`${SETTINGS_PATH}.contextWindow`)
    expect(refusal({ gauge: { gaugeAt: 0 } }).setting).toBe(`${SETTINGS_PATH}.gauge.gaugeAt`)
    expect(refusal({ gauge: { checkpointAt: 1.01 } }).setting).toBe(`${SETTINGS_PATH}.gauge.checkpointAt`)
  })

  it('unknown keys and non-object groups', () => {
    expect(refusal({ scratchpad: { maxTokenz: 5 } }).setting).toBe(`${SETTINGS_PATH}.scratchpad.maxTokenz`)
    expect(refusal({ window: 5 }).setting).toBe(`${SETTINGS_PATH}.window`)
    expect(refusal({ gauge: 0.7 }).setting).toBe(`${SETTINGS_PATH}.gauge`)
    expect(refusal('x').setting).toBe(SETTINGS_PATH)
  })

  it('every value out of each range is refused; both ends of each range are accepted', () => {
    for (const s of SETTINGS) {
      if (s.type !== 'integer' && s.type !== 'number') continue
      const low = s.enum ? Math.min(...s.enum) : (s.minimum as number)
      const high = s.enum ? Math.max(...s.enum) : (s.maximum as number)
      if (!s.exclusiveMinimum) expect(() => resolveSettings(withSetting(s.path, low)), `${s.path}=${low}`).not.toThrow()
      const below = s.exclusiveMinimum ? low : s.type === 'integer' ? low - 1 : low - 0.001
      expect(refusal(withSetting(s.path, below)).setting).toBe(`${SETTINGS_PATH}.${s.path}`)
      if (s.path !== 'gauge.gaugeAt') expect(() => resolveSettings(withSetting(s.path, high)), `${s.path}=${high}`).not.toThrow()
      expect(refusal(withSetting(s.path, s.type === 'integer' ? high + 1 : high + 0.001)).setting).toBe(`${SETTINGS_PATH}.${s.path}`)
    }
  })
})

describe('the binding honours every value the table allows', () => {
  const ends = (path: string) => {
    const s = SETTINGS.find((x) => x.path === path)!
    return [s.minimum as number, s.maximum as number]
  }

  it('scratchpad limits at both ends: a note fits, the tool definition and the block render', () => {
    for (const maxTokens of ends('scratchpad.maxTokens')) {
      for (const i of [0, 1]) {
        const limits = {
          maxTokens,
          notesMaxChars: ends('scratchpad.notesMaxChars')[i],
          planMaxChars: ends('scratchpad.planMaxChars')[i],
          refsMax: ends('scratchpad.refsMax')[i],
        }
        const key = `settings-edge-${maxTokens}-${i}`
        native.clearScratchpad(key)
        expect(native.getScratchpadToolDefinition(limits).name).toBe('session_scratchpad')
        const r = native.applyScratchpadAction(key, { action: 'set_notes', content: 'x' }, limits)
        expect(r.ok, r.message).toBe(true)
        expect(native.applyScratchpadAction(key, { action: 'set_plan', content: 'y' }, limits).ok).toBe(true)
        expect(native.applyScratchpadAction(key, { action: 'refs.add', ref: 'z' }, limits).ok).toBe(true)
        expect(native.getScratchpadContent(key)).toContain('x')
        native.clearScratchpad(key)
      }
    }
  })

  it('the manifest lists every plugin tool in contracts.tools and in the coding and messaging profiles (plugin/tool-profiles.ts)', async () => {
    const { PLUGIN_TOOLS, toolMetadata } = await import('../plugin/tool-profiles.ts')
    expect(manifest.contracts.tools).toEqual([...PLUGIN_TOOLS])
    expect(manifest.toolMetadata).toEqual(toolMetadata())
    for (const name of PLUGIN_TOOLS) for (const profile of ['coding', 'messaging']) expect(manifest.toolMetadata[name].profiles).toContain(profile)
  })

  it('offload threshold and TTL at both ends are accepted by the store', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'settings-offload-'))
    try {
      for (const thresholdBytes of ends('offload.thresholdBytes')) {
        for (const ttlSeconds of ends('offload.ttlSeconds')) {
          const r = await native.offloadObservation({ stateDir, sessionKey: 'agent:main:s', content: 'x'.repeat(3000), toolName: 'bash', thresholdBytes, ttlSeconds })
          expect(r.offloaded).toBe(thresholdBytes < 3000)
        }
      }
      for (const quotaBytes of ends('offload.quotaBytes')) {
        const r = await native.offloadObservation({ stateDir, sessionKey: 'agent:main:q', content: 'x'.repeat(3000), toolName: 'bash', thresholdBytes: 2048, quotaBytes, keepLive: true })
        expect(r.offloaded).toBe(true)
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('the gauge at the ends of contextWindow and the thresholds', () => {
    for (const contextWindow of ends('contextWindow')) {
      for (const [gaugeAt, checkpointAt] of [
        [0.001, 0.001],
        [1, 1],
        [0.7, 0.8],
      ]) {
        expect(() => native.evaluateContextUsage({ tokens: 10, contextWindow }, { gaugeAt, checkpointAt, checkpointSaved: false })).not.toThrow()
      }
    }
  })
})

describe('the persisted scratchpad reads back at every size', () => {
  it('past the store 50,000-character read cap at the default settings, read whole with SCRATCHPAD_READ_MAX_CHARS', async () => {
    // What the plugin persists after refs of runs of spaces (few tokens, many characters) fill the default budget.
    const limits = resolveSettings({}).scratchpad
    const key = 'settings-persisted-size'
    native.clearScratchpad(key)
    const saved: Record<string, unknown> = {}
    const apply = (a: Record<string, unknown>) => {
      const r = native.applyScratchpadAction(key, a as never, limits)
      for (const e of r.persist) saved[e.customType] = e.data
    }
    apply({ action: 'refs.set', items: Array.from({ length: limits.refsMax }, (_, i) => `${i}${' '.repeat(4000)}`) })
    apply({ action: 'set_notes', content: ' '.repeat(limits.notesMaxChars) })
    apply({ action: 'set_plan', content: '"'.repeat(limits.planMaxChars) })
    native.clearScratchpad(key)
    const content = JSON.stringify(saved)
    expect(content.length).toBeGreaterThan(50_000)
    const stateDir = mkdtempSync(join(tmpdir(), 'settings-persist-'))
    try {
      const name = 'context-native-scratchpad'
      await native.writeObservation({ stateDir, sessionKey: key, name, content, protect: [name] })
      await expect(native.readObservation({ stateDir, sessionKey: key, name, mode: 'full' })).rejects.toMatchObject({ code: 'TooLarge' })
      const r = await native.readObservation({ stateDir, sessionKey: key, name, mode: 'full', maxChars: SCRATCHPAD_READ_MAX_CHARS })
      expect(r.content).toBe(content)
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it("the plugin's persist and read paths (plugin/retention.ts) keep a scratchpad past 50,000 chars whole", async () => {
    const { persistEntries, readPersisted } = await import('../plugin/retention.ts')
    const stateDir = mkdtempSync(join(tmpdir(), 'settings-persist-plugin-'))
    try {
      const notes = 'n'.repeat(60_000)
      const refs = Array.from({ length: 200 }, (_, i) => `ref-${i}-${' '.repeat(400)}`)
      await persistEntries(stateDir, 'agent:main:big', [
        { customType: 'openclaw:scratchpad:notes', data: notes },
        { customType: 'openclaw:scratchpad:refs', data: refs },
      ])
      const saved = await readPersisted(stateDir, 'agent:main:big')
      expect(saved['openclaw:scratchpad:notes']).toBe(notes)
      expect(saved['openclaw:scratchpad:refs']).toEqual(refs)
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  })
})
