// `openclaw-context doctor [stateDir]`: is the plugin working, and where it is not, why and what fixes it.
//
// One verdict per capability (the scratchpad block, the gauge, checkpoints, the restore after the last compaction,
// offloading, named entries, references, the compaction mode, retention), each `ok`, `degraded` or `off`, with the
// reason and the one command or setting that fixes it. Two sources:
//   - OpenClaw's config as OpenClaw resolves it, read through its own CLI (`openclaw config get <path> --json`, as
//     `setup` reads it): the plugin entry enabled, allowed and not denied; its conversation hooks allowed (OpenClaw
//     2026.9.6 blocks before_prompt_build, llm_input, llm_output and agent_end of a non-bundled plugin without
//     `hooks.allowConversationAccess: true`, and before_prompt_build with `hooks.allowPromptInjection: false`);
//     the tool profile, allow and deny lists, globally and per agent (`agents.entries.*.tools`); the compaction
//     provider; the agent runtime per model (`agentRuntime.id: "claude-cli"`).
//   - what the plugin recorded per session under `<stateDir>/context/` (plugin/doctor.ts writes it into the
//     session's record): the last prompt build, the tools the last run's model was sent, the last checkpoint and
//     what it read, the last compaction and whether its restore was delivered, the warnings it logged; the
//     checkpoints and the observation store (parked results, read back or not; named entries).
// `diagnose()` is the verdict logic, pure (tested in __test__/doctor.test.ts); `runDoctor()` gathers its input.
// Exit 0: every verdict ok (or off by the plugin's own setting, or a limit of the runtime the config chose); 1:
// something degraded or off; 2: broken (the plugin
// does not load: not installed, disabled, denied, not in an allowlist, or OpenClaw's config could not be read).
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

/** The plugin id (the key under plugins.entries). */
export const PLUGIN_ID = 'context-native'
/** The session record's entry in the session's observation store (plugin/state.ts SESSION_ENTRY). */
export const SESSION_ENTRY = 'context-native-session'
/** The plugin's tools by the capability that needs the model to be sent them. */
export const TOOLS = { scratchpad: 'session_scratchpad', read: 'scratchpad_read', write: 'scratchpad_write' }
/** The built-in tool profiles whose runs are sent the plugin's tools (openclaw.plugin.json toolMetadata). */
const TOOL_PROFILES = new Set(['coding', 'messaging', 'full'])
/** The capabilities, in the order they are reported. */
export const CAPABILITIES = [
  ['scratchpad', 'scratchpad block'],
  ['gauge', 'gauge'],
  ['checkpoints', 'checkpoints'],
  ['restore', 'restore after compaction'],
  ['offloading', 'offloading'],
  ['entries', 'named entries'],
  ['references', 'references'],
  ['compaction', 'compaction mode'],
  ['retention', 'retention'],
]
/** Exit codes. */
export const EXIT = { ok: 0, degraded: 1, broken: 2 }

const SETUP = 'npx openclaw-context setup'
const INSTALL = 'openclaw plugins install @openclaw/context-native --force --accept-capabilities'
const SETTINGS = `plugins.entries.${PLUGIN_ID}.config`

export const DOCTOR_USAGE = `  doctor [stateDir]          is the plugin working: one verdict per capability (ok / degraded / off), the
                             reason and the fix, from OpenClaw's config (read through its CLI) and the
                             plugin's records under <stateDir>/context (default $OPENCLAW_STATE_DIR or
                             ~/.openclaw); exit 0 all ok, 1 degraded, 2 broken
      --json                 the verdicts as JSON
      --openclaw CMD         the openclaw CLI to run (default: openclaw on PATH)`

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const at = (o, path) => path.reduce((x, k) => (isObject(x) ? x[k] : undefined), o)
const list = (v) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [])
const q = (s) => JSON.stringify(s)
const setJson = (path, value) => `openclaw config set ${path} '${JSON.stringify(value).replace(/'/g, `'\\''`)}' --strict-json`

/** A plugin setting with its default (plugin/settings.ts). */
function setting(pluginConfig, path, dflt) {
  const v = at(pluginConfig, path.split('.'))
  return v === undefined ? dflt : v
}

/** Whether an allow/deny pattern names `tool` (case-insensitive, `*` wildcards, `group:plugins`, the plugin id). */
export function patternMatches(pattern, tool) {
  const p = String(pattern).toLowerCase()
  if (p === 'group:plugins' || p === PLUGIN_ID) return true
  const re = new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`)
  return re.test(tool.toLowerCase())
}

/**
 * Whether a run of an agent is sent `tool` under OpenClaw's tool policy (docs/gateway/config-tools/tool-policy.md):
 * deny wins (global and the agent's), then an allowlist must name it, then the profile (the manifest puts the
 * plugin's tools in `coding`, `messaging` and `full`; an unset profile sends them; `minimal` does not unless
 * `alsoAllow` names them). Returns `{ sent, why?, fix? }`; `where` names the scope in the reason (e.g. `agent work`).
 */
export function toolPolicy(tool, globalTools = {}, agentTools = {}, where = '') {
  const scope = (own) => (own && where ? `agents.entries.${where}.tools` : 'tools')
  for (const [own, tools] of [[true, agentTools], [false, globalTools]]) {
    const hit = list(tools?.deny).find((p) => patternMatches(p, tool))
    if (hit !== undefined) return { sent: false, why: `${scope(own)}.deny lists ${q(hit)}`, fix: `remove ${q(hit)} from ${scope(own)}.deny` }
  }
  const ownAllow = list(agentTools?.allow)
  const allow = ownAllow.length ? ownAllow : list(globalTools?.allow)
  if (allow.length && !allow.some((p) => patternMatches(p, tool))) {
    const path = `${scope(ownAllow.length > 0)}.allow`
    return { sent: false, why: `${path} (an allowlist) does not name it`, fix: `add ${q(tool)} (or "group:plugins") to ${path}` }
  }
  const ownProfile = typeof agentTools?.profile === 'string'
  const profile = ownProfile ? agentTools.profile : globalTools?.profile
  if (typeof profile === 'string' && !TOOL_PROFILES.has(profile)) {
    const also = [...list(agentTools?.alsoAllow), ...list(globalTools?.alsoAllow)]
    if (!also.some((p) => patternMatches(p, tool))) {
      const path = scope(ownProfile)
      const wanted = [...new Set([...list((ownProfile ? agentTools : globalTools)?.alsoAllow), 'session_scratchpad', 'scratchpad_*'])]
      return { sent: false, why: `${path}.profile ${q(profile)} leaves it out`, fix: `${setJson(`${path}.alsoAllow`, wanted)} (or the "coding" profile)` }
    }
  }
  return { sent: true }
}

/** The agents whose tool policy differs: the defaults (`tools`), and each `agents.entries.<id>` with its own `tools`. */
function agentScopes(config) {
  const entries = at(config, ['agents', 'entries'])
  const scopes = [{ id: '', tools: {} }]
  if (isObject(entries)) for (const [id, a] of Object.entries(entries)) if (isObject(a?.tools)) scopes.push({ id, tools: a.tools })
  return scopes
}

/** Where `tool` is not sent: `[{ agent, why, fix }]` over the defaults and every agent with its own tool policy. */
function toolGaps(config, tool) {
  const globalTools = at(config, ['tools']) ?? {}
  return agentScopes(config).flatMap(({ id, tools }) => {
    const r = toolPolicy(tool, globalTools, tools, id)
    return r.sent ? [] : [{ agent: id || 'every agent', why: r.why, fix: r.fix }]
  })
}

/** The models that run on the Claude Code runtime (`agentRuntime.id: "claude-cli"`, or a legacy `claude-cli/` ref). */
export function claudeCliModels(config) {
  const found = new Set()
  const isCli = (o) => at(o, ['agentRuntime', 'id']) === 'claude-cli'
  const models = (o, prefix = '') => {
    if (isObject(o)) for (const [ref, m] of Object.entries(o)) if (isCli(m)) found.add(prefix + ref)
  }
  models(at(config, ['agents', 'defaults', 'models']))
  const entries = at(config, ['agents', 'entries'])
  if (isObject(entries)) for (const a of Object.values(entries)) models(at(a, ['models']))
  const providers = at(config, ['models', 'providers'])
  if (isObject(providers)) {
    for (const [p, prov] of Object.entries(providers)) {
      if (isCli(prov)) found.add(`${p}/*`)
      for (const m of Array.isArray(prov?.models) ? prov.models : []) if (isCli(m) && typeof m.id === 'string') found.add(`${p}/${m.id}`)
    }
  }
  for (const ref of [at(config, ['agents', 'defaults', 'model', 'primary']), at(config, ['agents', 'defaults', 'model'])]) {
    if (typeof ref === 'string' && ref.startsWith('claude-cli/')) found.add(ref)
  }
  return [...found].sort()
}

/** Why the plugin does not load at all, from the config (`{ why, fix }`), else undefined. */
function notLoaded(config) {
  const plugins = at(config, ['plugins']) ?? {}
  if (plugins.enabled === false) return { why: 'plugins.enabled is false: OpenClaw loads no plugin', fix: 'openclaw config set plugins.enabled true --strict-json' }
  const entry = at(plugins, ['entries', PLUGIN_ID])
  const byPath = list(at(plugins, ['load', 'paths'])).some((p) => p.includes(PLUGIN_ID))
  const installs = at(plugins, ['installs', PLUGIN_ID])
  if (!isObject(entry) && !byPath && !installs) return { why: `no plugins.entries.${PLUGIN_ID}: the plugin is not installed`, fix: INSTALL }
  if (list(plugins.deny).includes(PLUGIN_ID)) return { why: `plugins.deny lists ${PLUGIN_ID}`, fix: `remove ${PLUGIN_ID} from plugins.deny` }
  if (entry?.enabled === false) return { why: `plugins.entries.${PLUGIN_ID}.enabled is false`, fix: SETUP }
  const allow = list(plugins.allow)
  if (allow.length && !allow.includes(PLUGIN_ID)) return { why: `plugins.allow is an allowlist without ${PLUGIN_ID}`, fix: SETUP }
  const gaugeAt = setting(entry?.config, 'gauge.gaugeAt', 0.7)
  const checkpointAt = setting(entry?.config, 'gauge.checkpointAt', 0.8)
  if (typeof gaugeAt === 'number' && typeof checkpointAt === 'number' && gaugeAt > checkpointAt) {
    return { why: `${SETTINGS}.gauge.gaugeAt (${gaugeAt}) is above gauge.checkpointAt (${checkpointAt}): the plugin refuses to load (InvalidSettings)`, fix: `openclaw config unset ${SETTINGS}.gauge` }
  }
  return undefined
}

/** Which conversation hooks OpenClaw blocks, from the entry's `hooks` policy (`{ why, hooks }`), else undefined. */
function hooksBlocked(config) {
  const hooks = at(config, ['plugins', 'entries', PLUGIN_ID, 'hooks']) ?? {}
  if (hooks.allowConversationAccess !== true) {
    return {
      why: `hooks blocked: OpenClaw runs no before_prompt_build, llm_input, llm_output or agent_end of the plugin (plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess ${hooks.allowConversationAccess === undefined ? 'unset' : `is ${q(hooks.allowConversationAccess)}`})`,
      fix: SETUP,
      promptBuild: true,
      llmInput: true,
    }
  }
  if (hooks.allowPromptInjection === false) {
    return {
      why: `hooks blocked: OpenClaw runs no before_prompt_build of the plugin (plugins.entries.${PLUGIN_ID}.hooks.allowPromptInjection is false)`,
      fix: `openclaw config unset plugins.entries.${PLUGIN_ID}.hooks.allowPromptInjection`,
      promptBuild: true,
      llmInput: false,
    }
  }
  return undefined
}

const when = (iso) => (typeof iso === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '?')
/** The session whose evidence `pick` returns latest (by its `at`): `{ session, value }`, else undefined. */
function latest(sessions, pick) {
  let best
  for (const s of sessions) {
    const value = pick(s)
    if (value && (!best || String(value.at ?? '') > String(best.value.at ?? ''))) best = { session: s, value }
  }
  return best
}
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * The verdicts. `config`: `{ plugins, tools, agents, models }` as `openclaw config get` returns them (undefined when
 * unset), or `{ error }` when OpenClaw's CLI could not say. `sessions`: per session the plugin's records, `{ sessionKey,
 * record?, checkpoint?: { id, trigger, createdAt, noMessages }, parked, readBack, entries, error? }`.
 * Returns `{ status: 'ok' | 'degraded' | 'broken', exitCode, broken?, verdicts: [{ capability, label, status, reason,
 * fix?, chosen? }], warnings: [{ cause, message, at, sessionKey }], sessions }`.
 */
export function diagnose({ config, sessions = [] }) {
  const verdicts = []
  const add = (capability, status, reason, fix, extra = {}) => {
    const label = CAPABILITIES.find(([c]) => c === capability)[1]
    verdicts.push({ capability, label, status, reason, ...(fix ? { fix } : {}), ...extra })
  }
  const warnings = sessions
    .flatMap((s) => Object.entries(s.record?.evidence?.warnings ?? {}).map(([cause, w]) => ({ cause, message: w?.message ?? '', at: w?.at, sessionKey: s.sessionKey })))
    .sort((a, b) => String(b.at).localeCompare(String(a.at)))
  const summary = { sessions: sessions.length, withRecord: sessions.filter((s) => s.record).length }

  const broken = config?.error ? { why: `OpenClaw's config could not be read: ${config.error}`, fix: 'pass --openclaw <path to the openclaw CLI>' } : notLoaded(config)
  if (broken) {
    for (const [capability] of CAPABILITIES) add(capability, 'off', `the plugin does not run: ${broken.why}`, broken.fix)
    return { status: 'broken', exitCode: EXIT.broken, broken, verdicts, warnings, ...summary }
  }

  const pc = at(config, ['plugins', 'entries', PLUGIN_ID, 'config']) ?? {}
  const blocked = hooksBlocked(config)
  const onOff = (path) => `openclaw config set ${SETTINGS}.${path} true --strict-json`
  const cliModels = claudeCliModels(config)
  const provider = at(config, ['agents', 'defaults', 'compaction', 'provider'])
  const providerSelected = provider === PLUGIN_ID
  const gapText = (gaps) => gaps.map((g) => `${g.why}${g.agent === 'every agent' ? '' : ` (agent ${g.agent})`}`).join('; ')

  // --- the scratchpad block ------------------------------------------------------------------------
  const build = latest(sessions, (s) => s.record?.evidence?.promptBuild)
  if (setting(pc, 'scratchpad.enabled', true) === false) add('scratchpad', 'off', `${SETTINGS}.scratchpad.enabled is false`, onOff('scratchpad.enabled'), { chosen: true })
  else if (blocked?.promptBuild) add('scratchpad', 'degraded', `${blocked.why}: no scratchpad block reaches the model`, blocked.fix)
  else {
    const gaps = toolGaps(config, TOOLS.scratchpad)
    if (gaps.length) add('scratchpad', 'degraded', `the model is not sent session_scratchpad, so it cannot save to it: ${gapText(gaps)}`, gaps[0].fix)
    else if (build) add('scratchpad', 'ok', `before_prompt_build runs; last prompt build ${when(build.value.at)} (${build.session.sessionKey}): ${build.value.block ? 'the block was prepended' : 'the scratchpad was empty'}`)
    else add('scratchpad', 'ok', 'before_prompt_build is allowed; no prompt build recorded yet')
  }

  // --- the gauge -------------------------------------------------------------------------------------
  if (blocked?.promptBuild) add('gauge', 'degraded', `${blocked.why}: no gauge line, no 80 % checkpoint`, blocked.fix)
  else if (build && build.value.gauge === 'no-window') {
    add('gauge', 'degraded', `no context window known at the last prompt build (${build.session.sessionKey}, ${when(build.value.at)}${build.value.runtime ? `, runtime ${build.value.runtime}` : ''}): no gauge line, no 80 % checkpoint`, 'set the model\'s window: models.providers.anthropic.models[].contextTokens (claude-cli), or the plugin\'s contextWindow setting')
  } else if (build) add('gauge', 'ok', `last prompt build: ${build.value.window ? `${build.value.window.toLocaleString('en-US')}-token window` : 'window known'}${build.value.tokens !== undefined ? `, ${build.value.tokens.toLocaleString('en-US')} tokens` : ''}${build.value.gauge === 'line' ? ', gauge line shown' : ' (below the gauge threshold)'}`)
  else add('gauge', 'ok', `before_prompt_build is allowed${cliModels.length ? `; under claude-cli (${cliModels.join(', ')}) the window is the one OpenClaw reports or the anthropic model's contextTokens` : ''}; no prompt build recorded yet`)

  // --- checkpoints -------------------------------------------------------------------------------------
  const checkpointsOn = setting(pc, 'checkpoints.enabled', true) !== false
  const cps = sessions.filter((s) => s.checkpoint)
  const lastCp = latest(sessions, (s) => (s.checkpoint ? { ...s.checkpoint, at: s.checkpoint.createdAt } : undefined))
  const lastCpEvidence = latest(sessions, (s) => s.record?.evidence?.checkpoint)
  if (!checkpointsOn) add('checkpoints', 'off', `${SETTINGS}.checkpoints.enabled is false: no checkpoint, no restore`, onOff('checkpoints.enabled'), { chosen: true })
  else if (lastCp?.value.noMessages || (lastCpEvidence && lastCpEvidence.value.messages === 0)) {
    const where = lastCp?.value.noMessages ? lastCp : lastCpEvidence
    add('checkpoints', 'degraded', `the last compaction checkpoint (${where.session.sessionKey}${where.value.id ? `, ${where.value.id}` : ''}) had no messages to read${where.value.source ? ` (${where.value.source})` : ''}: its restore holds only the state files`, providerSelected ? undefined : `${setJson('agents.defaults.compaction.provider', PLUGIN_ID)} (the plugin then gets the exact messages compacted)`)
  } else if (blocked?.promptBuild) add('checkpoints', 'degraded', `${blocked.why}: no checkpoint at 80 % (compaction checkpoints are still written${cps.length ? `: ${plural(cps.length, 'session')} have one` : ''})`, blocked.fix)
  else if (lastCp) add('checkpoints', 'ok', `${plural(cps.length, 'session')} with checkpoints; last ${lastCp.value.id} (${lastCp.value.trigger}) ${when(lastCp.value.createdAt)} in ${lastCp.session.sessionKey}${lastCpEvidence?.value.source ? `, from ${lastCpEvidence.value.source}` : ''}`)
  else add('checkpoints', 'ok', 'enabled; none written yet (at 80 % of the window and at each compaction)')

  // --- the restore after the last compaction -----------------------------------------------------------
  const compacted = sessions.filter((s) => (s.record?.compactions ?? 0) > 0)
  const undelivered = compacted.filter((s) => {
    const r = s.record
    // A record from before the plugin kept evidence cannot tell; one waiting is not late.
    if (r.restorePending || !r.evidence) return false
    const ev = r.evidence
    if (ev.restoreDelivered && ev.restoreDelivered.compaction >= r.compactions) return false
    // Nothing to deliver by design: replace mode (the summary is the restore), nothing compacted, checkpoints off then.
    if (ev.compaction && ev.compaction.n >= r.compactions && ['replaced', 'nothing-compacted', 'disabled'].includes(ev.compaction.restore)) return false
    return true
  })
  const pending = compacted.filter((s) => s.record.restorePending)
  if (!checkpointsOn) add('restore', 'off', `${SETTINGS}.checkpoints.enabled is false`, onOff('checkpoints.enabled'), { chosen: true })
  else if (blocked?.promptBuild) add('restore', 'degraded', `${blocked.why}: a restore is never delivered${pending.length ? ` (${plural(pending.length, 'session')} with one waiting)` : ''}`, blocked.fix)
  else if (undelivered.length) {
    const s = undelivered[0]
    const why = s.record.evidence?.compaction?.restore === 'no-checkpoint' ? 'no checkpoint was written for it' : 'no restore was delivered after it'
    add('restore', 'degraded', `compaction ${s.record.compactions} of ${s.sessionKey}: ${why}${undelivered.length > 1 ? ` (and ${plural(undelivered.length - 1, 'other session')})` : ''}`, 'npx openclaw-context inspect shows its checkpoints; the warnings below say what failed')
  } else if (compacted.length) {
    const d = latest(compacted, (s) => s.record.evidence?.restoreDelivered)
    add('restore', 'ok', `${plural(compacted.length, 'session')} compacted${d ? `; last restore delivered ${when(d.value.at)} (${d.session.sessionKey}, compaction ${d.value.compaction})` : ''}${pending.length ? `; ${pending.length} waiting for the next prompt build` : ''}`)
  } else add('restore', 'ok', 'no compaction yet: the first prompt after one will carry the restore')

  // --- offloading ---------------------------------------------------------------------------------------
  const offloadOn = setting(pc, 'offload.enabled', true) !== false
  const parked = sessions.reduce((n, s) => n + (s.parked ?? 0), 0)
  const readBack = sessions.reduce((n, s) => n + (s.readBack ?? 0), 0)
  const lastRun = latest(sessions, (s) => s.record?.evidence?.run)
  const readGaps = toolGaps(config, TOOLS.read)
  if (!offloadOn) add('offloading', 'off', `${SETTINGS}.offload.enabled is false`, onOff('offload.enabled'), { chosen: true })
  else if (blocked?.llmInput) add('offloading', 'off', `${blocked.why}: the plugin never learns that a run's model can call scratchpad_read, so no result is parked`, blocked.fix)
  else if (readGaps.length) add('offloading', 'off', `the model is not sent scratchpad_read, so large results stay whole: ${gapText(readGaps)}`, readGaps[0].fix)
  else if (lastRun && lastRun.value.read === false) add('offloading', 'off', `the last run (${lastRun.session.sessionKey}, ${when(lastRun.value.at)}) was not sent scratchpad_read (a channel's or sub-agent's tool policy, tools.byProvider): its large results stayed whole`, 'allow scratchpad_read in the tool policy of that run')
  // A limit of the runtime the config chose for those models: shown, not counted in the exit code.
  else if (cliModels.length) add('offloading', 'degraded', `large results are not parked in runs on the claude-cli runtime (${cliModels.join(', ')}): OpenClaw calls no tool-result middleware there; other runs park them`, 'none in the plugin: a limit of that runtime (docs/plugin.md "Under the claude-cli runtime")', { chosen: true })
  else add('offloading', 'ok', `scratchpad_read is sent; ${plural(parked, 'result')} parked${parked ? `, ${readBack} read back` : ''}${lastRun ? `; last run ${when(lastRun.value.at)}` : ''}`)

  // --- named entries -----------------------------------------------------------------------------------
  const named = sessions.reduce((n, s) => n + (s.entries ?? 0), 0)
  const writeGaps = toolGaps(config, TOOLS.write)
  if (!offloadOn) add('entries', 'off', `${SETTINGS}.offload.enabled is false (the entry tools are not registered)`, onOff('offload.enabled'), { chosen: true })
  else if (writeGaps.length) add('entries', 'off', `the model is not sent scratchpad_write: ${gapText(writeGaps)}`, writeGaps[0].fix)
  else add('entries', 'ok', `scratchpad_write / _edit / _list / _delete are sent${at(config, ['tools', 'toolSearch']) === false ? '' : " (through Tool Search's catalog)"}; ${plural(named, 'named entry', 'named entries')}`)

  // --- references ----------------------------------------------------------------------------------------
  if (!offloadOn) add('references', 'off', `${SETTINGS}.offload.enabled is false`, onOff('offload.enabled'), { chosen: true })
  else add('references', 'ok', '{{observation:<id or name>}} in other tools\' arguments is expanded (before_tool_call)')

  // --- the compaction mode ---------------------------------------------------------------------------------
  const mode = setting(pc, 'compaction.mode', 'default')
  if (mode === 'replace' && !providerSelected) add('compaction', 'degraded', `${SETTINGS}.compaction.mode is "replace" but agents.defaults.compaction.provider is ${provider === undefined ? 'unset' : q(provider)}: OpenClaw never asks the plugin, its own LLM summary is used`, `${SETUP} --replace`)
  else if (mode === 'replace') add('compaction', 'ok', 'replace: the checkpoint is the compaction summary, no model call')
  else if (providerSelected) add('compaction', 'ok', 'default, with the provider: the checkpoint reads the exact messages compacted; OpenClaw writes its own summary')
  else add('compaction', 'ok', "default: OpenClaw's summary, the checkpoint from its transcript (the compaction provider would hand over the exact messages)")

  // --- retention -------------------------------------------------------------------------------------------
  if (setting(pc, 'retention.enabled', true) === false) add('retention', 'off', `${SETTINGS}.retention.enabled is false: nothing removes idle sessions' data`, `${onOff('retention.enabled')}, or run npx openclaw-context gc`, { chosen: true })
  else add('retention', 'ok', `sessions idle ${setting(pc, 'retention.idleDays', 30)} days are removed, in the gateway every ${setting(pc, 'retention.intervalMinutes', 60)} minutes`)

  const counted = verdicts.filter((v) => v.status !== 'ok' && !v.chosen)
  const status = counted.length ? 'degraded' : 'ok'
  return { status, exitCode: counted.length ? EXIT.degraded : EXIT.ok, verdicts, warnings, ...summary }
}

/** The report as text. */
export function formatDoctor(r) {
  const out = [`openclaw-context doctor ${r.stateDir ?? ''}`.trimEnd()]
  out.push(`  ${r.sessions === 0 ? 'no sessions recorded yet: from the config only' : `${plural(r.sessions, 'session')} recorded`}`)
  if (r.broken) out.push(`  BROKEN: ${r.broken.why}`, `    fix: ${r.broken.fix}`)
  else {
    const w = Math.max(...r.verdicts.map((v) => v.label.length))
    for (const v of r.verdicts) {
      out.push(`  ${v.status.padEnd(9)}${v.label.padEnd(w + 2)}${v.reason}`)
      if (v.fix && v.status !== 'ok') out.push(`  ${' '.repeat(9 + w + 2)}fix: ${v.fix}`)
    }
  }
  if (r.warnings.length) {
    out.push('', 'warnings the plugin logged (once per process and cause):')
    for (const x of r.warnings.slice(0, 10)) out.push(`  ${when(x.at)}  ${x.sessionKey}  ${x.message}`)
  }
  for (const e of r.errors ?? []) out.push(`  note: ${e}`)
  const chosen = r.verdicts.filter((v) => v.status !== 'ok' && v.chosen).map((v) => v.label)
  out.push('', r.status === 'ok' ? (chosen.length ? `ok but what the config chose: ${chosen.join(', ')}` : 'all ok') : r.status === 'broken' ? 'broken: the plugin does not run (exit 2)' : `degraded: ${r.verdicts.filter((v) => v.status !== 'ok' && !v.chosen).map((v) => v.label).join(', ')} (exit 1)`)
  return out.join('\n')
}

/** `openclaw config get <path> --json` (async, so that the reads run side by side): the value, undefined when unset. */
function configGet(cmd, path, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, ['config', 'get', path, '--json'], { env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', (e) => reject(Object.assign(new Error(`could not run ${cmd}: ${e.message}`), { code: 'OpenClawNotFound' })))
    child.on('close', (status) => {
      let parsed
      try {
        parsed = JSON.parse(stdout)
      } catch {
        return reject(new Error(`${cmd} config get ${path} printed no JSON (exit ${status}): ${(stderr || stdout).trim().slice(-400)}`))
      }
      if (status === 0) return resolve(parsed)
      if (/valid but unset/i.test(parsed?.error?.message ?? '')) return resolve(undefined)
      reject(new Error(`${cmd} config get ${path} failed: ${parsed?.error?.message ?? stderr.trim()}`))
    })
  })
}

/** OpenClaw's resolved config, the parts the verdicts read; `{ error }` when its CLI could not say. */
export async function readOpenClawConfig(cmd, env = process.env) {
  try {
    const [plugins, tools, agents, models] = await Promise.all(['plugins', 'tools', 'agents', 'models'].map((p) => configGet(cmd, p, env)))
    return { plugins, tools, agents, models }
  } catch (e) {
    return { error: e.message }
  }
}

/** The session keys the plugin has records of: its activity records, else its checkpoints' keys. */
function sessionKeys(native, contextDir) {
  const keys = new Set()
  const sessionsDir = join(contextDir, 'sessions')
  if (existsSync(sessionsDir)) {
    for (const f of readdirSync(sessionsDir)) {
      if (!f.endsWith('.json')) continue
      try {
        const k = JSON.parse(readFileSync(join(sessionsDir, f), 'utf8')).session_key
        if (typeof k === 'string') keys.add(k)
      } catch {
        // an unreadable activity record: its session is found by its checkpoint, if any
      }
    }
  }
  const cpDir = join(contextDir, 'checkpoints')
  if (existsSync(cpDir)) {
    for (const d of readdirSync(cpDir)) {
      try {
        const latest = JSON.parse(readFileSync(join(cpDir, d, '_latest.json'), 'utf8'))
        const cp = native.readCheckpoint({ yaml: readFileSync(join(cpDir, d, `${latest.checkpoint_id}.yaml`), 'utf8') })
        if (cp?.meta?.sessionKey) keys.add(cp.meta.sessionKey)
      } catch {
        // no readable latest checkpoint
      }
    }
  }
  return [...keys].sort()
}

/** What the plugin recorded for one session (see `diagnose` for the shape); read errors go in `error`. */
export function readSessionRecords(native, stateDir, sessionKey) {
  const s = { sessionKey, parked: 0, readBack: 0, entries: 0 }
  try {
    s.record = JSON.parse(native.readObservationSync({ stateDir, sessionKey, name: SESSION_ENTRY, mode: 'full' }).content)
  } catch (e) {
    if (e?.code !== 'NotFound') s.error = `session record: ${e?.code ?? 'Error'}: ${e?.message ?? e}`
  }
  try {
    const cp = native.readCheckpoint({ stateDir, sessionKey })
    if (cp) {
      const openItems = cp.openItems ?? cp.open_items ?? []
      s.checkpoint = {
        id: cp.meta.checkpointId,
        trigger: cp.meta.trigger,
        createdAt: cp.meta.createdAt,
        noMessages: openItems.some((i) => /had no messages to read/.test(typeof i === 'string' ? i : (i?.text ?? JSON.stringify(i)))),
      }
    }
  } catch (e) {
    s.error = `checkpoint: ${e?.code ?? 'Error'}: ${e?.message ?? e}`
  }
  try {
    for (const e of native.listObservationsSync({ stateDir, sessionKey })) {
      if (e.name.startsWith('context-native-')) continue
      if (e.toolName) {
        s.parked++
        if (e.lastReadAt) s.readBack++
      } else s.entries++
    }
  } catch (e) {
    if (e?.code !== 'NotFound') s.error = `observations: ${e?.code ?? 'Error'}: ${e?.message ?? e}`
  }
  return s
}

/**
 * The plugin's store: `<stateDir>/context`, or the `stateDir` setting's when the plugin config moves it (`~`
 * expanded as the plugin expands it).
 */
function storeDir(config, stateDir, env) {
  const own = at(config, ['plugins', 'entries', PLUGIN_ID, 'config', 'stateDir'])
  if (typeof own !== 'string' || !own) return stateDir
  return own.startsWith('~') ? join(env.HOME ?? '', own.slice(1)) : own
}

/** Gathers the config and the records, and diagnoses. `native` is the binding (bin/lib/native.mjs). */
export async function runDoctor({ stateDir, openclaw = 'openclaw', env = process.env, native }) {
  const config = await readOpenClawConfig(openclaw, { ...env, OPENCLAW_STATE_DIR: stateDir })
  const store = config.error ? stateDir : storeDir(config, stateDir, env)
  const contextDir = join(store, 'context')
  const sessions = existsSync(contextDir) ? sessionKeys(native, contextDir).map((k) => readSessionRecords(native, store, k)) : []
  const r = diagnose({ config, sessions })
  return { stateDir, store, ...r, errors: sessions.filter((s) => s.error).map((s) => `${s.sessionKey}: ${s.error}`) }
}

/** The CLI command; returns the exit code. */
export async function cmdDoctor(args, { out = process.stdout, err = process.stderr, env = process.env } = {}) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, openclaw: { type: 'string', default: 'openclaw' } },
  })
  if (positionals.length > 1) {
    err.write(`openclaw-context doctor: takes at most one state dir, got ${positionals.length} arguments\n\n${DOCTOR_USAGE}\n`)
    return EXIT.broken
  }
  const { defaultOpenClawDir } = await import('./openclaw-store.mjs')
  const { native } = await import('./native.mjs')
  const stateDir = positionals[0] ?? defaultOpenClawDir(env)
  const r = await runDoctor({ stateDir, openclaw: values.openclaw, env, native })
  out.write(values.json ? `${JSON.stringify(r, null, 2)}\n` : `${formatDoctor(r)}\n`)
  return r.exitCode
}
