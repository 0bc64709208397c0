// Scratchpad: getScratchpadContent (goal < 2 µs per call) and applyScratchpadAction against the
// plain-JS implementation of seed 002 in baselines/scratchpad.mjs.

import { ScratchpadStore } from '../baselines/scratchpad.mjs'
import { measure, speedup, fmtMs, fmtRatio, fmtStat, fmtInt } from '../lib/stats.mjs'
import { native, has, missing } from '../lib/native.mjs'
import { table, MET, MISSED, SKIPPED } from '../lib/report.mjs'
import { fullScratchpad } from '../lib/content.mjs'

export const title = 'Scratchpad'

export async function run({ report, log }) {
  const c = fullScratchpad()
  const lines = [
    `A full scratchpad built from real transcript text: notes ${fmtInt(c.notes.length)} chars, plan ` +
      `${fmtInt(c.plan.length)} chars, ${c.refs.length} refs, default limits (4,000 / 2,000 chars, 50 refs, ` +
      '2,000 tokens). The baseline counts tokens with gpt-tokenizer, as a TS implementation would.',
    '',
  ]
  const base = new ScratchpadStore()
  const fill = (apply, id) => {
    apply(id, { action: 'set_notes', content: c.notes })
    apply(id, { action: 'set_plan', content: c.plan })
    apply(id, { action: 'refs.set', items: c.refs })
  }
  const baseApply = (id, a, l) => base.apply(id, a, l)
  fill(baseApply, 'bench-get')
  const nativeApi = has('applyScratchpadAction', 'getScratchpadContent')
  const nativeApply = nativeApi ? (id, a, l) => native.applyScratchpadAction(id, a, l) : null
  if (nativeApi) {
    native.clearScratchpad?.('bench-get')
    fill(nativeApply, 'bench-get')
  }

  // ---- same state, same block? ----
  const baseBlock = base.getContent('bench-get')
  if (nativeApi) {
    const nativeBlock = native.getScratchpadContent('bench-get')
    lines.push(
      nativeBlock === baseBlock
        ? `Both render the same block for this state (${fmtInt(baseBlock.length)} chars, ${base.sessions.get('bench-get').tokens} tokens by gpt-tokenizer).`
        : `**The rendered blocks differ** (native ${nativeBlock?.length} chars, baseline ${baseBlock.length} chars): the ratios compare slightly different work.`,
      '',
    )
  }

  // ---- getScratchpadContent ----
  log('scratchpad: getScratchpadContent')
  const get = {
    'baseline, render per call': measure(() => base.getContent('bench-get'), { timeMs: 1000 }),
    'baseline, cached block': measure(() => base.getContentCached('bench-get'), { timeMs: 1000 }),
  }
  if (nativeApi) {
    get.native = measure(() => native.getScratchpadContent('bench-get'), { timeMs: 1500 })
    // the same call for a session the registry does not hold: the binding's fixed cost per call
    get.overhead = measure(() => native.getScratchpadContent('bench-no-such-session'), { timeMs: 800 })
  }
  const getLabel = { native: '`getScratchpadContent` (native)', overhead: '`getScratchpadContent` of an unknown session (call overhead only)' }
  const getRows = Object.entries(get).map(([k, s]) => [
    getLabel[k] ?? k,
    fmtStat(s),
    k === 'native' ? '1x' : k === 'overhead' ? '—' : fmtRatio(speedup(s, get.native)),
  ])
  lines.push('### getScratchpadContent (full scratchpad)', '')
  lines.push(...table(['implementation', 'per call', 'native speed-up'], getRows))
  lines.push(
    '',
    'The cached baseline returns a JS string it already holds (a `Map` lookup); the native call crosses ' +
      'the N-API boundary and creates a new JS string from the cached Rust block on every call.',
    '',
  )
  if (nativeApi) {
    const ms = get.native.median
    report.goal({
      case: '`getScratchpadContent`, full scratchpad',
      goal: '< 2 µs per call',
      figure: `${fmtMs(ms)} (baseline rendering per call: ${fmtMs(get['baseline, render per call'].median)}, cached: ${fmtMs(get['baseline, cached block'].median)})`,
      status: ms < 0.002 ? MET : MISSED,
      why:
        `the call itself costs ${fmtMs(get.overhead.median)} (same call for an unknown session: argument ` +
        'conversion, panic guard, registry lock); the other ' +
        `${fmtMs(Math.max(0, ms - get.overhead.median))} is creating a new ${fmtInt(baseBlock.length)}-char V8 string ` +
        'on every call (a copy of the cached block, plus the young-generation garbage it leaves), where the JS ' +
        'baseline hands back the string it already holds.',
      close:
        'hand back the same JS string while the block is unchanged: keep a napi reference to the string created ' +
        'for the current version of each session and return it until the next change (no copy, no garbage), or ' +
        'create it as an external Latin-1 string over the cached block (`node_api_create_external_string_latin1`).',
    })
  } else {
    report.goal({ case: '`getScratchpadContent`, full scratchpad', goal: '< 2 µs per call', figure: missing('getScratchpadContent'), status: SKIPPED })
  }

  // ---- applyScratchpadAction ----
  const workloads = makeWorkloads(c)
  const rows = []
  const ratios = []
  for (const w of workloads) {
    log(`scratchpad: ${w.name}`)
    const bId = `bench-${w.key}`
    w.setup(baseApply, bId)
    const b = measure(w.step(baseApply, bId), { timeMs: 1200, minSamples: 5 })
    let n
    if (nativeApi) {
      native.clearScratchpad?.(bId)
      w.setup(nativeApply, bId)
      n = measure(w.step(nativeApply, bId), { timeMs: 1200, minSamples: 5 })
      native.clearScratchpad?.(bId)
      ratios.push({ name: w.name, r: speedup(b, n) })
    }
    rows.push([w.name, fmtStat(b), n ? fmtStat(n) : 'n/a', n ? fmtRatio(speedup(b, n)) : 'n/a'])
  }
  lines.push('### applyScratchpadAction (each change re-renders the block and counts its tokens)', '')
  lines.push(...table(['action (state)', 'baseline', 'native', 'native speed-up'], rows))
  report.section(title, lines)

  if (nativeApi) {
    const worst = ratios.reduce((a, b) => (a.r <= b.r ? a : b))
    const mixed = ratios.find((r) => r.name.startsWith('mixed'))
    report.goal({
      case: '`applyScratchpadAction` vs TS baseline',
      goal: 'faster than the baseline (issue 7 sets no number)',
      figure: `${fmtRatio(mixed.r)} on the mixed sequence; slowest action ${worst.name}: ${fmtRatio(worst.r)}`,
      status: worst.r > 1 ? MET : MISSED,
      why:
        `on \`${worst.name}\` the work is dominated by converting the arguments (the action object goes ` +
        'through serde_json) and building the result object (message, usage, persist with copies of the ' +
        'space), not by the render and count, so the JS baseline keeps up.',
      close:
        'return `persist` data without re-copying the space when the host does not need it, and convert ' +
        'the action with napi object accessors instead of a full serde_json round trip.',
    })
  } else {
    report.goal({ case: '`applyScratchpadAction` vs TS baseline', goal: 'faster than the baseline', figure: missing('applyScratchpadAction'), status: SKIPPED })
  }
}

/** Steady-state workloads: each `step` returns a function that applies one action per call. */
function makeWorkloads(c) {
  const notesA = c.notes.slice(0, 3000)
  const notesB = c.notes.slice(500, 3500)
  const planA = c.plan.slice(0, 1500)
  const planB = c.plan.slice(300, 1800)
  const refsB = c.refs.map((r) => `${r}#L1`)
  const finding = c.notes.slice(0, 180)
  return [
    {
      key: 'set-notes',
      name: 'set_notes 3,000 chars (alternating contents)',
      setup: (apply, id) => apply(id, { action: 'set_plan', content: planA }),
      step: (apply, id) => {
        let k = 0
        return () => apply(id, { action: 'set_notes', content: k++ & 1 ? notesA : notesB })
      },
    },
    {
      key: 'append',
      name: 'append_notes 180 chars (notes reset by set_notes every 10th call)',
      setup: (apply, id) => apply(id, { action: 'set_plan', content: planA }),
      step: (apply, id) => {
        let k = 0
        return () =>
          k++ % 11 === 0
            ? apply(id, { action: 'set_notes', content: notesA.slice(0, 1000) })
            : apply(id, { action: 'append_notes', content: finding })
      },
    },
    {
      key: 'set-plan',
      name: 'set_plan 1,500 chars (alternating)',
      setup: (apply, id) => apply(id, { action: 'set_notes', content: notesA }),
      step: (apply, id) => {
        let k = 0
        return () => apply(id, { action: 'set_plan', content: k++ & 1 ? planA : planB })
      },
    },
    {
      key: 'refs-add',
      name: 'refs.add at 50 refs (drops the oldest)',
      setup: (apply, id) => {
        apply(id, { action: 'set_notes', content: notesA.slice(0, 1500) })
        apply(id, { action: 'refs.set', items: c.refs })
      },
      step: (apply, id) => {
        let k = 0
        return () => apply(id, { action: 'refs.add', ref: `src/generated/file-${k++}.ts` })
      },
    },
    {
      key: 'refs-remove',
      name: 'refs.remove + refs.add back (pairs)',
      setup: (apply, id) => {
        apply(id, { action: 'set_notes', content: notesA.slice(0, 1500) })
        apply(id, { action: 'refs.set', items: c.refs.slice(0, 40) })
      },
      step: (apply, id) => {
        let k = 0
        return () => {
          const r = c.refs[(k >> 1) % 40]
          return apply(id, k++ & 1 ? { action: 'refs.add', ref: r } : { action: 'refs.remove', ref: r })
        }
      },
    },
    {
      key: 'refs-set',
      name: 'refs.set 50 items (alternating lists)',
      setup: (apply, id) => apply(id, { action: 'set_notes', content: notesA.slice(0, 1500) }),
      step: (apply, id) => {
        let k = 0
        return () => apply(id, { action: 'refs.set', items: k++ & 1 ? c.refs : refsB })
      },
    },
    {
      key: 'mixed',
      name: 'mixed agent sequence (set_plan, 3 x append_notes, refs.add, refs.remove, set_notes)',
      setup: () => {},
      step: (apply, id) => {
        let k = 0
        const seq = [
          () => ({ action: 'set_plan', content: k & 8 ? planA : planB }),
          () => ({ action: 'append_notes', content: finding }),
          () => ({ action: 'append_notes', content: finding }),
          () => ({ action: 'append_notes', content: finding }),
          () => ({ action: 'refs.add', ref: c.refs[k % 50] }),
          () => ({ action: 'refs.remove', ref: c.refs[(k - 1) % 50] }),
          () => ({ action: 'set_notes', content: notesA.slice(0, 1200 + (k % 7)) }),
        ]
        return () => apply(id, seq[k++ % seq.length]())
      },
    },
  ]
}
