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
import { table, MET, MISSED, NO_GOAL, SKIPPED } from '../lib/report.mjs'
import { createRequire } from 'node:module'

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
    const ends = summarize(result.ends?.length ? result.ends : [0])
    const writes = summarize(result.writes?.length ? result.writes : [0])
    // A turn: its prompt build, its share of the tool results (the transcript's tool results per user turn) and
    // its agent_end; the one write of the turn's captures runs after it on the libuv pool, timed apart.
    const perTurnTools = result.tools.length / Math.max(1, result.prompt.length)
    const turnMedian = prompt.median + perTurnTools * tools.median + ends.median
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
          ['`agent_end` (starts the write below)', String(result.ends?.length ?? 0), fmtMs(ends.median), fmtMs(ends.p75), fmtMs(ends.max)],
          ["the turn's captures written (one batch, libuv pool, after agent_end)", String(result.writes?.length ?? 0), fmtMs(writes.median), fmtMs(writes.p75), fmtMs(writes.max)],
        ],
      ),
      '',
      `Per turn on the turn's path (prompt build + ${perTurnTools.toFixed(1)} tool results + agent_end at the median): ${fmtMs(turnMedian)}; ` +
        `plus the turn's one write of its captures after the turn, ${fmtMs(writes.median)} at the median on the libuv pool ` +
        '(OpenClaw does not await agent_end; a checkpoint awaits it, a process that exits first writes it in its exit handler). ' +
        'As a share of the turn: an `openclaw agent --local` turn of `npm run test:real` (scripted model answering at once) ' +
        'takes 7-40 s of OpenClaw process start and run, so the plugin is well under 0.1 % of it; against a real model ' +
        'call (seconds) the same holds through a gateway.',
    ])
    report.goal({
      case: CASE,
      goal: 'median < 1 ms',
      figure: `prompt build median ${fmtMs(prompt.median)}, middleware median ${fmtMs(tools.median)} per result, agent_end ${fmtMs(ends.median)}; per turn ~${fmtMs(turnMedian)} on the turn's path, + ${fmtMs(writes.median)} write of the turn's captures after it (libuv pool)`,
      status: turnMedian < 1 ? MET : MISSED,
      why: 'results over 4 KB are written to the observation store before the model sees their synthetic observation (durable); the prompt build reads the session record from disk each turn (it is written only when it changes)',
      close: 'keep the session record cached per process with its file version',
    })
    schemaTokens(report)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * The tokens the plugin's tools add to every model request, as OpenClaw 2026.9.6 sends them: a direct tool's
 * schema in the OpenAI `tools` array (`{"type":"function","function":{name,description,parameters}}`), a tool in
 * Tool Search's catalog as one line of the deferred-tools directory in the system prompt
 * (`- <name> (context-native): <description, first 180 characters>`). The scratchpad guidance the plugin appends
 * to the system prompt is counted apart. o200k_base.
 */
function schemaTokens(report) {
  const native = createRequire(import.meta.url)(path.join(ROOT, 'index.js'))
  const count = (t) => native.countTokens(t, 'o200k_base')
  const fn = (d) => JSON.stringify({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } })
  const line = (d) => {
    const desc = d.description.replace(/\s+/g, ' ').trim()
    return `- ${d.name} (context-native): ${desc.length <= 180 ? desc : `${desc.slice(0, 177).trimEnd()}...`}\n`
  }
  const direct = [native.getScratchpadToolDefinition(), native.observationToolDefinition('scratchpad_read')]
  const entries = ['scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete'].map((n) => native.observationToolDefinition(n))
  const rows = [
    ...direct.map((d) => [`\`${d.name}\``, 'direct (schema in `tools`)', String(count(fn(d))), String(count(fn(d)))]),
    ...entries.map((d) => [`\`${d.name}\``, "Tool Search's catalog (directory line)", String(count(line(d))), String(count(fn(d)))]),
  ]
  const withSearch = direct.reduce((n, d) => n + count(fn(d)), 0) + entries.reduce((n, d) => n + count(line(d)), 0)
  const withoutSearch = [...direct, ...entries].reduce((n, d) => n + count(fn(d)), 0)
  const guidance = count(native.getScratchpadSystemPrompt())
  report.section("OpenClaw plugin: what its tools add to every request", [
    "Tokens (o200k_base) of the plugin's tools in each model request, as OpenClaw 2026.9.6 sends them: a direct tool's " +
      "schema in the request's `tools` array; a tool in Tool Search's catalog (on by default) as one line of the deferred-tools " +
      'directory in the system prompt, its schema fetched only when the model asks (`tool_describe` / `tool_search`).',
    '',
    ...table(['tool', 'sent as (Tool Search on)', 'tokens, Tool Search on', 'tokens, `tools.toolSearch: false`'], rows),
    '',
    `Per request: **${withSearch} tokens** with Tool Search (the default), ${withoutSearch} with \`tools.toolSearch: false\`; ` +
      `plus the scratchpad guidance appended to the system prompt, ${guidance} tokens (\`scratchpad.enabled\`).`,
  ])
  report.goal({ case: "Plugin tools' schemas per request (Tool Search on / off)", goal: NO_GOAL, figure: `${withSearch} / ${withoutSearch} tokens, + ${guidance} of guidance`, status: NO_GOAL })
}
