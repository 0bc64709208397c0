#!/usr/bin/env node
// `npm run test:plugin-install`: the plugin as a user installs and sets it up, with the real OpenClaw CLI.
//
// From the tarballs in dist/ (`npm run pack:local -- --host --from-build`; `npm test` packs them first), in a
// fresh OpenClaw state dir in the OS temp dir, under Node 24 (OpenClaw needs >= 24.16):
//   0. with this host's platform tarball missing from the registry (a failed download), the install fails with
//      OpenClaw's requiredPlatformPackages error naming the package, and nothing is installed;
//   1. `openclaw plugins install @openclaw/context-native`, served by a local npm registry on 127.0.0.1
//      (scripts/lib/install-plugin.mjs): OpenClaw's npm path installs the package and this host's platform
//      package (an optional dependency, required by `openclaw.install.requiredPlatformPackages`) and loads the
//      compiled entry without an error;
//   2. `openclaw plugins inspect context-native --runtime --json` before setup: loaded, both tools, and the
//      conversation hooks blocked (what setup is for);
//   3. `openclaw-context setup` (bin/lib/setup.mjs, the installed copy's) drives `openclaw config set`: it reports what it set, the
//      config differs only at those paths, a second run changes nothing (same bytes);
//   4. inspect again: every hook registered, no diagnostics;
//   5. settings: `openclaw config set` refuses what the manifest schema forbids (relative stateDir, TTL 0,
//      "false" for a boolean); gaugeAt above checkpointAt (no JSON schema can say it) stops the plugin at load
//      with a diagnostic naming the setting (plugin/settings.ts);
//   6. a user's plugins.allow list gets the plugin added, the rest of the list kept;
//   7. `setup --replace` (when the plugin's configSchema has compaction.mode, i.e. replace mode exists):
//      the mode and agents.defaults.compaction.provider set, still no diagnostics;
//   doctor (bin/lib/doctor.mjs, the installed copy's): before setup the hooks blocked with setup as the fix (exit 1),
//   and a gateway started then logs the plugin's warning about it once (the plugin is registered several times in
//   the process); after setup, with no session yet, every verdict ok (exit 0).
// Prints `plugin-install: N passed, N failed`. TEST_PLUGIN_INSTALL_KEEP=1 keeps the temp dir.
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostNode, openclawDir, OPENCLAW_VERSION, root } from './host.mjs'
import { findInstalledPackage, installedCli, installPackedPlugin, openclaw, packedTarballs, PLUGIN_ID, setupPlugin } from './lib/install-plugin.mjs'
import { freePort, startGateway } from './lib/harness.mjs'

const t0 = Date.now()
const results = { passed: 0, failed: 0 }
async function check(name, fn) {
  const t = Date.now()
  try {
    const note = await fn()
    results.passed++
    console.log(`ok    ${name}${note ? `: ${note}` : ''} (${((Date.now() - t) / 1000).toFixed(1)} s)`)
  } catch (e) {
    results.failed++
    console.log(`FAIL  ${name}\n      ${String(e?.message ?? e).split('\n').join('\n      ')}`)
  }
}
const assert = (cond, message) => {
  if (!cond) throw new Error(message)
}

const manifest = JSON.parse(readFileSync(join(root, 'openclaw.plugin.json'), 'utf8'))
const { hostPackage } = packedTarballs()
const work = mkdtempSync(join(realpathSync(tmpdir()), 'context-native-plugin-install-'))
const stateDir = join(work, 'state')
const home = join(work, 'home')
const configPath = join(stateDir, 'openclaw.json')
const readConfig = () => JSON.parse(readFileSync(configPath, 'utf8'))
const EXPECTED_TOOLS = manifest.contracts.tools
// Every hook the plugin registers with api.on (the conversation hooks need allowConversationAccess).
const CONVERSATION_HOOKS = ['agent_end', 'before_prompt_build', 'llm_input', 'llm_output']
const hooksInSource = [...new Set([...readdirSync(join(root, 'plugin')).filter((f) => f.endsWith('.ts'))].flatMap((f) => [...readFileSync(join(root, 'plugin', f), 'utf8').matchAll(/api\.on\('(\w+)'/g)].map((m) => m[1])))].sort()

console.log(`plugin-install: openclaw@${OPENCLAW_VERSION} (${openclawDir}), state dir ${stateDir}`)

/** `openclaw plugins inspect context-native --runtime --json`, parsed. */
async function inspectRuntime() {
  const r = await openclaw(['plugins', 'inspect', PLUGIN_ID, '--runtime', '--json'], { stateDir, home })
  assert(r.status === 0, `plugins inspect exited ${r.status}\n${r.stderr}`)
  return JSON.parse(r.stdout)
}

/** `openclaw-context setup [...args]`, the installed copy's, against the state dir. */
const setup = (args = []) => setupPlugin(args, { stateDir, home })

/** The config without the given dot paths (and OpenClaw's `meta` write stamp), as canonical JSON. */
function without(config, paths) {
  const copy = structuredClone(config)
  delete copy.meta
  for (const p of paths) {
    const keys = p.split('.')
    const last = keys.pop()
    const parent = keys.reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), copy)
    if (parent && typeof parent === 'object') delete parent[last]
  }
  const sorted = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v)
  return JSON.stringify(sorted(copy))
}

await check('a platform binary that does not download is an install error naming its package; nothing installed', async () => {
  const elsewhere = join(work, 'no-binary', 'state')
  const r = await installPackedPlugin({ stateDir: elsewhere, withoutBinary: true })
  const out = `${r.stdout}\n${r.stderr}`
  assert(r.status !== 0, `exit ${r.status}:\n${out}`)
  assert(out.includes(`missing or incomplete: ${hostPackage}`), `no error naming ${hostPackage}:\n${out}`)
  assert(!findInstalledPackage(elsewhere), 'a package was left installed')
  assert(!existsSync(join(elsewhere, 'openclaw.json')) || !readFileSync(join(elsewhere, 'openclaw.json'), 'utf8').includes(PLUGIN_ID), 'the plugin was entered in the config')
  return out.match(/left required current-platform package\(s\) missing or incomplete: \S+/)?.[0]
})

let installed
await check('openclaw plugins install @openclaw/context-native (local registry on 127.0.0.1)', async () => {
  installed = await installPackedPlugin({ stateDir, home })
  const out = `${installed.stdout}\n${installed.stderr}`
  assert(installed.status === 0, `exit ${installed.status}\n${out}`)
  assert(/Installed plugin: context-native/.test(out), `no "Installed plugin" line:\n${out}`)
  assert(!/failed during load|error/i.test(out.replace(/^WARNING.*$/gm, '')), `the install reported an error:\n${out}`)
  const fetched = installed.requests.filter((q) => q.path.startsWith('/-/tarballs/')).map((q) => q.path)
  assert(fetched.length === 2, `npm fetched ${JSON.stringify(fetched)}, expected the root and the host platform tarball`)
  return `${fetched.length} tarballs, ${installed.requests.length} registry requests`
})

await check('the managed npm project holds the compiled entry, the manifest and the platform binary', () => {
  const dir = installed?.packageDir ?? findInstalledPackage(stateDir)
  assert(dir, `no @openclaw/context-native under ${stateDir}/npm/projects`)
  for (const f of ['dist/plugin/index.js', 'dist/plugin/package.json', 'openclaw.plugin.json', 'loader.cjs']) assert(existsSync(join(dir, f)), `${f} missing in ${dir}`)
  const nm = join(dir, '..')
  const platform = readdirSync(nm).filter((n) => n.startsWith('context-native-'))
  assert(platform.length === 1, `platform packages installed: ${JSON.stringify(platform)}`)
  const binary = readdirSync(join(nm, platform[0])).filter((f) => f.endsWith('.node'))
  assert(binary.length === 1, `no .node in @openclaw/${platform[0]}`)
  const lock = JSON.parse(readFileSync(join(dir, '../../../package-lock.json'), 'utf8'))
  const optional = Object.entries(lock.packages).filter(([k, v]) => k.includes('/context-native-') && v.optional)
  assert(optional.length === 8, `the lockfile records ${optional.length} optional platform packages, expected 8`)
  return `@openclaw/${platform[0]}/${binary[0]}`
})

await check('inspect --runtime before setup: loaded, both tools, the conversation hooks blocked', async () => {
  const r = await inspectRuntime()
  assert(r.plugin.status === 'loaded', `status ${r.plugin.status}`)
  assert(JSON.stringify([...r.plugin.toolNames].sort()) === JSON.stringify([...EXPECTED_TOOLS].sort()), `tools ${JSON.stringify(r.plugin.toolNames)}`)
  const blocked = r.diagnostics.map((d) => d.message.match(/typed hook "(\w+)" blocked/)?.[1]).filter(Boolean).sort()
  assert(JSON.stringify(blocked) === JSON.stringify(CONVERSATION_HOOKS), `diagnostics: ${JSON.stringify(r.diagnostics.map((d) => d.message))}`)
  return `${r.diagnostics.length} diagnostics, all "allowConversationAccess"`
})

/** `openclaw-context doctor --json`, the installed copy's, against the state dir: `{ status, report }`. */
function doctor() {
  const r = installedCli('doctor', ['--json'], { stateDir, home })
  let report
  try {
    report = JSON.parse(r.stdout)
  } catch {
    throw new Error(`doctor printed no JSON (exit ${r.status}):\n${r.stdout}${r.stderr}`)
  }
  return { status: r.status, report }
}
const verdictsText = (report) => report.verdicts.map((v) => `${v.status} ${v.capability}: ${v.reason}${v.fix ? ` [fix: ${v.fix}]` : ''}`).join('\n')

await check('doctor before setup: the conversation hooks blocked, `setup` the fix, exit 1', () => {
  const { status, report } = doctor()
  assert(status === 1, `exit ${status}\n${verdictsText(report)}`)
  for (const capability of ['scratchpad', 'gauge', 'checkpoints', 'restore', 'offloading']) {
    const v = report.verdicts.find((x) => x.capability === capability)
    assert(v.status !== 'ok' && /hooks blocked/.test(v.reason) && /allowConversationAccess unset/.test(v.reason), `${capability}: ${JSON.stringify(v)}`)
    assert(v.fix === 'npx openclaw-context setup', `${capability}'s fix: ${v.fix}`)
  }
  for (const capability of ['entries', 'references', 'compaction', 'retention']) assert(report.verdicts.find((x) => x.capability === capability).status === 'ok', verdictsText(report))
  return report.verdicts.find((x) => x.capability === 'scratchpad').reason.slice(0, 100)
})

await check("a gateway before setup: the plugin's warning about its blocked hooks once in the gateway's log, naming setup and the doctor", async () => {
  const port = await freePort()
  const config = readConfig()
  const saved = readFileSync(configPath, 'utf8')
  config.gateway = { mode: 'local', bind: 'loopback', port, auth: { mode: 'none' } }
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`)
  const env = { ...process.env, HOME: home, OPENCLAW_STATE_DIR: stateDir, NO_COLOR: '1', OPENCLAW_NO_UPDATE_CHECK: '1' }
  const gw = startGateway({ node: hostNode(), openclawBin: join(openclawDir, 'openclaw.mjs'), port, env, cwd: home })
  try {
    await gw.ready()
    // The plugin is loaded once the gateway listens; give its log a moment.
    for (let waited = 0; !/context-native: OpenClaw blocks/.test(gw.log()) && waited < 15_000; waited += 500) await new Promise((r) => setTimeout(r, 500))
  } finally {
    await gw.stop()
    writeFileSync(configPath, saved)
  }
  const lines = gw.log().split('\n').filter((l) => l.includes('context-native: OpenClaw blocks its conversation hooks'))
  assert(lines.length === 1, `the warning ${lines.length} times in the gateway's log:\n${gw.log().split('\n').filter((l) => /context-native/.test(l)).join('\n').slice(-3000)}`)
  assert(/npx openclaw-context setup/.test(lines[0]) && /`openclaw-context doctor`/.test(lines[0]), lines[0])
  return lines[0].slice(0, 160)
})

let afterFirst
await check('openclaw-context setup: sets what is missing, says so, changes nothing else', () => {
  const before = readConfig()
  const r = setup()
  assert(r.status === 0, `exit ${r.status}\n${r.stdout}${r.stderr}`)
  assert(/^set\s+plugins\.entries\.context-native\.hooks\.allowConversationAccess = true \(was unset\)/m.test(r.stdout), `report:\n${r.stdout}`)
  assert(/^already set\s+plugins\.entries\.context-native\.enabled = true/m.test(r.stdout), `report:\n${r.stdout}`)
  afterFirst = readFileSync(configPath, 'utf8')
  const after = JSON.parse(afterFirst)
  assert(after.plugins.entries[PLUGIN_ID].hooks.allowConversationAccess === true, 'allowConversationAccess not written')
  const changed = ['plugins.entries.context-native.hooks']
  assert(without(before, changed) === without(after, changed), `other config changed:\n${JSON.stringify(before)}\n${JSON.stringify(after)}`)
  return r.stdout.trim().split('\n').length + ' report lines'
})

await check('setup again: nothing to change, the config file keeps its bytes', () => {
  const r = setup()
  assert(r.status === 0, `exit ${r.status}\n${r.stdout}${r.stderr}`)
  assert(/nothing to change/.test(r.stdout), r.stdout)
  assert(readFileSync(configPath, 'utf8') === afterFirst, 'the config file changed on the second run')
})

await check('doctor after setup, no session yet: every verdict ok, exit 0', () => {
  const { status, report } = doctor()
  assert(status === 0, `exit ${status}\n${verdictsText(report)}`)
  const notOk = report.verdicts.filter((v) => v.status !== 'ok')
  assert(notOk.length === 0 && report.verdicts.length === 9, verdictsText(report))
  assert(report.sessions === 0, `sessions ${report.sessions}`)
  return `${report.verdicts.length} verdicts ok`
})

await check('inspect --runtime after setup: every hook registered, no diagnostics', async () => {
  const r = await inspectRuntime()
  assert(r.plugin.status === 'loaded', `status ${r.plugin.status}`)
  assert(r.diagnostics.length === 0, `diagnostics: ${JSON.stringify(r.diagnostics.map((d) => d.message))}`)
  const hooks = r.typedHooks.map((h) => h.name).sort()
  const missing = [...new Set([...CONVERSATION_HOOKS, ...hooksInSource])].filter((h) => !hooks.includes(h))
  assert(missing.length === 0, `hooks ${JSON.stringify(hooks)}; missing ${JSON.stringify(missing)} (the plugin's source registers ${JSON.stringify(hooksInSource)})`)
  return `hooks ${hooks.join(', ')}; tools ${r.plugin.toolNames.join(', ')}`
})

await check('openclaw config set refuses a relative stateDir and a negative TTL (the manifest schema; 0 is no lifetime of its own), writing nothing', async () => {
  const before = readFileSync(configPath, 'utf8')
  const base = `plugins.entries.${PLUGIN_ID}.config`
  for (const [path, value] of [
    [`${base}.stateDir`, '"state"'],
    [`${base}.offload.ttlSeconds`, '-1'],
    [`${base}.scratchpad.enabled`, '"false"'],
  ]) {
    const r = await openclaw(['config', 'set', path, value, '--strict-json'], { stateDir, home })
    assert(r.status !== 0, `config set ${path} ${value} was accepted:\n${r.stdout}`)
  }
  assert(readFileSync(configPath, 'utf8') === before, 'the config file changed')
})

await check('gaugeAt above checkpointAt: the plugin refuses to load, the diagnostic names the setting', async () => {
  const base = `plugins.entries.${PLUGIN_ID}.config.gauge`
  const set = await openclaw(['config', 'set', '--batch-json', JSON.stringify([{ path: `${base}.gaugeAt`, value: 0.9 }, { path: `${base}.checkpointAt`, value: 0.8 }])], { stateDir, home })
  assert(set.status === 0, `config set: ${set.stdout}${set.stderr}`)
  try {
    const r = await inspectRuntime()
    const messages = r.diagnostics.map((d) => d.message)
    assert(r.plugin.status !== 'loaded', `status ${r.plugin.status}`)
    const named = messages.find((m) => m.includes(`plugins.entries.${PLUGIN_ID}.config.gauge.gaugeAt (0.9) must not be above gauge.checkpointAt (0.8)`))
    assert(named, `diagnostics: ${JSON.stringify(messages)}`)
    return `status ${r.plugin.status}: ${named.slice(0, 120)}...`
  } finally {
    const unset = await openclaw(['config', 'unset', base], { stateDir, home })
    assert(unset.status === 0, `config unset: ${unset.stdout}${unset.stderr}`)
  }
})

await check('a plugins.allow list gets context-native added, its other entries kept', async () => {
  const config = readConfig()
  config.plugins.allow = ['memory-core']
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`)
  const r = setup()
  assert(r.status === 0, `exit ${r.status}\n${r.stdout}${r.stderr}`)
  assert(JSON.stringify(readConfig().plugins.allow) === JSON.stringify(['memory-core', PLUGIN_ID]), `plugins.allow ${JSON.stringify(readConfig().plugins.allow)}`)
  const again = setup()
  assert(/nothing to change/.test(again.stdout), again.stdout)
  const inspected = await inspectRuntime()
  assert(inspected.plugin.status === 'loaded' && inspected.diagnostics.length === 0, JSON.stringify(inspected.diagnostics))
})

const hasReplaceMode = Boolean(manifest.configSchema?.properties?.compaction?.properties?.mode)
if (hasReplaceMode) {
  await check('setup --replace: compaction.mode and agents.defaults.compaction.provider, no diagnostics', async () => {
    const r = setup(['--replace'])
    assert(r.status === 0, `exit ${r.status}\n${r.stdout}${r.stderr}`)
    const config = readConfig()
    assert(config.plugins.entries[PLUGIN_ID].config?.compaction?.mode === 'replace', 'compaction.mode not written')
    assert(config.agents?.defaults?.compaction?.provider === PLUGIN_ID, 'agents.defaults.compaction.provider not written')
    const inspected = await inspectRuntime()
    assert(inspected.plugin.status === 'loaded' && inspected.diagnostics.length === 0, JSON.stringify(inspected.diagnostics))
  })
} else {
  console.log('skip  setup --replace: the plugin has no compaction.mode setting yet (replace mode, issue 20 item 4)')
}

if (process.env.TEST_PLUGIN_INSTALL_KEEP === '1') console.log(`kept ${work}`)
else rmSync(work, { recursive: true, force: true })
console.log(`plugin-install: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
console.log(`plugin-install: ${results.passed} passed, ${results.failed} failed`)
process.exit(results.failed ? 1 : 0)
