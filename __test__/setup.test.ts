// `openclaw-context setup` (bin/lib/setup.mjs) without OpenClaw: what it plans for a given config, the lines it
// prints, and its refusals. The real CLI (config get / set, a second run, the allowlist) runs in
// npm run test:plugin-install.
import { describe, expect, it } from 'vitest'
// @ts-ignore plain .mjs, typed by use
import { cmdSetup, configSetLine, planSetup, PLUGIN_ID } from '../bin/lib/setup.mjs'

const sink = () => {
  let text = ''
  return { write: (s: string) => ((text += s), true), get text() { return text } }
}
const paths = (changes: { path: string }[]) => changes.map((c) => c.path)

describe('planSetup', () => {
  it('on a config without the plugin entry: enable it and allow its conversation hooks, nothing else', () => {
    const plan = planSetup({ plugins: undefined })
    expect(paths(plan.changes)).toEqual([`plugins.entries.${PLUGIN_ID}.enabled`, `plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess`])
    expect(plan.changes.map((c: { value: unknown }) => c.value)).toEqual([true, true])
    expect(plan.blocked).toBeUndefined()
  })

  it('after the install (entry enabled): only allowConversationAccess; then nothing', () => {
    const installed = { entries: { [PLUGIN_ID]: { enabled: true } } }
    expect(paths(planSetup({ plugins: installed }).changes)).toEqual([`plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess`])
    const done = { entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true } } } }
    const plan = planSetup({ plugins: done })
    expect(plan.changes).toEqual([])
    expect(plan.unchanged).toHaveLength(2)
  })

  it('an existing allowlist gets the plugin appended; an absent or empty one is left alone', () => {
    const withAllow = planSetup({ plugins: { allow: ['memory-core'] } })
    const allow = withAllow.changes.find((c: { path: string }) => c.path === 'plugins.allow')
    expect(allow.value).toEqual(['memory-core', PLUGIN_ID])
    expect(allow.was).toEqual(['memory-core'])
    expect(paths(planSetup({ plugins: { allow: [] } }).changes)).not.toContain('plugins.allow')
    expect(paths(planSetup({ plugins: { allow: ['memory-core', PLUGIN_ID] } }).changes)).not.toContain('plugins.allow')
  })

  it('a denied plugin stays denied: blocked, with the reason', () => {
    expect(planSetup({ plugins: { deny: [PLUGIN_ID] } }).blocked).toMatch(/plugins\.deny lists context-native/)
  })

  it('--replace adds the compaction mode and provider, and keeps what is already set', () => {
    const plan = planSetup({ plugins: {}, compaction: { provider: 'other' } }, { replace: true })
    const provider = plan.changes.find((c: { path: string }) => c.path === 'agents.defaults.compaction.provider')
    expect(provider).toMatchObject({ value: PLUGIN_ID, was: 'other' })
    expect(paths(plan.changes)).toContain(`plugins.entries.${PLUGIN_ID}.config.compaction.mode`)
    const done = planSetup(
      { plugins: { entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true }, config: { compaction: { mode: 'replace' } } } } }, compaction: { provider: PLUGIN_ID } },
      { replace: true },
    )
    expect(done.changes).toEqual([])
  })
})

describe('openclaw-context setup', () => {
  it('--print prints pasteable openclaw config set lines, strict JSON, shell-quoted', async () => {
    const out = sink()
    expect(await cmdSetup(['--print'], { out, err: sink() })).toBe(0)
    expect(out.text).toContain(`openclaw config set plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess 'true' --strict-json`)
    expect(configSetLine({ path: 'a.b', value: "it's" })).toBe(`openclaw config set a.b '"it'\\''s"' --strict-json`)
  })

  it('without a runnable openclaw CLI: exit 1, the reason, and the lines to run by hand; nothing written', async () => {
    const out = sink()
    const err = sink()
    expect(await cmdSetup(['--openclaw', '/nonexistent/openclaw'], { out, err })).toBe(1)
    expect(err.text).toMatch(/could not run \/nonexistent\/openclaw/)
    expect(err.text).toContain('openclaw config set plugins.entries.context-native.hooks.allowConversationAccess')
    expect(out.text).toBe('')
  })

  it('an unexpected argument is a usage error (exit 2)', async () => {
    const err = sink()
    expect(await cmdSetup(['now'], { out: sink(), err })).toBe(2)
    expect(err.text).toMatch(/unexpected argument "now"/)
  })
})
