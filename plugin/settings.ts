// The plugin's settings (`plugins.entries.context-native.config` in openclaw.json): one table, SETTINGS, that
// openclaw.plugin.json's configSchema, docs/configuration.md and resolveSettings all follow
// (__test__/plugin-settings.test.ts checks that the three agree). To add a setting: a row in SETTINGS (a new
// group also in SETTING_GROUPS and in ContextNativeSettings), then `node scripts/plugin-manifest.mjs` rewrites the
// manifest's configSchema / uiHints and the docs table from it.
//
// OpenClaw validates the config against the manifest's configSchema when it is written (`openclaw config set`)
// and loaded. What a JSON schema cannot say is checked here, at register(), before any hook runs: gaugeAt above
// checkpointAt, a relative stateDir (after `~` expansion), and, for a host that skipped the schema, every type
// and range again. A bad value stops the plugin at load with an InvalidSettings error that names the setting,
// instead of failing in a hook on every turn with a message that names none.
//
// The route-2 pi extension (examples/pi-extension) reads the same table: its resolveSettings, scratchpadLimits and
// nudgeSettings are these, and its settings.schema.json is written from configSchema() by the same script.
import type { ScratchpadLimits, ScratchpadNudgeSettings } from '@openclaw/context-native'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/** Where the settings live in openclaw.json; messages name each setting under it. */
export const SETTINGS_PATH = 'plugins.entries.context-native.config'

/**
 * The most characters the plugin reads back when it loads a session's persisted scratchpad (notes, plan and refs
 * as one JSON entry of the observation store). The store's default read cap (50,000 characters, meant for the
 * model's scratchpad_read) does not bound it: refs are limited by count and by the block's token budget, not by
 * characters, and a ref of spaces or repeated punctuation is many characters per token (50 refs fill more than
 * 200,000 characters at the default 2,000-token budget). The entry is the plugin's own, written by it; reading
 * it whole at every size the settings allow is what keeps a restart from failing with TooLarge.
 */
export const SCRATCHPAD_READ_MAX_CHARS = 0xffff_ffff

export interface ContextNativeSettings {
  /** Where checkpoints, incremental state and offloaded observations live; default: OpenClaw's state dir. */
  stateDir?: string
  contextWindow: number
  scratchpad: {
    enabled: boolean
    maxTokens: number
    notesMaxChars: number
    planMaxChars: number
    refsMax: number
    nudgeAfterTurns: number
    nudgeOnPlanDetected: number
    nudgeAfterCompaction: number
    nudgeTurnsSinceLastUse: number
  }
  gauge: { gaugeAt: number; checkpointAt: number }
  checkpoints: { enabled: boolean; restoreMaxTokens: number; history: boolean }
  offload: { enabled: boolean; thresholdBytes: number; ttlSeconds: number; quotaBytes: number }
  retention: { enabled: boolean; idleDays: number; intervalMinutes: number; maxDirsPerRun: number; firstRunDelaySeconds: number }
  /**
   * With `agents.defaults.compaction.provider: "context-native"`: 'default' checkpoints the exact messages
   * being compacted and keeps OpenClaw's LLM summary (the restore follows it); 'replace' returns the restore
   * text (at most `maxTokens`) as the summary, so a compaction costs no model call.
   */
  compaction: { mode: 'default' | 'replace'; maxTokens: number }
}

/** One setting: its dot path under SETTINGS_PATH, its type, default and range, and what it does. */
export interface SettingSpec {
  path: string
  type: 'boolean' | 'integer' | 'number' | 'string'
  default?: boolean | number | string
  /** Smallest value (numbers), inclusive unless `exclusiveMinimum`. */
  minimum?: number
  exclusiveMinimum?: boolean
  maximum?: number
  /** The only values allowed (the 0/1 switches; a string setting's choices). */
  enum?: (number | string)[]
  description: string
  label?: string
  placeholder?: string
}

/** Objects of the settings tree and their descriptions (the leaves are in SETTINGS). */
export const SETTING_GROUPS: Record<string, string> = {
  scratchpad: 'The session scratchpad (seed 000: enabled, maxTokens; seed 002: three spaces and nudges).',
  gauge: 'The context gauge line and the 80% checkpoint (seed 001, section 6).',
  checkpoints: 'YAML checkpoints before compaction and their restore after it (seed 001).',
  offload: 'Large tool results parked in the observation store (seed 003).',
  compaction:
    "The compaction provider `context-native` (used when agents.defaults.compaction.provider selects it; `openclaw-context setup --replace` does): it checkpoints the exact messages being compacted.",
  retention:
    "Disk reclaimed while the gateway runs (plugin/retention.ts): sessions idle longer than idleDays lose their checkpoints, state files, observations and persisted scratchpad; active sessions lose expired observations (never their latest checkpoint, nor what it or the scratchpad's refs name). Runs off the turn's path; `openclaw-context gc` runs it on demand.",
}

export const SETTINGS: readonly SettingSpec[] = [
  {
    path: 'stateDir',
    type: 'string',
    description:
      "Where checkpoints, incremental state and offloaded observations live: an absolute path, or one starting with ~/ (your home). Default: OpenClaw's state directory ($OPENCLAW_STATE_DIR, else ~/.openclaw). A relative path is refused.",
    label: 'State directory',
    placeholder: '~/.openclaw',
  },
  {
    path: 'contextWindow',
    type: 'integer',
    default: 200_000,
    minimum: 1,
    maximum: 100_000_000,
    description: "Context window in tokens when OpenClaw does not report the run's context budget.",
  },
  {
    path: 'scratchpad.enabled',
    type: 'boolean',
    default: true,
    description: 'Register session_scratchpad and prepend the scratchpad to every prompt. false: no tool, no prepend.',
    label: 'Session scratchpad',
  },
  {
    path: 'scratchpad.maxTokens',
    type: 'integer',
    default: 2000,
    minimum: 100,
    maximum: 50_000,
    description: 'Token budget of the whole prepended block (at least 100: its frame alone takes about 27 tokens).',
    label: 'Scratchpad token budget',
  },
  { path: 'scratchpad.notesMaxChars', type: 'integer', default: 4000, minimum: 1, maximum: 100_000, description: 'Limit of the notes space in characters.' },
  { path: 'scratchpad.planMaxChars', type: 'integer', default: 2000, minimum: 1, maximum: 100_000, description: 'Limit of the plan space in characters.' },
  { path: 'scratchpad.refsMax', type: 'integer', default: 50, minimum: 1, maximum: 1000, description: 'Most refs kept.' },
  {
    path: 'scratchpad.nudgeAfterTurns',
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 10_000,
    description: 'When the scratchpad is empty after N turns, nudge to populate it. 0: off.',
    label: 'Nudge when empty after N turns (0 = off)',
  },
  {
    path: 'scratchpad.nudgeOnPlanDetected',
    type: 'integer',
    default: 0,
    enum: [0, 1],
    description: "1: when the assistant writes a plan (numbered list, 'Step N', 3+ task items) and the scratchpad is empty, nudge. 0: off.",
    label: 'Nudge when a plan is detected (1 = on)',
  },
  {
    path: 'scratchpad.nudgeAfterCompaction',
    type: 'integer',
    default: 0,
    enum: [0, 1],
    description: '1: after a context compaction, nudge to save or review the scratchpad. 0: off.',
    label: 'Nudge after compaction (1 = on)',
  },
  {
    path: 'scratchpad.nudgeTurnsSinceLastUse',
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 10_000,
    description: 'When the scratchpad has content but was not updated in N turns, nudge to review it. 0: off.',
    label: 'Nudge when unused for N turns (0 = off)',
  },
  {
    path: 'gauge.gaugeAt',
    type: 'number',
    default: 0.7,
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    description: 'Utilisation (fraction of the context window) from which the gauge line is shown. At most gauge.checkpointAt.',
    label: 'Show the context gauge from (0-1)',
  },
  {
    path: 'gauge.checkpointAt',
    type: 'number',
    default: 0.8,
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    description: 'Utilisation from which a checkpoint is written. At least gauge.gaugeAt.',
    label: 'Checkpoint from (0-1)',
  },
  { path: 'checkpoints.enabled', type: 'boolean', default: true, description: 'Write checkpoints at the threshold and before compaction, and restore after it.' },
  {
    path: 'checkpoints.restoreMaxTokens',
    type: 'integer',
    default: 800,
    minimum: 400,
    maximum: 20_000,
    description:
      'Token cap of the injected restore text (at least 400: the frame with the shortened working state alone took 128-153 tokens on the bundled sessions).',
    label: 'Restore text token cap',
  },
  {
    path: 'checkpoints.history',
    type: 'boolean',
    default: true,
    description:
      "Keep each compaction's messages word for word in the session's observation store (history-<n>: host text left out, credentials redacted), which the model searches with scratchpad_read; the restore then ends with one line saying so. Counts in offload.quotaBytes and goes with the session. Kept where checkpoints are (checkpoints.enabled); the line only where offload.enabled registers scratchpad_read.",
  },
  {
    path: 'offload.enabled',
    type: 'boolean',
    default: true,
    description: 'Offload tool results over the threshold (tool-result middleware) and register scratchpad_read.',
  },
  {
    path: 'offload.thresholdBytes',
    type: 'integer',
    default: 4096,
    minimum: 2048,
    maximum: 104_857_600,
    description:
      'Results whose text is larger than this many bytes are parked (from 2048: the observation handed back in their place, with its preview, is about 1,700 characters).',
    label: 'Offload tool results over (bytes)',
  },
  {
    path: 'offload.ttlSeconds',
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 31_536_000,
    description:
      "How long a parked result lives, in seconds. 0 (the default): as long as the session can still ask for it, i.e. until the session is reset or deleted, or idle past retention.idleDays. A result parked in place of OpenClaw's copy is the only full copy, so a lifetime set here should outlast the session's use.",
  },
  {
    path: 'offload.quotaBytes',
    type: 'integer',
    default: 536_870_912,
    minimum: 1_048_576,
    maximum: 68_719_476_736,
    description:
      "Most bytes one session's parked results may take. A result that would go over it is not parked: the model gets it as OpenClaw gives it. Nothing the model may still read is evicted to make room.",
  },
  {
    path: 'compaction.mode',
    type: 'string',
    default: 'default',
    enum: ['default', 'replace'],
    description:
      "'default': OpenClaw's own LLM summary is kept and the restore follows it. 'replace': the restore text is the summary, so a compaction makes no model call.",
    label: 'Compaction mode',
  },
  {
    path: 'compaction.maxTokens',
    type: 'integer',
    default: 2000,
    minimum: 400,
    maximum: 20_000,
    description: "Token cap of the summary in 'replace' mode (the restore rendered from the compacted messages).",
    label: 'Replace-mode summary token cap',
  },
  { path: 'retention.enabled', type: 'boolean', default: true, description: 'Run the retention policy on a schedule in the gateway process.' },
  {
    path: 'retention.idleDays',
    type: 'number',
    default: 30,
    minimum: 1,
    maximum: 3650,
    description: 'A session with no activity (no write, no prompt build) for longer than this many days is removed.',
    label: 'Remove sessions idle for (days)',
  },
  { path: 'retention.intervalMinutes', type: 'integer', default: 60, minimum: 1, maximum: 10_080, description: 'Minutes between two runs in one process.' },
  {
    path: 'retention.maxDirsPerRun',
    type: 'integer',
    default: 200,
    minimum: 1,
    maximum: 100_000,
    description: 'Session directories one run visits at most; the next run continues after the last one.',
  },
  { path: 'retention.firstRunDelaySeconds', type: 'integer', default: 60, minimum: 0, maximum: 86_400, description: 'Delay of the first run after the gateway starts.' },
]

/** The `InvalidSettings` error: `setting` is the full path in openclaw.json. */
export class InvalidSettingsError extends Error {
  readonly code = 'InvalidSettings'
  readonly setting: string
  // No parameter properties: the source also runs under Node's type stripping (npm run test:host).
  constructor(setting: string, message: string) {
    super(`context-native: ${setting} ${message}`)
    this.name = 'InvalidSettingsError'
    this.setting = setting
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The range of a setting as the docs and messages say it. */
export function describeRange(s: SettingSpec): string {
  if (s.enum) return s.enum.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(' or ')
  if (s.type === 'boolean') return 'true or false'
  if (s.type === 'string') return s.path === 'stateDir' ? 'absolute path or ~/...' : 'string'
  const low = s.minimum === undefined ? '' : s.exclusiveMinimum ? `> ${s.minimum}` : `>= ${s.minimum}`
  const high = s.maximum === undefined ? '' : `<= ${s.maximum}`
  const kind = s.type === 'integer' ? 'integer' : 'number'
  return [kind, [low, high].filter(Boolean).join(', ')].filter(Boolean).join(' ')
}

/** `~` and `~/...` (or `~\...`) under the home directory; anything else unchanged. */
export function expandHome(p: string, home: string = homedir()): string {
  if (p === '~') return home
  if (p.startsWith('~/') || p.startsWith('~\\')) return join(home, p.slice(2))
  return p
}

function checkValue(spec: SettingSpec, value: unknown, base: string): void {
  const name = `${base}.${spec.path}`
  const got = JSON.stringify(value)
  if (spec.type === 'boolean') {
    if (typeof value !== 'boolean') throw new InvalidSettingsError(name, `must be true or false (a JSON boolean, not a string), got ${got}`)
    return
  }
  if (spec.type === 'string') {
    if (typeof value !== 'string' || value.trim() === '') throw new InvalidSettingsError(name, `must be a non-empty string, got ${got}`)
    if (spec.enum && !spec.enum.includes(value)) throw new InvalidSettingsError(name, `must be ${describeRange(spec)}, got ${got}`)
    return
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || (spec.type === 'integer' && !Number.isInteger(value))) {
    throw new InvalidSettingsError(name, `must be ${spec.type === 'integer' ? 'an integer' : 'a number'} (${describeRange(spec)}), got ${got}`)
  }
  const outside =
    (spec.enum && !spec.enum.includes(value)) ||
    (spec.minimum !== undefined && (spec.exclusiveMinimum ? value <= spec.minimum : value < spec.minimum)) ||
    (spec.maximum !== undefined && value > spec.maximum)
  if (outside) throw new InvalidSettingsError(name, `must be ${describeRange(spec)}, got ${got}`)
}

/**
 * The settings with their defaults filled in, checked: throws InvalidSettingsError naming the setting for an
 * unknown key, a wrong type, a value out of range, gaugeAt above checkpointAt, or a stateDir that is relative
 * after `~` expansion. `home` is where `~` points (the user's home directory by default); `path` is where the
 * settings come from, for the messages (SETTINGS_PATH by default).
 */
export function resolveSettings(raw: unknown = {}, { home, path = SETTINGS_PATH }: { home?: string; path?: string } = {}): ContextNativeSettings {
  const SETTINGS_PATH = path // every message below names the setting under `path`
  if (raw === undefined || raw === null) raw = {}
  if (!isObject(raw)) throw new InvalidSettingsError(SETTINGS_PATH, `must be an object, got ${JSON.stringify(raw)}`)
  const known = new Set(SETTINGS.map((s) => s.path))
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const path = `${prefix}${k}`
      if (known.has(path)) continue
      if (k in SETTING_GROUPS && prefix === '') {
        if (!isObject(v)) throw new InvalidSettingsError(`${SETTINGS_PATH}.${path}`, `must be an object, got ${JSON.stringify(v)}`)
        walk(v, `${path}.`)
        continue
      }
      const names = SETTINGS.map((s) => s.path).join(', ')
      throw new InvalidSettingsError(`${SETTINGS_PATH}.${path}`, `is not a setting of the plugin; its settings: ${names}`)
    }
  }
  walk(raw, '')

  const value = (spec: SettingSpec): unknown => {
    const [group, key] = spec.path.includes('.') ? spec.path.split('.') : [undefined, spec.path]
    const holder = group ? (raw as Record<string, unknown>)[group] : raw
    const v = isObject(holder) ? holder[key as string] : undefined
    if (v === undefined) return spec.default
    checkValue(spec, v, SETTINGS_PATH)
    return v
  }
  const out: Record<string, unknown> = {}
  for (const spec of SETTINGS) {
    const v = value(spec)
    if (v === undefined) continue
    const [group, key] = spec.path.includes('.') ? spec.path.split('.') : [undefined, spec.path]
    if (group) ((out[group] ??= {}) as Record<string, unknown>)[key as string] = v
    else out[key as string] = v
  }
  const settings = out as unknown as ContextNativeSettings

  if (settings.stateDir !== undefined) {
    const expanded = expandHome(settings.stateDir, home)
    if (!isAbsolute(expanded)) {
      throw new InvalidSettingsError(
        `${SETTINGS_PATH}.stateDir`,
        `must be an absolute path or start with ~/, got ${JSON.stringify(settings.stateDir)}: a relative path would land under whatever directory the Gateway runs in`,
      )
    }
    settings.stateDir = expanded
  }
  if (settings.gauge.gaugeAt > settings.gauge.checkpointAt) {
    throw new InvalidSettingsError(
      `${SETTINGS_PATH}.gauge.gaugeAt`,
      `(${settings.gauge.gaugeAt}) must not be above gauge.checkpointAt (${settings.gauge.checkpointAt}): the gauge line shows from gaugeAt, the checkpoint is written from checkpointAt`,
    )
  }
  return settings
}

/** openclaw.plugin.json's `configSchema`, as SETTINGS defines it. */
export function configSchema(): Record<string, unknown> {
  const leaf = (s: SettingSpec): Record<string, unknown> => {
    const o: Record<string, unknown> = { type: s.type }
    if (s.path === 'stateDir') {
      o.minLength = 1
      // Absolute (POSIX or Windows) or under the home directory: a relative path is refused when it is set.
      o.pattern = '^(~([/\\\\]|$)|/|[A-Za-z]:[/\\\\]|\\\\\\\\)'
    }
    if (s.enum) o.enum = s.enum
    if (s.minimum !== undefined) o[s.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum'] = s.minimum
    if (s.maximum !== undefined) o.maximum = s.maximum
    if (s.default !== undefined) o.default = s.default
    o.description = s.description
    return o
  }
  const properties: Record<string, Record<string, unknown>> = {}
  for (const s of SETTINGS) {
    const [group, key] = s.path.includes('.') ? s.path.split('.') : [undefined, s.path]
    if (!group) {
      properties[key as string] = leaf(s)
      continue
    }
    const g = (properties[group] ??= { type: 'object', additionalProperties: false, description: SETTING_GROUPS[group], properties: {} })
    ;(g.properties as Record<string, unknown>)[key as string] = leaf(s)
  }
  return { type: 'object', additionalProperties: false, properties }
}

/** The top-level settings the route-2 pi extension (examples/pi-extension) reads; the rest are the plugin's own. */
export const PI_EXTENSION_SETTINGS = ['stateDir', 'contextWindow', 'scratchpad', 'gauge', 'checkpoints', 'offload'] as const

/** examples/pi-extension/settings.schema.json, as SETTINGS defines it (the part the extension reads). */
export function piExtensionSchema(): Record<string, unknown> {
  const all = configSchema().properties as Record<string, unknown>
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment:
      'Settings of the route-2 extension (createContextNativeExtension({ settings })), written by scripts/plugin-manifest.mjs from plugin/settings.ts: the plugin\'s own settings table. This folder is not an OpenClaw plugin: OpenClaw\'s plugin loader must not load it.',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(PI_EXTENSION_SETTINGS.map((k) => [k, all[k]])),
  }
}

/** openclaw.plugin.json's `uiHints`, as SETTINGS defines them. */
export function uiHints(): Record<string, Record<string, string>> {
  const hints: Record<string, Record<string, string>> = {}
  for (const s of SETTINGS) {
    if (!s.label) continue
    hints[s.path] = { label: s.label, ...(s.placeholder ? { placeholder: s.placeholder } : {}) }
  }
  return hints
}

/** The settings as the Markdown table of docs/configuration.md (one row per setting, in SETTINGS order). */
export function settingsTable(): string {
  const rows = SETTINGS.map((s) => {
    const def = s.default === undefined ? "OpenClaw's state dir" : `\`${JSON.stringify(s.default)}\``
    return `| \`${s.path}\` | ${describeRange(s)} | ${def} | ${s.description.replace(/\|/g, '\\|')} |`
  })
  return ['| Setting | Type and range | Default | What it does |', '| --- | --- | --- | --- |', ...rows].join('\n')
}

/** The scratchpad's limits as the binding takes them (applyScratchpadAction, the tool definition, the block). */
export function scratchpadLimits(settings: Pick<ContextNativeSettings, 'scratchpad'>): ScratchpadLimits {
  const { notesMaxChars, planMaxChars, refsMax, maxTokens } = settings.scratchpad
  return { notesMaxChars, planMaxChars, refsMax, maxTokens }
}

/** The nudge thresholds as evaluateScratchpadNudge takes them (seed 002; 0 is off). */
export function nudgeSettings(settings: Pick<ContextNativeSettings, 'scratchpad'>): ScratchpadNudgeSettings {
  const { nudgeAfterTurns, nudgeOnPlanDetected, nudgeAfterCompaction, nudgeTurnsSinceLastUse } = settings.scratchpad
  return { nudgeAfterTurns, nudgeOnPlanDetected, nudgeAfterCompaction, nudgeTurnsSinceLastUse }
}
