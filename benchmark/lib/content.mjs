// Realistic scratchpad content taken from the bundled transcripts: the assistant's own prose for
// notes and plan, the files it read for refs.

import { transcriptFiles, readMessages } from './fixtures.mjs'

let cached

/** A full scratchpad: notes ~3,900 chars, plan ~1,900 chars, 50 refs (real paths). */
export function fullScratchpad() {
  if (cached) return cached
  const prose = []
  const paths = new Set()
  for (const f of transcriptFiles()) {
    for (const m of readMessages(f)) {
      if (m.role !== 'assistant' || !Array.isArray(m.content)) continue
      for (const b of m.content) {
        if (b.type === 'text' && b.text.length > 80) prose.push(b.text.replace(/\s+/g, ' ').trim())
        if (b.type === 'toolCall' && typeof b.arguments?.path === 'string') paths.add(b.arguments.path.replace(/^.*\/pi-mono\//, ''))
      }
    }
  }
  const text = prose.join(' ')
  const notes = text.slice(0, 3900)
  const planSteps = []
  let len = 0
  for (let i = 0; len < 1850; i++) {
    const step = `${i + 1}. ${prose[(i * 7) % prose.length].slice(0, 110)}${i === 3 ? ' <-- current' : i < 3 ? ' DONE' : ''}`
    planSteps.push(step)
    len += step.length + 1
  }
  const plan = planSteps.join('\n').slice(0, 1900)
  const refs = [...paths].slice(0, 50)
  cached = { notes, plan, refs }
  return cached
}
