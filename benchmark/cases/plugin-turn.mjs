// The OpenClaw plugin's own work per agent turn on a long session: its real `before_prompt_build` handler (the
// durable session record read and written, the scratchpad, the incremental gauge, the pending restore) and its
// tool-result middleware (capture into the incremental state, offload over 4 KB), registered from plugin/*.ts
// and called turn by turn over a ~180k-token transcript. Runs in the Node OpenClaw needs (>= 24.16), which
// loads the plugin's TypeScript as it ships; OpenClaw itself is not started (its own per-turn cost is seconds
// of process start in `--local`, see `npm run test:real`).
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { TRANSCRIPTS_DIR } from '../lib/fixtures.mjs'
import { RESULT_MARK } from '../lib/child.mjs'
import { summarize, fmtMs } from '../lib/stats.mjs'
import { table, MET, MISSED, SKIPPED } from '../lib/report.mjs'

export const title = 'OpenClaw plugin: its own work per turn'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const FILE = 'large-session.jsonl'
const CASE = 'Plugin hooks per turn (prompt build + middleware, 180k-token session)'

export async function run({ report, log }) {
  const { ensureOpenClaw, hostNode } = await import('../../scripts/host.mjs')
  let node
  let openclawDir
  try {
    openclawDir = ensureOpenClaw({ quiet: true })
    node = hostNode()
  } catch (e) {
    report.section(title, [`Skipped: ${e.message}`])
    report.goal({ case: CASE, goal: 'median < 1 ms', figure: `skipped (${e.message})`, status: SKIPPED })
    return
  }
  const work = mkdtempSync(path.join(tmpdir(), 'context-native-bench-plugin-'))
  try {
    // The plugin folder as installed: its sources, openclaw and the package resolvable from it.
    const pluginDir = path.join(work, 'plugin')
    mkdirSync(path.join(pluginDir, 'node_modules/@openclaw'), { recursive: true })
    for (const f of readdirSync(path.join(ROOT, 'plugin'))) if (f.endsWith('.ts')) cpSync(path.join(ROOT, 'plugin', f), path.join(pluginDir, f))
    cpSync(path.join(ROOT, 'plugin/package.json'), path.join(pluginDir, 'package.json'))
    symlinkSync(openclawDir, path.join(pluginDir, 'node_modules/openclaw'))
    symlinkSync(ROOT, path.join(pluginDir, 'node_modules/@openclaw/context-native'))
    const stateDir = path.join(work, 'state')
    mkdirSync(stateDir)
    log(`replaying ${FILE} through the plugin's hooks under ${node}`)
    const r = spawnSync(node, [path.join(ROOT, 'benchmark/children/plugin-turn.mjs'), pluginDir, path.join(TRANSCRIPTS_DIR, FILE), stateDir], {
      encoding: 'utf8',
      timeout: 300_000,
      maxBuffer: 64 << 20,
    })
    const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith(RESULT_MARK))
    if (!line) throw new Error(`the child gave no result (exit ${r.status}): ${(r.stderr ?? '').slice(-1500)}`)
    const result = JSON.parse(line.slice(RESULT_MARK.length))
    const prompt = summarize(result.prompt)
    const tools = summarize(result.tools)
    // A turn: its prompt build plus its share of the tool results (the transcript's tool results per user turn).
    const perTurnTools = result.tools.length / Math.max(1, result.prompt.length)
    const turnMedian = prompt.median + perTurnTools * tools.median
    report.section(title, [
      `Replay of \`${FILE}\` (${result.messages} messages, ${result.prompt.length} user turns, ${result.tools.length} tool results) ` +
        "through the plugin's registered handlers, in Node " +
        spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim() +
        ". Wall-clock per call, including the plugin's disk work (the session record, the incremental state, offloaded results).",
      '',
      ...table(
        ['hook', 'calls', 'median', 'p75', 'max'],
        [
          ['`before_prompt_build`', String(prompt.n), fmtMs(prompt.median), fmtMs(prompt.p75), fmtMs(prompt.max)],
          ['tool-result middleware (per result)', String(tools.n), fmtMs(tools.median), fmtMs(tools.p75), fmtMs(tools.max)],
        ],
      ),
      '',
      `Per turn (prompt build + ${perTurnTools.toFixed(1)} tool results at the median): ${fmtMs(turnMedian)}. ` +
        'As a share of the turn: an `openclaw agent --local` turn of `npm run test:real` (scripted model answering at once) ' +
        'takes 7-40 s of OpenClaw process start and run, so the plugin is well under 0.1 % of it; against a real model ' +
        'call (seconds) the same holds through a gateway.',
    ])
    report.goal({
      case: CASE,
      goal: 'median < 1 ms',
      figure: `prompt build median ${fmtMs(prompt.median)}, middleware median ${fmtMs(tools.median)} per result; per turn ~${fmtMs(turnMedian)}`,
      status: turnMedian < 1 ? MET : MISSED,
      why: 'the middleware records every tool result in the incremental state files (`recordToolResult`: a locked, durable read-modify-write per result) and writes results over 4 KB to the observation store; the prompt build reads the session record from disk each turn (it is written only when it changes)',
      close: 'buffer the incremental state of a turn in memory and write it once at the next prompt build or compaction (a crash loses at most that turn\'s capture); keep the session record cached per process with its file version',
    })
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
