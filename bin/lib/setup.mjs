// `openclaw-context setup`: what OpenClaw needs beyond `openclaw plugins install @openclaw/context-native`,
// in one idempotent step, written through OpenClaw's own CLI (`openclaw config set --batch-json`, one validated
// write) so OpenClaw checks every value against its schema and the plugin's configSchema. Nothing else in the
// user's config changes; what is already as needed is left alone and reported as such.
//
// What it sets (OpenClaw 2026.9.6):
//   plugins.entries.context-native.enabled = true
//       the entry is on (the install enables it; a user may have disabled it since)
//   plugins.entries.context-native.hooks.allowConversationAccess = true
//       without it OpenClaw blocks the plugin's before_prompt_build and llm_output hooks for a non-bundled
//       plugin ("typed hook ... blocked"): no scratchpad block, no gauge, no 80% checkpoint
//   plugins.allow += context-native   only when the user keeps an allowlist (an absent list allows all;
//                                     creating one would switch every other plugin off)
//   with --replace (opt-in, the compaction mode with no model call):
//   plugins.entries.context-native.config.compaction.mode = "replace"
//   agents.defaults.compaction.provider = "context-native"
// A plugin listed in plugins.deny stays denied: setup says so and exits 1 rather than overrule the user.
//
// This file reads no native binding: it runs from `npx @openclaw/context-native setup` anywhere.
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'

/** The plugin id (openclaw.plugin.json `id`, the key under plugins.entries). */
export const PLUGIN_ID = 'context-native'
/** The compaction provider the plugin registers in replace mode (`agents.defaults.compaction.provider`). */
export const COMPACTION_PROVIDER_ID = 'context-native'

export const SETUP_USAGE = `  setup                      make OpenClaw ready for the installed plugin (after
                             \`openclaw plugins install @openclaw/context-native\`): enable its entry, allow
                             its conversation hooks, add it to plugins.allow when an allowlist exists;
                             idempotent, changes nothing else, says what it changed
      --replace              also select replace mode: compactions use the plugin's checkpoint as the summary
                             (no model call)
      --print                print the \`openclaw config set\` lines instead of running them
      --dry-run              let OpenClaw validate the changes without writing them
      --openclaw CMD         the openclaw CLI to run (default: openclaw on PATH)`

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const at = (obj, path) => path.reduce((o, k) => (isObject(o) ? o[k] : undefined), obj)

/**
 * The changes setup makes to a config whose `plugins` and `agents.defaults.compaction` are given (as
 * `openclaw config get --json` returns them; undefined when unset). Returns `{ changes, unchanged, blocked }`:
 * `changes` are `{ path, value, was, why }` in the order they are written.
 */
export function planSetup({ plugins, compaction } = {}, { replace = false } = {}) {
  const entry = at(plugins, ['entries', PLUGIN_ID])
  const wanted = [
    { path: `plugins.entries.${PLUGIN_ID}.enabled`, value: true, was: at(entry, ['enabled']), why: 'the plugin entry is on' },
    {
      path: `plugins.entries.${PLUGIN_ID}.hooks.allowConversationAccess`,
      value: true,
      was: at(entry, ['hooks', 'allowConversationAccess']),
      why: 'OpenClaw runs its before_prompt_build and llm_output hooks (scratchpad block, gauge, checkpoint)',
    },
  ]
  const allow = at(plugins, ['allow'])
  if (Array.isArray(allow) && allow.length > 0) {
    wanted.push({
      path: 'plugins.allow',
      value: allow.includes(PLUGIN_ID) ? allow : [...allow, PLUGIN_ID],
      was: allow,
      why: 'your plugins.allow allowlist lets it load',
    })
  }
  if (replace) {
    wanted.push({
      path: `plugins.entries.${PLUGIN_ID}.config.compaction.mode`,
      value: 'replace',
      was: at(entry, ['config', 'compaction', 'mode']),
      why: 'the plugin answers compactions with its checkpoint',
    })
    wanted.push({
      path: 'agents.defaults.compaction.provider',
      value: COMPACTION_PROVIDER_ID,
      was: at(compaction, ['provider']),
      why: 'OpenClaw asks the plugin, not a model, for the compaction summary',
    })
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)
  const deny = at(plugins, ['deny'])
  return {
    changes: wanted.filter((w) => !same(w.value, w.was)),
    unchanged: wanted.filter((w) => same(w.value, w.was)),
    blocked: Array.isArray(deny) && deny.includes(PLUGIN_ID) ? `plugins.deny lists ${PLUGIN_ID}: remove it there to use the plugin` : undefined,
  }
}

/** A shell-quoted `openclaw config set` line for one change. */
export function configSetLine(change) {
  const json = JSON.stringify(change.value)
  return `openclaw config set ${change.path} '${json.replace(/'/g, `'\\''`)}' --strict-json`
}

/** Runs the openclaw CLI; `{ status, stdout, stderr }`, status null when it could not start. */
function runOpenClaw(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1' } })
  if (r.error) return { status: null, stdout: '', stderr: r.error.message }
  return r
}

/** `openclaw config get <path> --json`: the value, or undefined when the path is unset. */
function configGet(cmd, path) {
  const r = runOpenClaw(cmd, ['config', 'get', path, '--json'])
  if (r.status === null) throw Object.assign(new Error(`could not run ${cmd}: ${r.stderr}`), { code: 'OpenClawNotFound' })
  let parsed
  try {
    parsed = JSON.parse(r.stdout)
  } catch {
    throw new Error(`${cmd} config get ${path} printed no JSON (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`)
  }
  if (r.status === 0) return parsed
  if (/valid but unset/i.test(parsed?.error?.message ?? '')) return undefined
  throw new Error(`${cmd} config get ${path} failed: ${parsed?.error?.message ?? r.stderr.trim()}`)
}

/** The CLI command: returns the exit code; writes its report to `out` (stdout) and errors to `err`. */
export async function cmdSetup(args, { out = process.stdout, err = process.stderr } = {}) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      replace: { type: 'boolean', default: false },
      print: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      openclaw: { type: 'string', default: 'openclaw' },
    },
  })
  if (positionals.length > 0) {
    err.write(`openclaw-context setup: unexpected argument ${JSON.stringify(positionals[0])}\n\n${SETUP_USAGE}\n`)
    return 2
  }
  const replace = values.replace
  if (values.print) {
    // Every line, whatever the config holds: each sets a value, so pasting them twice changes nothing more.
    const { changes } = planSetup({}, { replace })
    out.write(`# after \`openclaw plugins install @openclaw/context-native\`:\n${changes.map(configSetLine).join('\n')}\n`)
    out.write('# if your config has a plugins.allow list, add context-native to it too.\n')
    return 0
  }
  const cmd = values.openclaw
  let current
  try {
    current = { plugins: configGet(cmd, 'plugins'), compaction: replace ? configGet(cmd, 'agents.defaults.compaction') : undefined }
  } catch (e) {
    err.write(`openclaw-context setup: ${e.message}\n`)
    if (e.code === 'OpenClawNotFound') {
      err.write(`Pass --openclaw <path to the openclaw CLI>, or run these yourself:\n${planSetup({}, { replace }).changes.map(configSetLine).join('\n')}\n`)
    }
    return 1
  }
  const plan = planSetup(current, { replace })
  if (plan.blocked) {
    err.write(`openclaw-context setup: ${plan.blocked}; nothing changed\n`)
    return 1
  }
  for (const u of plan.unchanged) out.write(`already set  ${u.path} = ${JSON.stringify(u.value)}\n`)
  if (plan.changes.length === 0) {
    out.write('nothing to change: OpenClaw is set up for context-native\n')
    return 0
  }
  const batch = plan.changes.map(({ path, value }) => ({ path, value }))
  const r = runOpenClaw(cmd, ['config', 'set', '--batch-json', JSON.stringify(batch), ...(values['dry-run'] ? ['--dry-run'] : [])])
  if (r.status !== 0) {
    err.write(`openclaw-context setup: openclaw config set refused the changes (exit ${r.status}); nothing changed:\n${(r.stderr + r.stdout).trim()}\n`)
    return 1
  }
  const verb = values['dry-run'] ? 'would set' : 'set'
  for (const c of plan.changes) {
    out.write(`${verb}${' '.repeat(Math.max(1, 13 - verb.length))}${c.path} = ${JSON.stringify(c.value)} (was ${c.was === undefined ? 'unset' : JSON.stringify(c.was)}): ${c.why}\n`)
  }
  if (!values['dry-run']) out.write('A running Gateway picks the change up; `openclaw plugins inspect context-native --runtime` shows the hooks.\n')
  return 0
}
