// `replay --html` and `eval --html` (bin/lib/html-report.mjs): the page is self-contained, and opened in real headless
// Chromium it shows what a person should see: the curve drawn across the chart, the gauge and checkpoint lines at
// their heights, every checkpoint and compaction as a marker on the curve at its turn, each real summary beside its
// restore with their sizes, and the offloaded results with the tokens saved. The layout is measured by Chromium
// itself (a copy of the page with a measuring script, read back with --dump-dom), and a screenshot is checked for
// the colours of the curve and markers actually painted.
//
// Chromium comes from the system (Debian's `chromium`; .ci/run installs it, bounded, like qemu): CHROMIUM names
// one, else chromium / chromium-browser / google-chrome on PATH. Without one the browser checks are skipped with
// a note saying so; the page's own checks still run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { inflateSync } from 'node:zlib'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI = join(root, 'bin', 'openclaw-context.mjs')
// A real pi session with two compactions (MIT, see the README beside it).
const SESSION = join(root, '__test__', 'fixtures', 'transcripts', 'before-compaction.jsonl')

// Found by looking, not by running it: `chromium --version` on a busy machine can take longer than any limit set
// here, and a browser that is there must not make its checks skip (npm test finds it once and passes CHROMIUM to
// both of its vitest runs). One that is there but does not work fails the checks that use it.
function findChromium(): string | null {
  if (process.env.CHROMIUM) return process.env.CHROMIUM
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (!dir || !isAbsolute(dir)) continue
      try {
        accessSync(join(dir, name), constants.X_OK)
        return join(dir, name)
      } catch {
        // not in this folder
      }
    }
  }
  return null
}
const chromium = findChromium()
if (!chromium) console.warn('report-html: no Chromium found (CHROMIUM, chromium, chromium-browser, google-chrome): the browser checks are skipped; `apt-get install -y chromium` (Debian) runs them')

let dir: string
let replayHtml: string
let evalHtml: string
let report: any
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'report-html-'))
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
    expect(r.status, r.stderr).toBe(0)
    return r
  }
  const r = run(['replay', SESSION, '--json', '--html', join(dir, 'replay.html')])
  expect(r.stderr).toContain(`the HTML report is in ${join(dir, 'replay.html')}`)
  report = JSON.parse(r.stdout)
  replayHtml = readFileSync(join(dir, 'replay.html'), 'utf8')
  run(['eval', SESSION, '--html', join(dir, 'eval.html')])
  evalHtml = readFileSync(join(dir, 'eval.html'), 'utf8')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs headless Chromium on `file` with `args`; its stdout. */
function browse(args: string[], file: string): string {
  const r = spawnSync(
    chromium as string,
    ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--user-data-dir=${join(dir, 'profile')}`, '--window-size=1200,2600', ...args, pathToFileURL(file).href],
    { encoding: 'utf8', timeout: 90_000, maxBuffer: 64 << 20 },
  )
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

// Read in the browser: geometry of what is drawn, text as rendered (innerText).
const MEASURE = `<script>
const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height } }
const out = { sessions: [] }
for (const s of document.querySelectorAll('article.session')) {
  const svg = s.querySelector('svg.chart'), curve = s.querySelector('path.curve')
  out.sessions.push({
    chart: box(svg),
    curve: curve ? { length: curve.getTotalLength(), box: box(curve) } : null,
    gaugeLine: box(s.querySelector('line.threshold.gauge')),
    checkpointLine: box(s.querySelector('line.threshold.checkpoint')),
    checkpoints: [...s.querySelectorAll('g.marker.checkpoint')].map((g) => ({ turn: +g.dataset.turn, trigger: g.classList.contains('trigger-compaction') ? 'compaction' : 'auto', box: box(g.querySelector('circle')) })),
    compactions: [...s.querySelectorAll('g.marker.compaction')].map((g) => ({ turn: +g.dataset.turn, box: box(g.querySelector('line')) })),
    pairs: [...s.querySelectorAll('.side-by-side')].map((p) => ({
      summary: box(p.querySelector('.summary')), restore: box(p.querySelector('.restore')),
      summaryText: p.querySelector('.summary').innerText, restoreText: p.querySelector('.restore').innerText,
      marks: p.querySelectorAll('mark').length,
    })),
    kept: [...s.querySelectorAll('p.kept')].map((p) => p.innerText),
    saved: s.querySelector('.offloads .saved')?.innerText ?? null,
    offloadRows: s.querySelectorAll('.offloads tbody tr').length,
  })
}
const pre = document.createElement('pre'); pre.id = 'measured'; pre.textContent = encodeURIComponent(JSON.stringify(out)); document.body.append(pre)
</script>`

function measure(html: string, name: string) {
  const file = join(dir, `${name}-measured.html`)
  writeFileSync(file, html.replace('</body>', `${MEASURE}</body>`))
  const dom = browse(['--dump-dom'], file)
  const m = /<pre id="measured">([^<]*)<\/pre>/.exec(dom)
  expect(m, 'the measuring script ran in Chromium').not.toBeNull()
  return JSON.parse(decodeURIComponent((m as RegExpExecArray)[1]))
}

/** A PNG (8-bit RGB or RGBA, non-interlaced, as Chromium writes screenshots) as pixels. */
function decodePng(buf: Buffer) {
  let pos = 8
  let width = 0
  let height = 0
  let channels = 0
  const idat: Buffer[] = []
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos)
    const type = buf.toString('latin1', pos + 4, pos + 8)
    const data = buf.subarray(pos + 8, pos + 8 + len)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      expect(data[8]).toBe(8)
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0
      expect(channels, 'RGB or RGBA').toBeGreaterThan(0)
      expect(data[12], 'not interlaced').toBe(0)
    } else if (type === 'IDAT') idat.push(data)
    pos += 12 + len
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const px = Buffer.alloc(height * stride)
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]
    for (let x = 0; x < stride; x++) {
      const cur = raw[y * (stride + 1) + 1 + x]
      const a = x >= channels ? px[y * stride + x - channels] : 0
      const b = y > 0 ? px[(y - 1) * stride + x] : 0
      const c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels] : 0
      const p = a + b - c
      const pa = Math.abs(p - a)
      const pb = Math.abs(p - b)
      const pc = Math.abs(p - c)
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
      px[y * stride + x] = (cur + [0, a, b, (a + b) >> 1, paeth][f]) & 255
    }
  }
  /** Pixels within `tol` of `rgb` inside the rectangle. */
  const count = (rgb: [number, number, number], r: { left: number; top: number; right: number; bottom: number }, tol = 12) => {
    let n = 0
    for (let y = Math.max(0, Math.floor(r.top)); y < Math.min(height, Math.ceil(r.bottom)); y++) {
      for (let x = Math.max(0, Math.floor(r.left)); x < Math.min(width, Math.ceil(r.right)); x++) {
        const i = y * stride + x * channels
        if (Math.abs(px[i] - rgb[0]) <= tol && Math.abs(px[i + 1] - rgb[1]) <= tol && Math.abs(px[i + 2] - rgb[2]) <= tol) n++
      }
    }
    return n
  }
  return { width, height, count }
}

describe('the HTML report', () => {
  it('is one self-contained page: no script, nothing fetched', () => {
    for (const html of [replayHtml, evalHtml]) {
      expect(html.startsWith('<!doctype html>')).toBe(true)
      expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|src=|href=/i)
      expect(html).toContain('<svg class="chart"')
    }
  })

  it('a --html path whose directory does not exist is a usage error, before any replay, and writes nothing', () => {
    const target = join(dir, 'no-such-dir', 'r.html')
    for (const cmd of ['replay', 'eval']) {
      const r = spawnSync(process.execPath, [CLI, cmd, SESSION, '--html', target], { encoding: 'utf8' })
      expect(r.status, cmd).toBe(2)
      expect(r.stderr).toContain(`--html ${target}: no directory ${join(dir, 'no-such-dir')} to write it in`)
    }
  })

  it('says what the replay says: the compactions, the real summaries, the tokens offloading saved', () => {
    expect(report.compactions).toHaveLength(2)
    expect(report.series).toBeUndefined() // --json is the same with or without --html
    for (const c of report.compactions) expect(replayHtml).toContain(`line ${c.line}, ${c.tokensBefore.toLocaleString('en-US')} tokens before, checkpoint ${c.checkpoint}`)
    expect(replayHtml).toContain(`${report.offload.tokensMoved.toLocaleString('en-US')} tokens saved`)
    expect(replayHtml.match(/<g class="marker checkpoint/g)).toHaveLength(report.checkpoints.written.length)
    const summary = readFileSync(SESSION, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"compaction"'))
      .map((l) => JSON.parse(l).summary as string)
    expect(replayHtml.replace(/<\/?mark>/g, '')).toContain(summary[0].split('\n')[0].replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'))
  })

  it.skipIf(!chromium)('in Chromium: the curve, the threshold lines and every marker are drawn where they belong', () => {
    const m = measure(replayHtml, 'replay')
    expect(m.sessions).toHaveLength(1)
    const s = m.sessions[0]
    // The curve runs across most of the chart's width and has real height.
    expect(s.curve.length).toBeGreaterThan(s.chart.width)
    expect(s.curve.box.width).toBeGreaterThan(s.chart.width * 0.8)
    expect(s.curve.box.height).toBeGreaterThan(s.chart.height * 0.5)
    // 80 % is drawn above 70 %, both inside the chart.
    expect(s.checkpointLine.top).toBeLessThan(s.gaugeLine.top)
    for (const l of [s.gaugeLine, s.checkpointLine]) expect(l.top > s.chart.top && l.bottom < s.chart.bottom).toBe(true)
    // One marker per checkpoint and compaction, inside the chart, left to right in turn order.
    expect(s.checkpoints).toHaveLength(report.checkpoints.written.length)
    expect(s.compactions.map((c: any) => c.turn)).toEqual(report.compactions.map((c: any) => c.turn))
    for (const list of [s.checkpoints, s.compactions]) {
      for (const k of list) expect(k.box.left >= s.chart.left && k.box.right <= s.chart.right + 1).toBe(true)
      const xs = list.map((k: any) => k.box.left)
      expect(xs).toEqual([...xs].sort((a: number, b: number) => a - b))
    }
    // An 80 % checkpoint sits on the curve at or above the checkpoint line.
    for (const c of s.checkpoints.filter((k: any) => k.trigger === 'auto')) expect((c.box.top + c.box.bottom) / 2).toBeLessThanOrEqual(s.checkpointLine.top + 1)
    // The compaction-trigger checkpoint stands on its compaction's line.
    for (const c of s.compactions) {
      const cp = s.checkpoints.find((k: any) => k.trigger === 'compaction' && k.turn === c.turn)
      expect(cp, `a checkpoint at the compaction of turn ${c.turn}`).toBeTruthy()
      expect(Math.abs((cp.box.left + cp.box.right) / 2 - (c.box.left + c.box.right) / 2)).toBeLessThan(2)
    }
  })

  it.skipIf(!chromium)('in Chromium: each real summary beside its restore, with sizes and what the restore kept', () => {
    for (const [html, name] of [
      [replayHtml, 'replay'],
      [evalHtml, 'eval'],
    ]) {
      const s = measure(html, name).sessions[0]
      expect(s.pairs, name).toHaveLength(2)
      for (const p of s.pairs) {
        // Side by side: the same top, the restore right of the summary, both wide enough to read.
        expect(Math.abs(p.summary.top - p.restore.top)).toBeLessThan(2)
        expect(p.restore.left).toBeGreaterThanOrEqual(p.summary.right)
        for (const b of [p.summary, p.restore]) expect(b.width > 300 && b.height > 100).toBe(true)
        expect(p.summaryText).toMatch(/^OpenClaw's summary\s+[\d,]+ tokens/)
        expect(p.restoreText).toMatch(/^The restore\s+[\d,]+ tokens/)
        expect(p.restoreText).toContain('[Post-compaction checkpoint restore]')
        expect(p.summaryText).toContain('# Context Checkpoint')
        expect(p.marks).toBeGreaterThan(0)
      }
      for (const k of s.kept) expect(k).toMatch(/^The restore kept \d+ of \d+ files, code spans and identifiers the summary named \([\d.]+%\)/)
      // The observations carry random ids, so another replay (eval's) counts a few tokens apart.
      const saved = Number(/^([\d,]+) tokens saved$/.exec(s.saved)?.[1].replace(/,/g, ''))
      if (name === 'replay') expect(saved).toBe(report.offload.tokensMoved)
      else expect(Math.abs(saved - report.offload.tokensMoved)).toBeLessThan(report.offload.tokensMoved * 0.01)
      expect(s.offloadRows).toBe(report.offload.offloaded)
    }
  })

  it.skipIf(!chromium)('in Chromium: a screenshot has the curve and the checkpoint and compaction markers painted in the chart', () => {
    const s = measure(replayHtml, 'shot').sessions[0]
    const png = join(dir, 'replay.png')
    browse([`--screenshot=${png}`], join(dir, 'replay.html'))
    const img = decodePng(readFileSync(png))
    expect(img.width).toBe(1200)
    expect(img.count([0x09, 0x69, 0xda], s.chart), 'the curve (#0969da)').toBeGreaterThan(500)
    expect(img.count([0xfb, 0x8f, 0x44], s.chart), 'checkpoint markers (#fb8f44)').toBeGreaterThan(50 * report.checkpoints.written.length)
    expect(img.count([0x82, 0x50, 0xdf], s.chart), 'compaction markers (#8250df)').toBeGreaterThan(100)
  })
})
