// `replay --html <file>` and `eval --html <file>`: the report as one page a person opens in a browser. The page is
// self-contained: inline styles and SVG, no script, nothing fetched. Per session it draws the context utilisation
// per turn with the gauge and checkpoint lines, every checkpoint and compaction on that curve, and per compaction
// the real summary beside the restore (sizes, and what the restore kept of the summary's files, code spans and
// identifiers: lib/recall.mjs, the eval measure); then the offloaded tool results with the tokens they saved.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fmt, pct } from './format.mjs'
import { native } from './native.mjs'
import { recall, referenceItems } from './recall.mjs'
import { CHECKPOINT_AT, GAUGE_AT } from './replay.mjs'

const esc = (s) =>
  String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')

/** `text` escaped, with every case-insensitive occurrence of `items` (lower-case strings) in <mark>. */
export function highlight(text, items) {
  const lower = text.toLowerCase()
  const spans = []
  for (const it of items) {
    if (!it) continue
    for (let at = lower.indexOf(it); at >= 0; at = lower.indexOf(it, at + it.length)) spans.push([at, at + it.length])
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1])
  let out = ''
  let pos = 0
  for (const [a, b] of spans) {
    if (a < pos) continue // inside a longer mark already
    out += `${esc(text.slice(pos, a))}<mark>${esc(text.slice(a, b))}</mark>`
    pos = b
  }
  return out + esc(text.slice(pos))
}

/**
 * What the restore kept of the summary: the eval measure's items (recall.mjs `referenceItems`, `format` the
 * transcript's), split into kept and missed.
 */
export function keptOfSummary(summary, restore, format) {
  const items = referenceItems(summary ?? '', format, native.redactCredentials)
  const r = recall(items, restore ?? '')
  const missed = new Set(r.missed)
  return {
    items: items.length,
    recall: r.recall,
    kept: items.filter((i) => !missed.has(i.text)).map((i) => i.text),
    missed: r.missed,
  }
}

/**
 * One session's view from a `replay(..., { detail: true })` report; `compactions` may come from elsewhere (eval's
 * rows, with the restore at its budget): `[{ line, turn, tokensBefore, summary, restore, restoreTokens? }]`.
 * `format` is the transcript's ('openclaw', 'claude-code', 'pi': eval-restore.mjs `transcriptKind`).
 */
export function sessionView(name, report, compactions = report.compactions, format = 'pi') {
  return {
    name,
    format,
    window: report.window,
    gaugeAt: report.gauge?.gaugeAt ?? GAUGE_AT,
    checkpointAt: report.gauge?.checkpointAt ?? CHECKPOINT_AT,
    turns: report.turns?.assistant ?? 0,
    series: report.series ?? [],
    checkpoints: (report.checkpoints?.written ?? []).map((c) => ({ id: c.id, trigger: c.trigger, turn: c.turn, line: c.line, utilization: c.utilization, tokens: c.inputTokens })),
    compactions: compactions.map((c) => ({
      line: c.line,
      turn: c.turn,
      tokensBefore: c.tokensBefore ?? report.compactions?.find((x) => x.turn === c.turn)?.tokensBefore ?? null,
      checkpoint: typeof c.checkpoint === 'string' ? c.checkpoint : (c.checkpoint?.id ?? null),
      summary: c.summary ?? '',
      restore: c.restore ?? '',
    })),
    offloads: report.offload?.results ?? [],
  }
}

const W = 960
const H = 300
const PAD = { left: 52, right: 16, top: 16, bottom: 34 }

/** The utilisation chart of one session: inline SVG. */
function chart(v, countTokens) {
  const maxTurn = Math.max(1, v.turns, ...v.series.map((p) => p.turn))
  const top = Math.max(1, ...v.series.map((p) => p.utilization)) // 100 % at least; more when a turn overflowed
  const x = (turn) => PAD.left + ((turn - (maxTurn > 1 ? 1 : 0)) / Math.max(1, maxTurn - 1)) * (W - PAD.left - PAD.right)
  const y = (u) => PAD.top + (1 - u / top) * (H - PAD.top - PAD.bottom)
  const parts = [`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="context utilisation per turn">`]
  for (const u of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(u).toFixed(1)}" y2="${y(u).toFixed(1)}"/>`)
    parts.push(`<text class="axis" x="${PAD.left - 6}" y="${(y(u) + 4).toFixed(1)}" text-anchor="end">${Math.round(u * 100)}%</text>`)
  }
  const ticks = Math.min(10, maxTurn)
  for (let k = 0; k <= ticks; k++) {
    const t = Math.max(1, Math.round(1 + (k * (maxTurn - 1)) / Math.max(1, ticks)))
    parts.push(`<text class="axis" x="${x(t).toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${t}</text>`)
  }
  parts.push(`<text class="axis" x="${(PAD.left + W - PAD.right) / 2}" y="${H - 4}" text-anchor="middle">assistant turn</text>`)
  for (const [cls, u, label] of [
    ['threshold gauge', v.gaugeAt, `gauge line ${Math.round(v.gaugeAt * 100)}%`],
    ['threshold checkpoint', v.checkpointAt, `checkpoint ${Math.round(v.checkpointAt * 100)}%`],
  ]) {
    parts.push(`<line class="${cls}" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(u).toFixed(1)}" y2="${y(u).toFixed(1)}"/>`)
    parts.push(`<text class="${cls}-label" x="${W - PAD.right - 4}" y="${(y(u) - 4).toFixed(1)}" text-anchor="end">${esc(label)}</text>`)
  }
  if (v.series.length) {
    const d = v.series.map((p, i) => `${i ? 'L' : 'M'}${x(p.turn).toFixed(1)},${y(p.utilization).toFixed(1)}`).join(' ')
    parts.push(`<path class="curve" d="${d}"><title>context used per assistant turn (provider usage)</title></path>`)
  }
  for (const c of v.compactions) {
    const cx = x(Math.max(1, c.turn)).toFixed(1)
    parts.push(
      `<g class="marker compaction" data-turn="${c.turn}"><line x1="${cx}" x2="${cx}" y1="${PAD.top}" y2="${H - PAD.bottom}"/>` +
        `<path d="M${cx},${PAD.top} l-6,-0 l6,10 l6,-10 z"/><title>compaction at turn ${c.turn} (line ${c.line}): ${fmt(c.tokensBefore)} tokens before${c.summary ? `, summary ${fmt(countTokens(c.summary))} tokens` : ''}</title></g>`,
    )
  }
  for (const c of v.checkpoints) {
    parts.push(
      `<g class="marker checkpoint trigger-${esc(c.trigger)}" data-turn="${c.turn}"><circle cx="${x(Math.max(1, c.turn)).toFixed(1)}" cy="${y(Math.min(c.utilization, top)).toFixed(1)}" r="6"/>` +
        `<title>${esc(c.id)} (${esc(c.trigger)}) at turn ${c.turn}: ${pct(c.utilization)}, ${fmt(c.tokens)} tokens</title></g>`,
    )
  }
  parts.push('</svg>')
  return parts.join('\n')
}

function compactionSection(c, k, countTokens, format) {
  const summaryTokens = countTokens(c.summary)
  const restoreTokens = countTokens(c.restore)
  const m = keptOfSummary(c.summary, c.restore, format)
  const keptLine =
    m.items === 0
      ? 'The summary names no file, code span or identifier to look for in the restore.'
      : `The restore kept <strong class="kept-count">${m.kept.length} of ${m.items}</strong> files, code spans and identifiers the summary named (${pct(m.recall)}); they are marked in both.`
  return `<section class="compaction" id="compaction-${k + 1}">
<h3>Compaction ${k + 1}: turn ${c.turn}, line ${c.line}${c.tokensBefore ? `, ${fmt(c.tokensBefore)} tokens before` : ''}${c.checkpoint ? `, checkpoint ${esc(c.checkpoint)}` : ''}</h3>
<p class="kept">${keptLine}</p>
<div class="side-by-side">
<div class="summary"><h4>OpenClaw's summary <span class="size">${fmt(summaryTokens)} tokens</span></h4><pre>${highlight(c.summary || '(no summary text)', m.kept)}</pre></div>
<div class="restore"><h4>The restore <span class="size">${fmt(restoreTokens)} tokens</span></h4><pre>${c.restore ? highlight(c.restore, m.kept) : '(no checkpoint was written)'}</pre></div>
</div>
${m.missed.length ? `<p class="missed">Not in the restore: ${m.missed.map((t) => `<code>${esc(t)}</code>`).join(' ')}</p>` : ''}
</section>`
}

function offloadSection(v) {
  if (!v.offloads.length) return '<section class="offloads"><h3>Offloaded tool results</h3><p>No tool result was over the threshold.</p></section>'
  const saved = v.offloads.reduce((a, o) => a + (o.tokensBefore - o.tokensAfter), 0)
  const rows = v.offloads
    .map((o) => `<tr><td>${o.turn}</td><td>${o.line}</td><td>${esc(o.toolName)}</td><td class="n">${fmt(o.tokensBefore)}</td><td class="n">${fmt(o.tokensAfter)}</td><td class="n">${fmt(o.tokensBefore - o.tokensAfter)}</td></tr>`)
    .join('\n')
  return `<section class="offloads"><h3>Offloaded tool results: <span class="saved">${fmt(saved)} tokens saved</span></h3>
<table><thead><tr><th>turn</th><th>line</th><th>tool</th><th>tokens in full</th><th>as an observation</th><th>saved</th></tr></thead>
<tbody>
${rows}
</tbody></table></section>`
}

/**
 * The page. `sessions`: views from sessionView; `countTokens`: the package's counter (o200k_base).
 * @param {{ title: string, intro: string, sessions: object[], countTokens: (t: string) => number }} page
 */
export function renderPage({ title, intro, sessions, countTokens }) {
  const body = sessions
    .map((v) => {
      const peak = v.series.reduce((a, p) => Math.max(a, p.utilization), 0)
      return `<article class="session">
<h2>${esc(v.name)}</h2>
<p class="facts">${fmt(v.turns)} assistant turns, window ${fmt(v.window)} tokens, peak ${pct(peak)}; ${v.checkpoints.length} checkpoint(s), ${v.compactions.length} compaction(s), ${v.offloads.length} result(s) offloaded.</p>
<figure>${chart(v, countTokens)}
<figcaption><span class="key curve-key"></span> context used per assistant turn (provider usage) <span class="key checkpoint-key"></span> checkpoint <span class="key compaction-key"></span> compaction</figcaption></figure>
${v.compactions.map((c, k) => compactionSection(c, k, countTokens, v.format)).join('\n')}
${offloadSection(v)}
</article>`
    })
    .join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1040px; padding: 0 16px; color: #1f2328; }
h1 { font-size: 22px; } h2 { font-size: 19px; border-top: 1px solid #d0d7de; padding-top: 16px; } h3 { font-size: 16px; }
.chart { max-width: 100%; height: auto; background: #fff; }
.grid { stroke: #eaeef2; } .axis { font-size: 11px; fill: #57606a; }
.curve { fill: none; stroke: #0969da; stroke-width: 2.5; }
.threshold { stroke-width: 1.5; stroke-dasharray: 6 4; } .gauge { stroke: #bf8700; } .checkpoint { stroke: #cf222e; }
.gauge-label { fill: #9a6700; font-size: 11px; } .checkpoint-label { fill: #cf222e; font-size: 11px; }
.marker.checkpoint circle { fill: #fb8f44; stroke: #fff; stroke-width: 2; }
.marker.compaction line { stroke: #8250df; stroke-width: 2; } .marker.compaction path { fill: #8250df; }
figcaption { font-size: 13px; color: #57606a; } .key { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: -1px; }
.curve-key { background: #0969da; } .checkpoint-key { background: #fb8f44; border-radius: 6px; } .compaction-key { background: #8250df; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; align-items: start; }
.side-by-side > div { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; min-width: 0; }
.side-by-side h4 { margin: 4px 0 8px; } .size { font-weight: normal; color: #57606a; margin-left: 8px; }
pre { white-space: pre-wrap; word-break: break-word; font: 12.5px/1.4 ui-monospace, monospace; max-height: 520px; overflow: auto; margin: 0; }
mark { background: #dafbe1; } .missed code { background: #ffebe9; padding: 0 3px; margin: 2px; display: inline-block; }
table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #eaeef2; text-align: left; } .n { text-align: right; }
</style></head>
<body>
<h1>${esc(title)}</h1>
<p class="intro">${intro}</p>
${body || '<p>No session to show.</p>'}
</body></html>
`
}

/** Writes `html` to `file` whole or not at all (a temporary file beside it, then a rename). */
export function writePage(file, html) {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`)
  try {
    const fd = openSync(tmp, 'wx', 0o644)
    try {
      writeSync(fd, html)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, file)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}
