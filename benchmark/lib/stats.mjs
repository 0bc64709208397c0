// Timing utilities: time-bounded sampling, median and spread, ratios, formatting.
//
// Every measurement is a time-bounded loop: it takes samples until `timeMs` has passed (and at
// least `minSamples`), so the whole `npm run bench` stays inside its budget on a slow machine.
// Fast calls are batched so each sample lasts at least `sampleMs`, and the per-call time is the
// sample's time divided by the batch size; that keeps timer resolution out of the figures.

import { performance } from 'node:perf_hooks'

const now = () => performance.now()

/** Scale every time budget (BENCH_SCALE=0.2 for a quick smoke run, 2 for a careful one). */
export const SCALE = Number(process.env.BENCH_SCALE ?? 1) || 1

export function scaled(ms) {
  return Math.max(1, Math.round(ms * SCALE))
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

/** Summary of per-call times in milliseconds. */
export function summarize(samplesMs, extra = {}) {
  const sorted = [...samplesMs].sort((a, b) => a - b)
  const median = quantile(sorted, 0.5)
  const p25 = quantile(sorted, 0.25)
  const p75 = quantile(sorted, 0.75)
  return {
    n: sorted.length,
    median,
    p25,
    p75,
    min: sorted[0],
    max: sorted[sorted.length - 1],
    // half the interquartile range relative to the median: "± x %"
    spread: median > 0 ? (p75 - p25) / 2 / median : 0,
    ...extra,
  }
}

/** Finds a batch size so one sample of `fn` lasts about `sampleMs`. */
function calibrate(fn, sampleMs) {
  let batch = 1
  for (;;) {
    const t0 = now()
    for (let i = 0; i < batch; i++) fn(i)
    const dt = now() - t0
    if (dt >= sampleMs || batch >= 1 << 24) return batch
    batch = dt <= 0 ? batch * 16 : Math.min(batch * 16, Math.ceil((batch * sampleMs * 1.2) / dt))
  }
}

/**
 * Measures a synchronous function. Returns the per-call summary (ms).
 * @param {(i: number) => unknown} fn
 * @param {{ timeMs?: number, minSamples?: number, maxSamples?: number, sampleMs?: number, warmupMs?: number }} [o]
 */
export function measure(fn, o = {}) {
  const timeMs = scaled(o.timeMs ?? 1500)
  const minSamples = o.minSamples ?? 5
  const maxSamples = o.maxSamples ?? 10_000
  const sampleMs = o.sampleMs ?? 2
  // warm up: lets the JIT (for JS) and caches settle before anything counts
  const wEnd = now() + scaled(o.warmupMs ?? Math.min(300, timeMs / 5))
  do fn(0)
  while (now() < wEnd)
  const batch = calibrate(fn, sampleMs)
  const samples = []
  const end = now() + timeMs
  let calls = 0
  const cpu0 = process.cpuUsage()
  while ((now() < end || samples.length < minSamples) && samples.length < maxSamples) {
    const t0 = now()
    for (let i = 0; i < batch; i++) fn(i)
    samples.push((now() - t0) / batch)
    calls += batch
  }
  const cpu = process.cpuUsage(cpu0)
  // CPU time of the whole process (all threads) per call, in ms: less sensitive than wall time to
  // other processes competing for the cores
  return summarize(samples, { batch, calls, cpu: (cpu.user + cpu.system) / 1000 / calls })
}

/**
 * Measures an async function, one call per sample (meant for calls of 10 µs and more).
 * @param {(i: number) => Promise<unknown>} fn
 */
export async function measureAsync(fn, o = {}) {
  const timeMs = scaled(o.timeMs ?? 1500)
  const minSamples = o.minSamples ?? 5
  const maxSamples = o.maxSamples ?? 10_000
  const wEnd = now() + scaled(o.warmupMs ?? Math.min(300, timeMs / 5))
  let i = 0
  do await fn(i++)
  while (now() < wEnd)
  const samples = []
  const end = now() + timeMs
  while ((now() < end || samples.length < minSamples) && samples.length < maxSamples) {
    const t0 = now()
    await fn(i++)
    samples.push(now() - t0)
  }
  return summarize(samples, { batch: 1, calls: samples.length })
}

/** Times one call (no repetition): for expensive one-off operations. */
export function timeOnce(fn) {
  const t0 = now()
  const value = fn()
  return { ms: now() - t0, value }
}

export async function timeOnceAsync(fn) {
  const t0 = now()
  const value = await fn()
  return { ms: now() - t0, value }
}

/** How many times faster `b` is than `a` (a / b), from medians. */
export function speedup(baseline, candidate) {
  const a = typeof baseline === 'number' ? baseline : baseline?.median
  const b = typeof candidate === 'number' ? candidate : candidate?.median
  if (!(a > 0) || !(b > 0)) return NaN
  return a / b
}

// ---------- formatting ----------

export function fmtMs(ms) {
  if (ms == null || Number.isNaN(ms)) return 'n/a'
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`
  if (ms >= 1) return `${ms.toFixed(ms >= 100 ? 0 : ms >= 10 ? 1 : 2)} ms`
  const us = ms * 1000
  if (us >= 1) return `${us.toFixed(us >= 100 ? 0 : us >= 10 ? 1 : 2)} µs`
  return `${(us * 1000).toFixed(0)} ns`
}

export function fmtRatio(x) {
  if (x == null || Number.isNaN(x)) return 'n/a'
  return `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`
}

export function fmtPct(x) {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`
}

/** "1.23 ms ±4 % (n=57)" */
export function fmtStat(s) {
  if (!s) return 'n/a'
  return `${fmtMs(s.median)} ±${(s.spread * 100).toFixed(s.spread < 0.1 ? 1 : 0)} % (n=${s.n})`
}

export function fmtBytes(n) {
  if (n == null || Number.isNaN(n)) return 'n/a'
  const sign = n < 0 ? '-' : ''
  const a = Math.abs(n)
  if (a >= 1 << 30) return `${sign}${(a / (1 << 30)).toFixed(2)} GiB`
  if (a >= 1 << 20) return `${sign}${(a / (1 << 20)).toFixed(1)} MiB`
  if (a >= 1 << 10) return `${sign}${(a / (1 << 10)).toFixed(1)} KiB`
  return `${sign}${a} B`
}

export function fmtInt(n) {
  return Math.round(n).toLocaleString('en-US')
}

/**
 * Measures several async functions in interleaved rounds (one call of each per round, the order
 * rotating), so a disk or machine that slows down mid-run slows all of them alike. For I/O-bound
 * calls whose cost depends on what else the machine is doing.
 * @param {Record<string, (i: number) => Promise<unknown> | unknown>} fns
 * @returns {Promise<Record<string, ReturnType<typeof summarize>>>}
 */
export async function measurePaired(fns, o = {}) {
  const timeMs = scaled(o.timeMs ?? 2000)
  const minSamples = o.minSamples ?? 5
  const names = Object.keys(fns)
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  for (let w = 0; w < (o.warmupRounds ?? 3); w++) for (const n of names) await fns[n](w)
  const end = now() + timeMs
  let round = 0
  while (now() < end || round < minSamples) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(round + k) % names.length]
      const t0 = now()
      await fns[n](round)
      samples[n].push(now() - t0)
    }
    round++
  }
  return Object.fromEntries(names.map((n) => [n, summarize(samples[n], { batch: 1, calls: samples[n].length })]))
}
