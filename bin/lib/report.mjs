// The replay report as a person reads it: one screen, the numbers that matter first.
import { fmt, pct, signed, table } from './format.mjs'

const PROBLEMS_SHOWN = 12

function section(title, lines) {
  return [`${title}`, ...lines.map((l) => `  ${l}`)]
}

export function formatProblems(problems) {
  if (problems.length === 0) return ['none: every line read as a pi session entry']
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
  const fmtName = r.format === 'v3' ? `pi v${r.version ?? 3} (id / parentId tree)` : r.format === 'v1' ? 'pi v1 (no ids)' : 'unknown'
  out.push(`openclaw-context replay ${r.file ?? ''}`.trimEnd())
  out.push(
    ...section('session', [
      `${fmtName}, ${fmt(r.lines)} lines, ${fmt(r.entries)} entries on the active branch${r.offBranch ? ` (${fmt(r.offBranch)} on other branches, not replayed)` : ''}`,
      `id ${r.sessionId ?? '-'}, replayed as ${r.sessionKey}`,
      `state dir ${r.stateDir}`,
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
            }`,
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
        ? [s.calls ? `${s.calls} session.scratchpad calls; ${s.reason}` : `no session.scratchpad calls (${s.reason})`]
        : s.calls === 0
          ? ['no session.scratchpad calls in this session']
          : [
              `${fmt(s.calls)} session.scratchpad calls: ${fmt(s.applied)} applied, ${fmt(s.rejected)} rejected`,
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
