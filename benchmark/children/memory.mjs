// Child: resident memory with 10,000 sessions' full scratchpads, then its change over many calls.
// argv: <native|baseline> <calls>. Run with --expose-gc so JS garbage is collected before each
// reading (what remains is live memory, native or JS).

import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { report } from '../lib/child.mjs'
import { INDEX_JS } from '../lib/native.mjs'
import { fullScratchpad } from '../lib/content.mjs'

const [impl, callsArg] = process.argv.slice(2)
const calls = Number(callsArg)
const SESSIONS = 10_000
const gc = globalThis.gc ?? (() => {})
const mem = () => {
  gc()
  gc()
  const m = process.memoryUsage()
  return { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers }
}

const c = fullScratchpad()
let apply
let get
if (impl === 'native') {
  const native = createRequire(import.meta.url)(INDEX_JS)
  apply = native.applyScratchpadAction
  get = native.getScratchpadContent
  native.countTokens('warm up the tables')
} else {
  const { ScratchpadStore } = await import('../baselines/scratchpad.mjs')
  const store = new ScratchpadStore()
  apply = (id, a, l) => store.apply(id, a, l)
  get = (id) => store.getContentCached(id)
  apply('warm-up', { action: 'set_notes', content: 'warm up the tables' })
  store.clear('warm-up')
}

const before = mem()
const t0 = performance.now()
// each session gets its own text (a rotation of the shared content), so nothing is shared
for (let s = 0; s < SESSIONS; s++) {
  const id = `session-${s}`
  const k = (s * 37) % 500
  apply(id, { action: 'set_notes', content: `${s} ${c.notes.slice(k)}${c.notes.slice(0, k)}`.slice(0, 3900) })
  apply(id, { action: 'set_plan', content: `${s} ${c.plan}`.slice(0, 1900) })
  // fresh string copies (same text, so the token budget holds), as a host reading session files has
  apply(id, { action: 'refs.set', items: c.refs.map((r) => Buffer.from(r).toString()) })
}
const fillMs = performance.now() - t0
const filled = mem()
const sample = get('session-0')

const readings = [{ calls: 0, ...filled }]
const every = Math.max(1, Math.floor(calls / 10))
const t1 = performance.now()
for (let i = 1; i <= calls; i++) {
  const id = `session-${i % SESSIONS}`
  const r = i % 50
  if (r === 0) apply(id, { action: 'refs.add', ref: `src/generated/file-${i}.ts` })
  else if (r === 25) apply(id, { action: 'set_plan', content: Math.floor(i / SESSIONS) & 1 ? c.plan.slice(0, 1800) : c.plan.slice(100, 1900) })
  else get(id)
  if (i % every === 0) readings.push({ calls: i, ...mem() })
}
const callsMs = performance.now() - t1
report({ impl, sessions: SESSIONS, before, filled, fillMs, calls, callsMs, readings, blockChars: sample?.length ?? 0 })
