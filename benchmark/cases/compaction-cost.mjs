// What one compaction costs, per mode, on the real compactions of the bundled transcripts (issue 20).
//
// Default mode (OpenClaw's LLM summary; the plugin adds its restore after it): the requests OpenClaw 2026.9.6's
// compaction safeguard makes, derived by running OpenClaw's own planning code (compaction-planning in the pinned
// release's dist: computeAdaptiveChunkRatio, buildHistoryPrunePlan, buildStageSplitPlan, buildSummaryChunks,
// estimateMessagesTokens) on the messages each compaction summarised, as summarizeInStages / summarizeChunks /
// the split-turn prefix call use them: one request per summary chunk, one merge per staged split, one more
// pipeline for a split turn's prefix. Input tokens are OpenClaw's own estimate of the messages each request
// carries, plus the summary so far that every chunk after the first carries (taken at the size of the real
// summary); the instructions each request also sends are not counted. No model is called here: the wall time of
// those requests is the model's, not measurable offline (a real run measured in issue 20: 5 requests, ~153k input
// tokens for one compaction of a ~186k-token session).
//
// Replace mode (the plugin's compaction provider answers with the restore text): 0 requests; the measured wall
// time of what the provider does, writeCheckpoint of the same messages plus renderCheckpoint at 2,000 tokens.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { native } from '../../bin/lib/native.mjs'
import { DEFAULT_DIR } from '../../scripts/eval-restore.mjs'
import { replayBundled } from '../lib/replays.mjs'
import { ensureOpenClaw, OPENCLAW_VERSION } from '../../scripts/host.mjs'

export const title = 'What a compaction costs, per mode'

/** The replace-mode budget measured (the restore text returned as the summary). */
export const REPLACE_MAX_TOKENS = 2000
/** OpenClaw's context window when the model reports none (resolveContextWindowTokens), and Claude's. */
const CONTEXT_WINDOW = 200_000
const RUNS = 5

/** OpenClaw's compaction-planning functions, by the names they have in its source. */
async function openclawPlanning() {
  const dist = join(ensureOpenClaw({ quiet: true }), 'dist')
  const names = ['buildHistoryPrunePlan', 'buildSummaryChunks', 'buildStageSplitPlan', 'computeAdaptiveChunkRatio', 'estimateMessagesTokens', 'SUMMARIZATION_OVERHEAD_TOKENS']
  for (const file of readdirSync(dist)) {
    if (!file.startsWith('compaction-planning-') || !file.endsWith('.mjs')) continue
    const text = readFileSync(join(dist, file), 'utf8')
    const exported = text.match(/export \{([^}]*)\}/)?.[1] ?? ''
    const alias = Object.fromEntries([...exported.matchAll(/(\w+) as (\w+)/g)].map((m) => [m[1], m[2]]))
    if (!names.every((n) => alias[n])) continue
    const mod = await import(pathToFileURL(join(dist, file)).href)
    return Object.fromEntries(names.map((n) => [n, mod[alias[n]]]))
  }
  throw new Error(`openclaw@${OPENCLAW_VERSION}: no compaction-planning module exporting ${names.join(', ')} in ${dist}`)
}

/**
 * The requests of summarizeInStages over `messages` (OpenClaw 2026.9.6): a staged split (2 parts) when they
 * exceed one chunk, each stage summarised chunk by chunk, then a merge; else chunk by chunk.
 */
function stageRequests(oc, messages, maxChunkTokens, summaryTokens, kind) {
  const chunked = (msgs, label) =>
    oc.buildSummaryChunks({ messages: msgs, maxChunkTokens }).map((chunk, i) => ({ kind: label, tokens: oc.estimateMessagesTokens(chunk), carried: i > 0 ? summaryTokens : 0 }))
  const plan = oc.buildStageSplitPlan({ messages, maxChunkTokens })
  if (plan.mode === 'single') return chunked(messages, kind)
  const requests = plan.chunks.flatMap((chunk, i) => chunked(chunk, `${kind}, stage ${i + 1}`))
  requests.push({ kind: `${kind}, merge`, tokens: 0, carried: plan.chunks.length * summaryTokens })
  return requests
}

/** Default mode: the requests OpenClaw's compaction safeguard makes for one compaction. */
export function defaultModeRequests(oc, c, contextWindow = CONTEXT_WINDOW) {
  let history = c.messages
  let previousSummary
  if (history[0]?.role === 'compactionSummary') {
    previousSummary = history[0].summary
    history = history.slice(1)
  }
  // pi's split turn: the first kept message is not where a turn starts; the turn's start is its last user message.
  let prefix = []
  if (c.firstKept && c.firstKept.role !== 'user') {
    const start = history.findLastIndex((m) => m.role === 'user')
    if (start >= 0) {
      prefix = history.slice(start)
      history = history.slice(0, start)
    }
  }
  const summaryTokens = native.countTokens(c.summary)
  const requests = []
  const pruned = oc.buildHistoryPrunePlan({
    messagesToSummarize: history,
    turnPrefixMessages: prefix,
    tokensBefore: c.tokensBefore,
    contextWindowTokens: contextWindow,
    maxHistoryShare: 0.5,
    parts: 2,
  }).pruned
  if (pruned && pruned.droppedChunks > 0) {
    const ratio = oc.computeAdaptiveChunkRatio(pruned.droppedMessagesList, contextWindow)
    const max = Math.max(1, Math.floor(contextWindow * ratio) - oc.SUMMARIZATION_OVERHEAD_TOKENS)
    requests.push(...stageRequests(oc, pruned.droppedMessagesList, max, summaryTokens, 'dropped history'))
    history = pruned.messages
  }
  const ratio = oc.computeAdaptiveChunkRatio([...history, ...prefix], contextWindow)
  const maxChunkTokens = Math.max(1, Math.floor(contextWindow * ratio) - oc.SUMMARIZATION_OVERHEAD_TOKENS)
  // summarizeViaLLM prepends the previous summary to be re-distilled as a user message.
  const withPrevious = previousSummary ? [{ role: 'user', content: [{ type: 'text', text: previousSummary }], timestamp: 0 }, ...history] : history
  if (withPrevious.length > 0) requests.push(...stageRequests(oc, withPrevious, maxChunkTokens, summaryTokens, 'history'))
  if (prefix.length > 0) requests.push(...stageRequests(oc, prefix, maxChunkTokens, summaryTokens, 'split-turn prefix'))
  return { requests, maxChunkTokens, splitTurn: prefix.length > 0, summaryTokens }
}

/** Replace mode: the provider's work, timed (median of RUNS): writeCheckpoint + renderCheckpoint at the budget. */
export function replaceModeCost(c, stateDir) {
  const times = []
  let restore
  for (let i = 0; i < RUNS; i++) {
    const sessionKey = `agent:main:bench:compaction-${c.line}-${i}`
    const t = performance.now()
    native.writeCheckpointSync({
      stateDir,
      sessionKey,
      trigger: 'compaction',
      tokenUsage: { inputTokens: c.tokensBefore, contextWindow: CONTEXT_WINDOW },
      compactionCount: 1,
      messages: c.messages,
    })
    restore = native.renderCheckpoint({ stateDir, sessionKey }, { mode: 'post-compaction', maxTokens: REPLACE_MAX_TOKENS })
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { ms: times[Math.floor(times.length / 2)], restoreTokens: restore ? native.countTokens(restore) : 0 }
}

const k = (n) => `${(n / 1000).toFixed(1)}k`

export async function run({ report, log }) {
  const oc = await openclawPlanning()
  const rows = []
  let compactions = []
  await replayBundled(
    'bench-compaction-cost-',
    () => ((compactions = []), { onCompaction: (c) => compactions.push(c) }),
    ({ name: file, stateDir }) => {
      for (const c of compactions) {
        const d = defaultModeRequests(oc, c)
        const r = replaceModeCost(c, stateDir)
        const name = `${file}:${c.line}`
        log(`compaction-cost: ${name}: ${d.requests.length} requests, ${r.ms.toFixed(1)} ms replace`)
        rows.push({ name, messages: c.messages.length, tokensBefore: c.tokensBefore, ...d, replace: r })
      }
    },
  )
  if (rows.length === 0) throw new Error(`no compaction in ${DEFAULT_DIR}`)
  const sent = (row) => row.requests.reduce((s, q) => s + q.tokens + q.carried, 0)
  const lines = [
    `Per compaction of the bundled transcripts: default mode derived from openclaw@${OPENCLAW_VERSION}'s own compaction`,
    `planning code (no model called; context window ${CONTEXT_WINDOW.toLocaleString('en-US')}, quality guard on: one attempt shown, a`,
    'summary failing its audit repeats them once), replace mode measured (the provider writes the checkpoint of the',
    `messages and renders it at ${REPLACE_MAX_TOKENS.toLocaleString('en-US')} tokens; median of ${RUNS}). Input tokens: OpenClaw's estimate of`,
    'the messages each request carries plus the summary so far (at the real summary size), instructions not counted.',
    '',
    '| compaction | messages | tokens before | default: requests | default: input tokens sent | replace: requests | replace: wall time | replace: summary tokens |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.messages} | ${k(r.tokensBefore)} | ${r.requests.length} (${[...new Set(r.requests.map((q) => q.kind))].join('; ')}) | ${k(sent(r))} | 0 | ${r.replace.ms.toFixed(1)} ms | ${r.replace.restoreTokens} |`,
    ),
    '',
    `Default mode, summed over the ${rows.length} compactions: ${rows.reduce((s, r) => s + r.requests.length, 0)} model requests, ${k(rows.reduce((s, r) => s + sent(r), 0))} input tokens;`,
    `replace mode: 0 requests, ${rows.reduce((s, r) => s + r.replace.ms, 0).toFixed(0)} ms of provider work in all.`,
    'For comparison, a real `openclaw agent --local` run (issue 20) measured 5 requests and about 153k input tokens for',
    'one automatic compaction of a ~186k-token session, instructions and prompts included; the derivation counts',
    'the conversation and carried summaries only, and the live chunk count depends on the live context.',
  ]
  report.section(title, lines)
}
