// The replay report as a person reads it: one screen, the numbers that matter first.
import { fmt, pct, signed, table } from './format.mjs'
import { messageText, providerContextTokens } from './transcript.mjs'
import { has, native } from './native.mjs'
import { isScratchpadTool } from './replay.mjs'

const PROBLEMS_SHOWN = 12

function section(title, lines) {
  return [`${title}`, ...lines.map((l) => `  ${l}`)]
}

/** The transcript format as a person reads it. */
export function formatName(format, version) {
  if (format === 'v3') return `pi v${version ?? 3} (id / parentId tree)`
  if (format === 'v1') return 'pi v1 (no ids)'
  if (format === 'openclaw-sqlite') return `OpenClaw SQLite session (pi v${version ?? '?'} entries; a "line" is the event's seq + 1)`
  if (format === 'claude-code') return `Claude Code / Claude Agent SDK transcript${version ? ` (written by Claude Code ${version})` : ''}`
  return String(format)
}

export function formatProblems(problems) {
  if (problems.length === 0) return ['none: every line read as an entry of its format']
  const byKind = {}
  for (const p of problems) byKind[p.kind] = (byKind[p.kind] ?? 0) + 1
  const out = [
    `${problems.length} line(s) could not be read as they stand (${Object.entries(byKind)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')}); the rest was replayed`,
  ]
  for (const p of problems.slice(0, PROBLEMS_SHOWN)) out.push(`  line ${p.line}: ${p.kind}: ${p.detail}`)
  if (problems.length > PROBLEMS_SHOWN) out.push(`  ... ${problems.length - PROBLEMS_SHOWN} more (--json lists them all)`)
  return out
}

/** Renders the data `replay()` returns. */
export function formatReplay(r) {
  const out = []
  const fmtName = formatName(r.format, r.version)
  out.push(`openclaw-context replay ${r.file ?? ''}`.trimEnd())
  out.push(
    ...section('session', [
      `${fmtName}, ${fmt(r.lines)} lines, ${fmt(r.entries)} entries on the active branch${r.offBranch ? ` (${fmt(r.offBranch)} on other branches, not replayed)` : ''}`,
      `id ${r.sessionId ?? '-'}, replayed as ${r.sessionKey}`,
      r.stateDirTemporary && !r.stateDirKept
        ? `state dir ${r.stateDir} (temporary, removed; --keep keeps it)`
        : `state dir ${r.stateDir}${r.stateDirTemporary ? ' (temporary, kept)' : ''}`,
    ]),
  )
  out.push(...section('input problems', formatProblems(r.problems)))

  const t = r.turns
  out.push(
    ...section('turns', [
      `${fmt(t.assistant)} assistant turns (${fmt(t.withUsage)} with provider usage), ${fmt(t.user)} user messages, ${fmt(t.toolResults)} tool results, ${fmt(t.compactions)} compaction entries`,
    ]),
  )

  const gaugeLines = [
    r.peak.turn === null
      ? 'no assistant turn reported usage'
      : `peak ${pct(r.peak.utilization)} of ${fmt(r.window)}: ${fmt(r.peak.tokens)} tokens at turn ${r.peak.turn} (line ${r.peak.line})`,
  ]
  if (r.gauge.available) {
    const g = r.gauge
    gaugeLines.push(
      g.firstGauge ? `gauge line first shown at turn ${g.firstGauge.turn} (${pct(g.firstGauge.utilization)})` : 'gauge never reached its first threshold',
    )
    gaugeLines.push(
      g.firstCheckpoint ? `checkpoint threshold first reached at turn ${g.firstCheckpoint.turn} (${pct(g.firstCheckpoint.utilization)})` : 'checkpoint threshold never reached',
    )
  } else gaugeLines.push(r.gauge.reason)
  out.push(...section('context', gaugeLines))

  const cp = r.checkpoints
  if (!cp.available) out.push(...section('checkpoints', [cp.reason]))
  else {
    const byTrigger = {}
    for (const c of cp.written) byTrigger[c.trigger] = (byTrigger[c.trigger] ?? 0) + 1
    const head = `${cp.written.length} written${
      cp.written.length ? ` (${Object.entries(byTrigger).map(([k, n]) => `${n} ${k}`).join(', ')})` : ''
    }${cp.skipped.length ? `, ${cp.skipped.length} skipped by the writer (${[...new Set(cp.skipped.map((s) => s.reason))].join(', ')})` : ''}`
    const lines = [head]
    if (cp.written.length) {
      lines.push(
        ...table(
          [
            { title: 'id' },
            { title: 'trigger' },
            { title: 'turn', align: 'right' },
            { title: 'line', align: 'right' },
            { title: 'context', align: 'right' },
            { title: 'restore tokens', align: 'right' },
            { title: 'real summary tokens', align: 'right' },
          ],
          cp.written.map((c) => [
            c.id,
            c.trigger,
            String(c.turn),
            String(c.line),
            `${pct(c.utilization)} ${fmt(c.inputTokens)}`,
            fmt(c.restoreTokens),
            c.summaryTokens === null ? '-' : fmt(c.summaryTokens),
          ]),
          '',
        ),
      )
    }
    out.push(...section('checkpoints', lines))
  }

  if (r.compactions.length) {
    out.push(
      ...section(
        'compactions in the transcript',
        r.compactions.map(
          (c) =>
            `line ${c.line}: ${fmt(c.tokensBefore)} tokens before, summary ${fmt(c.summaryTokens)} tokens${
              c.checkpoint ? `, checkpoint ${c.checkpoint}` : ''
            }${c.history ? `, history ${c.history.name} (messages #${c.history.firstIndex}-#${c.history.lastIndex}, ${fmt(c.history.sizeBytes)} bytes)` : ''}`,
        ),
      ),
    )
  }

  const o = r.offload
  out.push(
    ...section(
      'offloading',
      o.available
        ? [
            `${fmt(o.offloaded)} of ${fmt(o.offered)} tool results over ${fmt(o.thresholdBytes)} bytes parked (${fmt(o.bytes)} bytes)`,
            o.offloaded
              ? `${fmt(o.tokensMoved)} tokens moved out of the context (${fmt(o.tokensBefore)} -> ${fmt(o.tokensAfter)} in the synthetic observations)`
              : 'nothing moved out of the context',
            ...(o.largest ? [`largest: ${o.largest.toolName} result on line ${o.largest.line}, ${fmt(o.largest.tokens)} tokens`] : []),
          ]
        : [o.reason],
    ),
  )

  const e = r.estimator
  out.push(
    ...section(
      'estimator vs provider usage',
      e.available
        ? e.samples
          ? [
              `${fmt(e.samples)} turns: mean |error| ${fmt(e.meanAbsError)} tokens (${pct(e.meanAbsPercent, 2)}), largest ${fmt(e.maxAbsError)}; mean error ${signed(e.meanError)}, median ${signed(e.offset)}`,
              ...(e.afterCompaction ?? []).map(
                (a) =>
                  `first turn after the compaction on line ${a.compactionLine}: estimated ${fmt(a.estimate)} (overhead ${fmt(a.overheadTokens)} + kept ${fmt(a.carriedTokens)} + summary and after ${fmt(a.countedTokens)}), provider ${fmt(a.provider)}: ${signed(a.error)} (${a.percent >= 0 ? '+' : ''}${pct(a.percent, 2)})`,
              ),
              ...(r.family === 'claude-code' && e.afterCompaction?.length
                ? ['  (Claude Code adds to the context after a compaction what its transcript does not record, e.g. SessionStart:compact hook output and re-attached files: the estimate cannot count it)']
                : []),
          ]
          : ['no turn with provider usage to compare against']
        : [e.reason],
    ),
  )

  const s = r.scratchpad
  out.push(
    ...section(
      'scratchpad',
      !s.available
        ? [s.calls ? `${s.calls} scratchpad calls; ${s.reason}` : `no scratchpad calls (${s.reason})`]
        : s.calls === 0
          ? ['no scratchpad calls (session_scratchpad / session.scratchpad) in this session']
          : [
              `${fmt(s.calls)} scratchpad calls (session_scratchpad / session.scratchpad): ${fmt(s.applied)} applied, ${fmt(s.rejected)} rejected`,
              s.prepend ? `prepend at the end: ${fmt(s.prepend.tokens)} tokens (${fmt(s.prepend.chars)} chars)` : 'scratchpad empty at the end',
            ],
    ),
  )

  const st = r.state
  const unavailable = [st.toolResults, st.messages].filter((x) => !x.available).map((x) => x.reason)
  if (unavailable.length) out.push(...section('incremental state', unavailable))

  if (r.errors.length) {
    out.push(
      ...section(
        'addon errors',
        [
          `${r.errors.length} call(s) failed`,
          ...r.errors.slice(0, 8).map((x) => `line ${x.line}: ${x.call}: ${x.code}: ${x.message}`),
        ],
      ),
    )
  }
  return out.join('\n')
}

/**
 * What a transcript holds as replay reads it, without replaying it (`inspect <session.jsonl>`): format,
 * turns, provider usage, compactions with their summaries' sizes, large tool results, scratchpad calls.
 */
export function summarizeTranscript(parsed, file, { thresholdBytes = 4096 } = {}) {
  const turns = { assistant: 0, withUsage: 0, user: 0, toolResults: 0, compactions: 0 }
  const peak = { tokens: 0, line: null }
  const compactions = []
  let largeResults = 0
  let scratchpadCalls = 0
  let lastUsage = null
  const count = has('countTokens') ? (t) => native.countTokens(t) : () => null
  for (const { line, entry } of parsed.entries) {
    if (entry.type === 'compaction') {
      turns.compactions++
      const summary = typeof entry.summary === 'string' ? entry.summary : ''
      compactions.push({ line, tokensBefore: entry.tokensBefore ?? null, lastUsageBefore: lastUsage, summaryChars: summary.length, summaryTokens: count(summary) })
      continue
    }
    if (entry.type !== 'message') continue
    const m = entry.message
    if (m.role === 'assistant') {
      turns.assistant++
      const t = providerContextTokens(m)
      if (t !== null && m.stopReason !== 'error' && m.stopReason !== 'aborted') {
        turns.withUsage++
        lastUsage = t
        if (t > peak.tokens) Object.assign(peak, { tokens: t, line })
      }
      for (const b of Array.isArray(m.content) ? m.content : []) if (b?.type === 'toolCall' && isScratchpadTool(b.name)) scratchpadCalls++
    } else if (m.role === 'toolResult') {
      turns.toolResults++
      if (Buffer.byteLength(messageText(m), 'utf8') > thresholdBytes) largeResults++
    } else if (m.role === 'user') turns.user++
  }
  return {
    file,
    format: parsed.format,
    family: parsed.family ?? 'pi',
    version: parsed.version,
    sessionId: parsed.header?.id ?? null,
    lines: parsed.stats.lines,
    entries: parsed.entries.length,
    offBranch: parsed.stats.offBranch,
    problems: parsed.problems,
    turns,
    peak,
    compactions,
    largeToolResults: { thresholdBytes, count: largeResults },
    scratchpadCalls,
  }
}

/** Renders `summarizeTranscript`'s data. */
export function formatTranscriptSummary(s) {
  const out = [`openclaw-context inspect ${s.file}`]
  out.push(
    ...section('session', [
      `${formatName(s.format, s.version)}, ${fmt(s.lines)} lines, ${fmt(s.entries)} entries on the active branch${s.offBranch ? ` (${fmt(s.offBranch)} on other branches)` : ''}`,
      `id ${s.sessionId ?? '-'}`,
    ]),
  )
  out.push(...section('input problems', formatProblems(s.problems)))
  const t = s.turns
  out.push(
    ...section('turns', [
      `${fmt(t.assistant)} assistant turns (${fmt(t.withUsage)} with provider usage), ${fmt(t.user)} user messages, ${fmt(t.toolResults)} tool results (${fmt(s.largeToolResults.count)} over ${fmt(s.largeToolResults.thresholdBytes)} bytes), ${fmt(t.compactions)} compactions`,
      s.peak.line === null ? 'no provider usage' : `peak provider context ${fmt(s.peak.tokens)} tokens (line ${s.peak.line})`,
      `${fmt(s.scratchpadCalls)} scratchpad calls`,
    ]),
  )
  if (s.compactions.length) {
    out.push(
      ...section(
        'compactions',
        s.compactions.map((c) => `line ${c.line}: ${fmt(c.tokensBefore)} tokens before, summary ${fmt(c.summaryTokens)} tokens (${fmt(c.summaryChars)} chars)`),
      ),
    )
  }
  return out.join('\n')
}
