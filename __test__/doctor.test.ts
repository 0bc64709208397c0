// `openclaw-context doctor` (bin/lib/doctor.mjs): the verdicts for configs as `openclaw config get` returns them and
// the records the plugin writes (plugin/doctor.ts), each state; and the records read back from a real state dir
// written by the binding. The real OpenClaw (config read through its CLI, the plugin's records from real runs) is in
// npm run test:plugin-install and npm run test:real.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-ignore plain .mjs, typed by use
import { claudeCliModels, diagnose, EXIT, formatDoctor, PLUGIN_ID, readSessionRecords, SESSION_ENTRY, toolPolicy } from '../bin/lib/doctor.mjs'
import * as native from '../index.js'

type Verdict = { capability: string; status: string; reason: string; fix?: string; chosen?: boolean }
type Report = { status: string; exitCode: number; verdicts: Verdict[]; warnings: { cause: string; message: string }[]; broken?: { why: string; fix: string } }

const setUp = { entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true } } } }
const installed = { entries: { [PLUGIN_ID]: { enabled: true } } }
const withConfig = (pluginConfig: object) => ({ entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true }, config: pluginConfig } } })
const verdict = (r: Report, capability: string) => r.verdicts.find((v) => v.capability === capability) as Verdict
const statuses = (r: Report) => Object.fromEntries(r.verdicts.map((v) => [v.capability, v.status]))
const at = '2026-12-06T05:00:00.000Z'
/** A session whose records show everything working: a prompt build with the block, a run sent the tools, a compaction and its restore delivered. */
const healthy = (sessionKey = 'agent:main:main') => ({
  sessionKey,
  parked: 2,
  readBack: 1,
  entries: 1,
  checkpoint: { id: 'cp_002', trigger: 'compaction', createdAt: at, noMessages: false },
  record: {
    compactions: 1,
    compactionSerial: 1,
    evidence: {
      promptBuild: { at, block: true, gauge: 'line', window: 128000, tokens: 92000 },
      run: { at, read: true, scratchpad: true, entries: true },
      checkpoint: { at, trigger: 'compaction', source: 'before_compaction', messages: 12 },
      compaction: { at, n: 1, restore: 'pending' },
      restoreDelivered: { at, compaction: 1 },
    },
  },
})

describe('diagnose: the plugin does not run (exit 2)', () => {
  it.each([
    ['no entry: not installed', { plugins: { entries: {} } }, /not installed/, /openclaw plugins install @openclaw\/context-native/],
    ['the entry disabled', { plugins: { entries: { [PLUGIN_ID]: { enabled: false } } } }, /enabled is false/, /setup/],
    ['denied', { plugins: { ...setUp, deny: [PLUGIN_ID] } }, /plugins\.deny lists context-native/, /remove context-native from plugins\.deny/],
    ['an allowlist without it', { plugins: { ...setUp, allow: ['memory-core'] } }, /allowlist without context-native/, /setup/],
    ['plugins off', { plugins: { ...setUp, enabled: false } }, /plugins\.enabled is false/, /plugins\.enabled true/],
    ['gaugeAt above checkpointAt', { plugins: withConfig({ gauge: { gaugeAt: 0.9, checkpointAt: 0.8 } }) }, /InvalidSettings/, /config unset .*\.gauge/],
    ["OpenClaw's config unreadable", { error: 'could not run openclaw: ENOENT' }, /could not be read/, /--openclaw/],
  ])('%s', (_name, config, why, fix) => {
    const r: Report = diagnose({ config, sessions: [healthy()] })
    expect(r.status).toBe('broken')
    expect(r.exitCode).toBe(EXIT.broken)
    expect(r.broken?.why).toMatch(why)
    expect(r.broken?.fix).toMatch(fix)
    expect(r.verdicts.every((v) => v.status === 'off')).toBe(true)
  })

  it('a plugin loaded by path (plugins.load.paths) without an entry still runs', () => {
    const r: Report = diagnose({ config: { plugins: { load: { paths: ['/x/extensions/context-native'] }, entries: { [PLUGIN_ID]: { hooks: { allowConversationAccess: true } } } } } })
    expect(r.status).toBe('ok')
  })
})

describe('diagnose: the config', () => {
  it('after plugins install without setup: the hooks blocked, setup the fix, exit 1', () => {
    const r: Report = diagnose({ config: { plugins: installed }, sessions: [] })
    expect(r.exitCode).toBe(EXIT.degraded)
    for (const c of ['scratchpad', 'gauge', 'checkpoints', 'restore']) {
      expect(verdict(r, c).status).toBe('degraded')
      expect(verdict(r, c).reason).toMatch(/hooks blocked.*allowConversationAccess unset/)
      expect(verdict(r, c).fix).toBe('npx openclaw-context setup')
    }
    expect(verdict(r, 'offloading')).toMatchObject({ status: 'off', fix: 'npx openclaw-context setup' })
    // What does not need the conversation hooks works.
    expect(statuses(r)).toMatchObject({ entries: 'ok', references: 'ok', compaction: 'ok', retention: 'ok' })
    expect(formatDoctor({ ...r, sessions: 0 })).toMatch(/degraded scratchpad block +hooks blocked[^\n]*\n +fix: npx openclaw-context setup/)
  })

  it('allowPromptInjection false blocks before_prompt_build only: offloading still works', () => {
    const plugins = { entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true, allowPromptInjection: false } } } }
    const r: Report = diagnose({ config: { plugins } })
    expect(verdict(r, 'scratchpad')).toMatchObject({ status: 'degraded', fix: `openclaw config unset plugins.entries.${PLUGIN_ID}.hooks.allowPromptInjection` })
    expect(verdict(r, 'offloading').status).toBe('ok')
  })

  it('after setup, no sessions yet: all ok from the config, exit 0', () => {
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [] })
    expect(r.status).toBe('ok')
    expect(r.exitCode).toBe(EXIT.ok)
    expect(verdict(r, 'scratchpad').reason).toMatch(/no prompt build recorded yet/)
    expect(verdict(r, 'restore').reason).toMatch(/no compaction yet/)
    expect(formatDoctor({ ...r, sessions: 0 })).toMatch(/no sessions recorded yet[\s\S]*\nall ok$/)
  })

  it('tools.profile "minimal": offloading and named entries off, the scratchpad degraded, each saying why; alsoAllow the fix', () => {
    const r: Report = diagnose({ config: { plugins: setUp, tools: { profile: 'minimal' } }, sessions: [healthy()] })
    expect(r.exitCode).toBe(EXIT.degraded)
    expect(verdict(r, 'offloading')).toMatchObject({ status: 'off' })
    expect(verdict(r, 'offloading').reason).toMatch(/not sent scratchpad_read, so large results stay whole: tools\.profile "minimal" leaves it out/)
    expect(verdict(r, 'offloading').fix).toMatch(/^openclaw config set tools\.alsoAllow '\["session_scratchpad","scratchpad_\*"\]' --strict-json/)
    expect(verdict(r, 'entries').status).toBe('off')
    expect(verdict(r, 'scratchpad').status).toBe('degraded')
    expect(verdict(r, 'gauge').status).toBe('ok')
  })

  it.each([
    ['coding', { profile: 'coding' }, true],
    ['messaging', { profile: 'messaging' }, true],
    ['full', { profile: 'full' }, true],
    ['no profile', {}, true],
    ['minimal', { profile: 'minimal' }, false],
    ['minimal with alsoAllow', { profile: 'minimal', alsoAllow: ['scratchpad_*'] }, true],
    ['deny by name', { deny: ['scratchpad_read'] }, false],
    ['deny by wildcard, any case', { deny: ['SCRATCHPAD_*'] }, false],
    ['deny group:plugins', { deny: ['group:plugins'] }, false],
    ['deny wins over allow', { allow: ['scratchpad_read'], deny: ['scratchpad_read'] }, false],
    ['an allowlist naming it', { allow: ['read', 'scratchpad_read'] }, true],
    ['an allowlist by plugin id', { allow: [PLUGIN_ID] }, true],
    ['an allowlist without it', { allow: ['read', 'exec'] }, false],
  ])('tool policy %s: scratchpad_read sent %s', (_name, tools, sent) => {
    expect(toolPolicy('scratchpad_read', tools).sent).toBe(sent)
  })

  it("an agent's own tool policy is reported with the agent's name and path", () => {
    const config = { plugins: setUp, tools: { profile: 'coding' }, agents: { entries: { main: {}, bot: { tools: { deny: ['scratchpad_read'] } } } } }
    const r: Report = diagnose({ config })
    expect(verdict(r, 'offloading').reason).toMatch(/agents\.entries\.bot\.tools\.deny lists "scratchpad_read" \(agent bot\)/)
    expect(verdict(r, 'offloading').fix).toBe('remove "scratchpad_read" from agents.entries.bot.tools.deny')
    expect(verdict(r, 'entries').status).toBe('ok')
  })

  it('the claude-cli runtime for a model: offloading degraded (no middleware there), no fix in the plugin, exit 0', () => {
    const config = { plugins: setUp, agents: { defaults: { models: { 'anthropic/claude-sonnet-5': { agentRuntime: { id: 'claude-cli' } } } } } }
    expect(claudeCliModels(config)).toEqual(['anthropic/claude-sonnet-5'])
    expect(claudeCliModels({ models: { providers: { anthropic: { models: [{ id: 'claude-opus-5', agentRuntime: { id: 'claude-cli' } }] } } } })).toEqual(['anthropic/claude-opus-5'])
    const r: Report = diagnose({ config })
    expect(verdict(r, 'offloading')).toMatchObject({ status: 'degraded', chosen: true })
    expect(verdict(r, 'offloading').reason).toMatch(/claude-cli runtime \(anthropic\/claude-sonnet-5\)/)
    // A limit of the runtime the config chose: shown, not counted.
    expect(r.exitCode).toBe(EXIT.ok)
  })

  it('compaction.mode replace without the provider selected: degraded, setup --replace; with it ok', () => {
    const r: Report = diagnose({ config: { plugins: withConfig({ compaction: { mode: 'replace' } }) } })
    expect(verdict(r, 'compaction')).toMatchObject({ status: 'degraded', fix: 'npx openclaw-context setup --replace' })
    const ok: Report = diagnose({ config: { plugins: withConfig({ compaction: { mode: 'replace' } }), agents: { defaults: { compaction: { provider: PLUGIN_ID } } } } })
    expect(verdict(ok, 'compaction')).toMatchObject({ status: 'ok' })
    expect(verdict(ok, 'compaction').reason).toMatch(/^replace/)
  })

  it("a capability the plugin's own setting turns off is off but does not count: exit 0", () => {
    const r: Report = diagnose({ config: { plugins: withConfig({ offload: { enabled: false }, retention: { enabled: false } }) } })
    expect(statuses(r)).toMatchObject({ offloading: 'off', entries: 'off', references: 'off', retention: 'off' })
    expect(verdict(r, 'offloading').chosen).toBe(true)
    expect(verdict(r, 'offloading').fix).toBe(`openclaw config set plugins.entries.${PLUGIN_ID}.config.offload.enabled true --strict-json`)
    expect(r.exitCode).toBe(EXIT.ok)
    expect(formatDoctor({ ...r, sessions: 0 })).toMatch(/\nok but what the config chose: offloading, named entries, references, retention$/)
  })
})

describe('diagnose: the records', () => {
  it('after setup, a session that ran a turn and a compaction: all ok, exit 0', () => {
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [healthy()] })
    expect(r.verdicts.filter((v) => v.status !== 'ok')).toEqual([])
    expect(r.exitCode).toBe(EXIT.ok)
    expect(verdict(r, 'restore').reason).toMatch(/last restore delivered 2026-12-06 05:00 UTC \(agent:main:main, compaction 1\)/)
    expect(verdict(r, 'offloading').reason).toMatch(/2 results parked, 1 read back/)
    expect(verdict(r, 'checkpoints').reason).toMatch(/last cp_002 \(compaction\)/)
  })

  it('a compaction whose restore was never delivered: degraded', () => {
    const s = healthy()
    s.record.compactions = 2
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [s] })
    expect(verdict(r, 'restore').status).toBe('degraded')
    expect(verdict(r, 'restore').reason).toMatch(/compaction 2 of agent:main:main: no restore was delivered after it/)
  })

  it('a record written before the plugin kept evidence: the restore not flagged (it cannot tell)', () => {
    const s = healthy()
    s.record = { compactions: 3, compactionSerial: 3 } as never
    expect(verdict(diagnose({ config: { plugins: setUp }, sessions: [s] }), 'restore').status).toBe('ok')
  })

  it('a restore waiting for the next prompt build, replace mode, nothing compacted: ok', () => {
    const pending = healthy()
    pending.record.compactions = 2
    Object.assign(pending.record, { restorePending: { text: 'x', compaction: 2, at } })
    expect(verdict(diagnose({ config: { plugins: setUp }, sessions: [pending] }), 'restore').status).toBe('ok')
    for (const restore of ['replaced', 'nothing-compacted']) {
      const s = healthy()
      s.record.compactions = 2
      s.record.evidence.compaction = { at, n: 2, restore }
      expect(verdict(diagnose({ config: { plugins: setUp }, sessions: [s] }), 'restore').status).toBe('ok')
    }
  })

  it('a compaction checkpoint with no messages to read: checkpoints degraded, the provider the fix', () => {
    const s = healthy()
    s.checkpoint.noMessages = true
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [s] })
    expect(verdict(r, 'checkpoints').status).toBe('degraded')
    expect(verdict(r, 'checkpoints').reason).toMatch(/cp_002\) had no messages to read/)
    expect(verdict(r, 'checkpoints').fix).toMatch(/agents\.defaults\.compaction\.provider '"context-native"'/)
  })

  it('the last prompt build had no window (claude-cli, none reported): the gauge degraded', () => {
    const s = healthy()
    s.record.evidence.promptBuild = { at, block: true, gauge: 'no-window', runtime: 'claude-cli' } as never
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [s] })
    expect(verdict(r, 'gauge').status).toBe('degraded')
    expect(verdict(r, 'gauge').reason).toMatch(/no context window known.*runtime claude-cli/)
    expect(verdict(r, 'gauge').fix).toMatch(/contextTokens/)
  })

  it("the last run was not sent scratchpad_read (a channel's policy the config does not show): offloading off", () => {
    const s = healthy()
    s.record.evidence.run = { at, read: false, scratchpad: true, entries: false }
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [s] })
    expect(verdict(r, 'offloading').status).toBe('off')
    expect(verdict(r, 'offloading').reason).toMatch(/last run \(agent:main:main.*not sent scratchpad_read/)
  })

  it('the latest evidence wins across sessions', () => {
    const old = healthy('agent:main:old')
    old.record.evidence.run = { at: '2026-12-01T00:00:00.000Z', read: false, scratchpad: true, entries: true }
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [old, healthy()] })
    expect(verdict(r, 'offloading').status).toBe('ok')
  })

  it('warnings the plugin recorded are listed, newest first, with their session', () => {
    const s = healthy()
    Object.assign(s.record.evidence, {
      warnings: {
        'no-read-tool': { at: '2026-12-06T04:00:00.000Z', message: 'context-native: no scratchpad_read in the run' },
        'hooks-blocked': { at, message: 'context-native: hooks blocked' },
      },
    })
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [s] })
    expect(r.warnings.map((w) => w.cause)).toEqual(['hooks-blocked', 'no-read-tool'])
    expect(formatDoctor({ ...r, sessions: 1 })).toMatch(/warnings the plugin logged[^\n]*\n {2}2026-12-06 05:00 UTC {2}agent:main:main {2}context-native: hooks blocked/)
  })
})

describe('readSessionRecords: what the binding reads back from a state dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'doctor-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  it('the session record, the latest checkpoint (no messages flagged), parked results read back and named entries', async () => {
    const sessionKey = 'agent:main:doctor'
    const record = { compactions: 1, compactionSerial: 1, evidence: { restoreDelivered: { at, compaction: 1 } } }
    native.writeObservationSync({ stateDir: dir, sessionKey, name: SESSION_ENTRY, content: JSON.stringify(record) })
    native.writeObservationSync({ stateDir: dir, sessionKey, name: 'findings', content: 'a named entry' })
    const big = 'x'.repeat(10_000)
    const parked = native.offloadObservationSync({ stateDir: dir, sessionKey, content: big, toolName: 'read' })
    native.offloadObservationSync({ stateDir: dir, sessionKey, content: `${big}y`, toolName: 'exec' })
    native.readObservationSync({ stateDir: dir, sessionKey, id: parked.entry!.id, mode: 'head', n: 10 })
    await native.writeCheckpoint({
      stateDir: dir,
      sessionKey,
      trigger: 'compaction',
      tokenUsage: { inputTokens: 1000, contextWindow: 128000 },
      openItems: ['the checkpoint at this compaction had no messages to read (before_compaction)'],
    })
    const s = readSessionRecords(native, dir, sessionKey)
    expect(s.error).toBeUndefined()
    expect(s.record).toEqual(record)
    expect(s).toMatchObject({ parked: 2, readBack: 1, entries: 1 })
    expect(s.checkpoint).toMatchObject({ id: 'cp_001', trigger: 'compaction', noMessages: true })
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [s] })
    expect(verdict(r, 'checkpoints').status).toBe('degraded')
    expect(verdict(r, 'restore').status).toBe('ok')
  })
})

describe('the plugin: one warning per process and cause, recorded for the doctor', async () => {
  const { processState, readRecord } = await import('../plugin/state.ts')
  const { noteEvidence, noteRunEvidence, warnDegraded, warnIfHooksBlocked } = await import('../plugin/doctor.ts')
  const stateDir = mkdtempSync(join(tmpdir(), 'doctor-plugin-'))
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }))
  const logger = () => {
    const warnings: string[] = []
    return { warnings, warn: (m: string) => void warnings.push(m) }
  }
  const settle = () => new Promise((r) => setTimeout(r, 200))

  it('conversation hooks blocked: one warning naming the cause, setup and the doctor, whatever the registrations', () => {
    processState().warned.clear()
    const log = logger()
    const blocked = { plugins: { entries: { [PLUGIN_ID]: { enabled: true } } } }
    for (const registrationMode of ['full', 'discovery', 'full']) warnIfHooksBlocked({ registrationMode, config: blocked, logger: log }, PLUGIN_ID)
    expect(log.warnings).toHaveLength(1)
    expect(log.warnings[0]).toMatch(/^context-native: OpenClaw blocks its conversation hooks \(plugins\.entries\.context-native\.hooks\.allowConversationAccess is not true\).*npx openclaw-context setup.*`openclaw-context doctor` shows what works/)
    processState().warned.clear()
    const ok = logger()
    warnIfHooksBlocked({ registrationMode: 'full', config: { plugins: setUp }, logger: ok }, PLUGIN_ID)
    warnIfHooksBlocked({ registrationMode: 'discovery', config: { plugins: installed }, logger: ok }, PLUGIN_ID)
    expect(ok.warnings).toEqual([])
  })

  it("a run not sent scratchpad_read: warned once per process, recorded in the session with the run's evidence", async () => {
    processState().warned.clear()
    const log = logger()
    const sessionKey = 'agent:main:minimal'
    for (let i = 0; i < 2; i++) noteRunEvidence(log, stateDir, sessionKey, new Set(['session_status']))
    await settle()
    expect(log.warnings).toHaveLength(1)
    expect(log.warnings[0]).toMatch(/a run of agent:main:minimal is not sent scratchpad_read .*not parked; `openclaw-context doctor`/)
    const evidence = (await readRecord(stateDir, sessionKey)).evidence
    expect(evidence?.run).toMatchObject({ read: false, scratchpad: false })
    expect(evidence?.warnings?.['no-read-tool']?.message).toBe(log.warnings[0])
    // The doctor reads it back: offloading off, the warning listed.
    const r: Report = diagnose({ config: { plugins: setUp }, sessions: [readSessionRecords(native, stateDir, sessionKey)] })
    expect(verdict(r, 'offloading').status).toBe('off')
    expect(r.warnings.map((w) => w.cause)).toEqual(['no-read-tool'])
  })

  it('a run sent scratchpad_read: no warning, evidence written once, not again until it changes; a run with no tools says nothing', async () => {
    processState().warned.clear()
    const log = logger()
    const sessionKey = 'agent:main:coding'
    noteRunEvidence(log, stateDir, sessionKey, new Set())
    noteRunEvidence(log, stateDir, sessionKey, new Set(['scratchpad_read', 'session_scratchpad']))
    await settle()
    expect(log.warnings).toEqual([])
    expect((await readRecord(stateDir, sessionKey)).evidence?.run).toMatchObject({ read: true, scratchpad: true })
    expect(noteEvidence(stateDir, sessionKey, 'run', { read: true, scratchpad: true })).toBe(false)
    expect(noteEvidence(stateDir, sessionKey, 'run', { read: false, scratchpad: true })).toBe(true)
  })

  it('a warning without a session is logged now and recorded in the first session seen', async () => {
    processState().warned.clear()
    const { recordWarnings } = await import('../plugin/doctor.ts')
    const log = logger()
    expect(warnDegraded(log, 'no-window', 'no window')).toBe(true)
    expect(warnDegraded(log, 'no-window', 'no window')).toBe(false)
    expect(log.warnings).toEqual(['context-native: no window; `openclaw-context doctor` shows what works and the fix'])
    recordWarnings(stateDir, 'agent:main:first')
    recordWarnings(stateDir, 'agent:main:second')
    await settle()
    expect((await readRecord(stateDir, 'agent:main:first')).evidence?.warnings?.['no-window']?.message).toBe(log.warnings[0])
    expect((await readRecord(stateDir, 'agent:main:second')).evidence).toBeUndefined()
  })
})
