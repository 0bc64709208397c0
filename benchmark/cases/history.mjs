// The compacted conversation kept as history (issue 49): what a compaction adds to write its history entry, how
// many bytes a compacted token takes on disk, and whether a long session stays under the default quota.
//
// - bytes per compacted token: every real compaction of the bundled transcripts replayed (bin/lib/replay.mjs writes
//   the history entries as the plugin does), the entry's bytes over the compacted messages' tokens (the package's
//   usage estimator, `estimateContextTokens`, exact o200k counts of their content; the provider
//   usages they carry left out).
// - a 150k-token span: messages of the bundled transcripts, repeated with fresh timestamps up to 150k tokens, written
//   with `writeHistory` (the Promise form the plugin calls at every compaction): the synchronous part of the call and
//   the longest the event loop was held while it ran (benchmark/lib/loop.mjs), and its wall time, off the main
//   thread (median of 5 runs, each into a fresh session; fsync on, /tmp).
// - 20 compactions of 150k tokens in one session: the history's bytes against the default quota (512 MiB).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { native } from '../../bin/lib/native.mjs'
import { parseTranscript } from '../../bin/lib/transcript.mjs'
import { DEFAULT_DIR, transcriptFiles } from '../../scripts/eval-restore.mjs'
import { measureLoop } from '../lib/loop.mjs'
import { replayBundled } from '../lib/replays.mjs'
import { fmtMs } from '../lib/stats.mjs'
import { MET, MISSED } from '../lib/report.mjs'

export const title = 'History: the compacted conversation kept'

const SPAN_TOKENS = 150_000
const RUNS = 5
const COMPACTIONS = 20
const QUOTA = 512 * 1024 * 1024
const mib = (b) => `${(b / (1 << 20)).toFixed(1)} MiB`

/**
 * The tokens of messages' own content: the estimator without the provider usages they carry (an assistant message's
 * `usage` is the whole context of its call, which the estimator would lean on).
 */
const contentTokens = (messages) => native.estimateContextTokens(messages.map(({ usage, ...m }) => m)).tokens

/** The messages of the bundled transcripts, in order. */
function bundledMessages() {
  const out = []
  for (const file of transcriptFiles([DEFAULT_DIR])) {
    try {
      for (const e of parseTranscript(readFileSync(file, 'utf8')).entries) if (e.entry.type === 'message' && e.entry.message?.role) out.push(e.entry.message)
    } catch {}
  }
  return out
}

/** A span of about `tokens` tokens from `pool`, timestamps starting at `t0` (so each span's messages are new). */
function span(pool, tokens, t0) {
  const out = []
  let total = 0
  for (let i = 0; total < tokens; i++) {
    const m = { ...pool[i % pool.length], timestamp: t0 + i }
    out.push(m)
    total += contentTokens([m])
  }
  return { messages: out, tokens: contentTokens(out) }
}

export async function run({ report, log }) {
  const lines = []
  // 1. bytes per compacted token on the real compactions
  const rows = []
  const tokens = new Map()
  await replayBundled(
    'bench-history-',
    () => (tokens.clear(), { onCompaction: (c) => tokens.set(c.line, contentTokens(c.messages)) }),
    ({ name, report: r }) => {
      for (const c of r.compactions) if (c.history) rows.push({ name: `${name}:${c.line}`, tokens: tokens.get(c.line) ?? 0, bytes: c.history.sizeBytes, messages: c.history.messages })
    },
  )
  const sumTokens = rows.reduce((s, r) => s + r.tokens, 0)
  const sumBytes = rows.reduce((s, r) => s + r.bytes, 0)
  const perToken = sumBytes / Math.max(1, sumTokens)
  log(`history: ${rows.length} compactions, ${perToken.toFixed(2)} bytes per compacted token`)

  // 2. one 150k-token span, the Promise form as the plugin calls it
  const pool = bundledMessages()
  const one = span(pool, SPAN_TOKENS, 1_800_000_000_000)
  const runs = []
  let entryBytes = 0
  for (let i = 0; i < RUNS; i++) {
    const stateDir = mkdtempSync(join(tmpdir(), 'bench-history-span-'))
    try {
      const m = await measureLoop(() => native.writeHistory({ stateDir, sessionKey: 'agent:main:bench', messages: one.messages, compaction: 1 }))
      if (m.error) throw m.error
      entryBytes = m.value.sizeBytes
      runs.push(m)
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  }
  const med = (pick) => runs.map(pick).sort((a, b) => a - b)[Math.floor(runs.length / 2)]
  const held = med((m) => Math.max(m.callMs, m.maxGapMs))
  log(`history: 150k span: call ${fmtMs(med((m) => m.callMs))}, loop held ${fmtMs(held)}, total ${fmtMs(med((m) => m.totalMs))}`)

  // 3. twenty compactions of 150k tokens in one session
  const stateDir = mkdtempSync(join(tmpdir(), 'bench-history-20-'))
  let total = 0
  let cut = []
  try {
    for (let k = 0; k < COMPACTIONS; k++) {
      const s = span(pool, SPAN_TOKENS, 1_810_000_000_000 + k * 10_000_000)
      const w = await native.writeHistory({ stateDir, sessionKey: 'agent:main:bench-20', messages: s.messages, compaction: k + 1, durable: false })
      total = w.summary.bytes
      cut = w.summary.cut
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true })
  }
  log(`history: ${COMPACTIONS} x 150k: ${mib(total)}, cut: ${cut.length}`)

  lines.push(
    `Bytes on disk per compacted token, over the ${rows.length} real compactions of the bundled transcripts (replayed; tokens: the usage estimator's count of the compacted messages):`,
    `**${perToken.toFixed(2)} bytes per token** (${mib(sumBytes)} for ${(sumTokens / 1000).toFixed(0)}k tokens; per compaction from ${Math.min(...rows.map((r) => r.bytes / Math.max(1, r.tokens))).toFixed(2)} to ${Math.max(...rows.map((r) => r.bytes / Math.max(1, r.tokens))).toFixed(2)}).`,
    'Each line carries its message\'s index, role and time (about 30 bytes); a parked result is kept as its pointer and head and tail, host text is left out.',
    '',
    `A span of ${(one.tokens / 1000).toFixed(0)}k tokens (${one.messages.length} messages of the bundled transcripts) written by \`writeHistory\`, median of ${RUNS} runs, fsync on:`,
    '',
    '| what | time |',
    '| --- | ---: |',
    `| synchronous part of the call (main thread) | ${fmtMs(med((m) => m.callMs))} |`,
    `| longest the event loop was held meanwhile | ${fmtMs(med((m) => m.maxGapMs))} |`,
    `| wall time to the entry on disk (libuv pool) | ${fmtMs(med((m) => m.totalMs))} |`,
    '',
    `Its entry: ${mib(entryBytes)} (${(entryBytes / one.tokens).toFixed(2)} bytes per token). ${COMPACTIONS} such compactions in one session: ${mib(total)} of history, ${((total / QUOTA) * 100).toFixed(1)} % of the default quota (512 MiB), ${cut.length ? `${cut.length} entries cut` : 'nothing cut'}.`,
  )
  report.section(title, lines)
  report.goal({
    case: 'History: a compaction\'s added time on the main thread (150k-token span)',
    goal: '< 50 ms',
    figure: `${fmtMs(held)} (call ${fmtMs(med((m) => m.callMs))}, loop held ${fmtMs(med((m) => m.maxGapMs))}); ${fmtMs(med((m) => m.totalMs))} in all off the main thread`,
    status: held < 50 ? MET : MISSED,
  })
  report.goal({
    case: `History: ${COMPACTIONS} compactions of 150k tokens in one session`,
    goal: 'under the default quota (512 MiB)',
    figure: `${mib(total)}; ${perToken.toFixed(2)} bytes per compacted token on the real compactions`,
    status: total < QUOTA && cut.length === 0 ? MET : MISSED,
  })
}
