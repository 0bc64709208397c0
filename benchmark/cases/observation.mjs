// Observation store (seeds 003 and 004): offloading 100 KB and 10 MB, and a `range` read at the
// end of a 100 MB entry (goal < 1 ms). For scale, a naive JS store beside it: `writeFile` of the
// JSON (with fsync) and a range read that loads the whole file and slices it.

import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import { promises as fsp } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { measureAsync, measure, timeOnceAsync, fmtMs, fmtStat, fmtRatio, speedup } from '../lib/stats.mjs'
import { native, has, missing, ROOT } from '../lib/native.mjs'
import { transcriptText } from '../lib/fixtures.mjs'
import { table, MET, MISSED, SKIPPED } from '../lib/report.mjs'

export const title = 'Observation store'

function idOf(res) {
  return res?.observation?.scratchpad_id ?? res?.observation?.scratchpadId ?? res?.entry?.id ?? res?.id
}

/** The field of `OffloadInput` that turns fsync off, if this build has one. */
function noFsyncField() {
  try {
    const dts = readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8')
    const body = /export interface OffloadInput \{([\s\S]*?)\n\}/.exec(dts)?.[1] ?? ''
    for (const f of ['durable', 'fsync']) if (new RegExp(`\\b${f}\\?:\\s*boolean`).test(body)) return f
  } catch {}
  return null
}

/** The last `n` code points of `s` (what a range over the last `n` characters returns). */
function lastCodePoints(s, n) {
  let i = s.length
  for (let k = 0; k < n && i > 0; k++) {
    i--
    const c = s.charCodeAt(i)
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = s.charCodeAt(i - 1)
      if (h >= 0xd800 && h <= 0xdbff) i--
    }
  }
  return s.slice(i)
}

/** The naive JS store: one JSON file per observation, fsync'd, read whole. */
async function naiveOffload(dir, content, n) {
  const file = path.join(dir, `obs-${n}.json`)
  const fh = await fsp.open(file, 'w')
  await fh.writeFile(JSON.stringify({ content }))
  await fh.sync()
  await fh.close()
  return file
}

export async function run({ report, log }) {
  const lines = []
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctx-bench-obs-'))
  try {
    const text = transcriptText()
    const make = (bytes) => {
      let s = text
      while (s.length < bytes) s += text
      // never end on half a surrogate pair
      return s.slice(0, bytes).toWellFormed()
    }
    const sizes = [
      { label: '100 KB', bytes: 100 * 1024, timeMs: 1500 },
      { label: '10 MB', bytes: 10 * 1024 * 1024, timeMs: 3000 },
    ]
    const hasOffload = has('offloadObservation')
    const noFsync = noFsyncField()
    lines.push(
      'Content: real transcript text (mostly ASCII). Every offload is over the 4 KB threshold, so it is ' +
        'parked (content file, line/char index, catalog) and the synthetic observation of seed 003 comes back. ' +
        'The naive JS row writes `JSON.stringify({content})` to a file with fsync and no index.',
      '',
    )
    const rows = []
    let n = 0
    for (const s of sizes) {
      const content = make(s.bytes)
      log(`observation: offload ${s.label}`)
      const naive = await measureAsync(() => naiveOffload(dir, content, n++ % 8), { timeMs: s.timeMs, minSamples: 3 })
      let nat
      let natFast
      if (hasOffload) {
        let k = 0
        nat = await measureAsync(
          () => native.offloadObservation({ stateDir: dir, sessionKey: `bench-${s.label}`, content, toolName: 'read', turnId: `t${k++}` }),
          { timeMs: s.timeMs, minSamples: 3 },
        )
        if (noFsync) {
          natFast = await measureAsync(
            () => native.offloadObservation({ stateDir: dir, sessionKey: `bench-fast-${s.label}`, content, toolName: 'read', [noFsync]: false }),
            { timeMs: s.timeMs, minSamples: 3 },
          )
        }
      }
      rows.push([
        `offload ${s.label}`,
        fmtStat(naive),
        nat ? fmtStat(nat) : 'n/a',
        natFast ? fmtStat(natFast) : 'n/a',
        nat ? `${(s.bytes / (1 << 20) / (nat.median / 1000)).toFixed(0)} MB/s` : 'n/a',
      ])
    }
    lines.push(...table(['operation', 'naive JS (writeFile + fsync)', '`offloadObservation` (durable)', 'no fsync', 'native throughput'], rows))
    lines.push('')

    // ---- range read at the end of a 100 MB entry ----
    if (!hasOffload || !has('readObservation')) {
      report.goal({ case: '`readObservation` range at the end of a 100 MB entry', goal: '< 1 ms', figure: missing('offloadObservation', 'readObservation'), status: SKIPPED })
      report.section(title, lines)
      return
    }
    log('observation: offloading a 100 MB entry')
    const big = make(100 * 1024 * 1024)
    const once = await timeOnceAsync(() => native.offloadObservation({ stateDir: dir, sessionKey: 'bench-100mb', content: big, toolName: 'read' }))
    const id = idOf(once.value)
    const naiveFile = await naiveOffload(dir, big, 'big')
    // the store counts characters as code points (not UTF-16 units): take its total from a first read
    const probe = await native.readObservation({ stateDir: dir, sessionKey: 'bench-100mb', id, mode: 'range', start: 0, end: 1 })
    const total = probe.totalChars
    const req = { stateDir: dir, sessionKey: 'bench-100mb', id, mode: 'range', start: total - 1000, end: total }
    const check = await native.readObservation(req)
    const expected = lastCodePoints(big, 1000)
    const ok = check?.content === expected
    const unitsNote =
      total === big.length
        ? ''
        : ` The entry has ${total} characters by the store's count and ${big.length} UTF-16 code units by JS \`length\`: ` +
          'offsets are code points, not JS string indices.'
    log('observation: range reads')
    const rangeAsync = await measureAsync(() => native.readObservation(req), { timeMs: 2000 })
    const rangeSync = has('readObservationSync') ? measure(() => native.readObservationSync(req), { timeMs: 1500 }) : null
    const naiveRange = await measureAsync(async () => lastCodePoints(JSON.parse(await fsp.readFile(naiveFile, 'utf8')).content, 1000), {
      timeMs: 1,
      minSamples: 2,
      warmupMs: 1,
    })
    lines.push('### range read: the last 1,000 characters of a 100 MB entry', '')
    lines.push(
      ...table(
        ['implementation', 'per read', 'speed-up of `readObservation`'],
        [
          ['naive JS (read + parse the whole file, slice)', fmtStat(naiveRange), fmtRatio(speedup(naiveRange, rangeAsync))],
          ['`readObservation` (Promise, libuv pool)', fmtStat(rangeAsync), '1x'],
          ...(rangeSync ? [['`readObservationSync`', fmtStat(rangeSync), '—']] : []),
        ],
      ),
    )
    lines.push(
      '',
      `Offloading the 100 MB entry took ${fmtMs(once.ms)} (once). The range read returned ` +
        `${ok ? 'exactly the last 1,000 characters' : '**content that differs from the last 1,000 characters**'}.${unitsNote}`,
    )
    report.goal({
      case: '`readObservation` range at the end of a 100 MB entry',
      goal: '< 1 ms',
      figure: `${fmtMs(rangeAsync.median)} (Promise)${rangeSync ? `, ${fmtMs(rangeSync.median)} (sync)` : ''}`,
      status: rangeAsync.median < 1 && ok ? MET : MISSED,
      why: ok
        ? 'the read maps a character offset to a byte offset through the entry\'s index; if that lookup or the ' +
          'catalog load is not O(1) in the entry size, it dominates.'
        : 'the read returned the wrong characters, so the figure does not count.',
      close: 'keep a sparse char->byte index (one checkpoint per 64 KB) next to the entry and read only the window asked for.',
    })
    report.section(title, lines)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

