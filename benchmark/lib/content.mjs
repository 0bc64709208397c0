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

let cpParts

/**
 * A realistic, full checkpoint input (seed 001, 5.3 at the caps a long session reaches: 12
 * decisions, 8 key exchanges, 20 files, 10 tools, 6 open items, 4 learnings), from transcript text.
 */
export function checkpointInput(stateDir, sessionKey, inputTokens) {
  if (!cpParts) {
    const users = []
    const prose = []
    const paths = new Set()
    const tools = new Set()
    for (const f of transcriptFiles()) {
      for (const m of readMessages(f)) {
        if (!Array.isArray(m.content)) continue
        for (const b of m.content) {
          if (b.type === 'text' && m.role === 'user') users.push(b.text.replace(/\s+/g, ' ').trim())
          if (b.type === 'text' && m.role === 'assistant' && b.text.length > 60) prose.push(b.text.trim())
          if (b.type === 'toolCall') {
            tools.add(b.name)
            if (typeof b.arguments?.path === 'string') paths.add(b.arguments.path.replace(/^.*\/pi-mono\//, ''))
          }
        }
      }
    }
    const gist = (s) => s.slice(0, 120)
    const files = [...paths]
    cpParts = {
      working: {
        topic: users[1].slice(0, 100),
        status: 'in_progress',
        interrupted: false,
        lastToolCall: null,
        nextAction: prose[5].slice(0, 200),
      },
      decisions: Array.from({ length: 12 }, (_, i) => ({
        id: `d${i + 1}`,
        what: prose[10 + i * 3].slice(0, 160),
        when: `2025-11-20T23:${String(10 + i * 3).padStart(2, '0')}:00Z`,
      })),
      resources: { filesRead: files.slice(0, 12), filesModified: files.slice(12, 20), toolsUsed: [...tools].slice(0, 10) },
      thread: {
        summary: `${users[1].slice(0, 100)} ... ${users[users.length - 1].slice(0, 100)}`,
        keyExchanges: Array.from({ length: 8 }, (_, i) => ({
          role: i % 2 ? 'agent' : 'user',
          gist: gist(i % 2 ? prose[40 + i] : users[2 + i]),
        })),
      },
      openItems: prose.slice(80, 86).map((p) => p.slice(0, 100)),
      learnings: prose.slice(90, 94).map((p) => p.slice(0, 100)),
    }
  }
  return {
    stateDir,
    sessionKey,
    trigger: 'auto-80pct',
    tokenUsage: { inputTokens, contextWindow: 200000 },
    compactionCount: 1,
    sessionFile: 'sessions/telegram-user123.jsonl',
    channel: 'telegram',
    agentId: 'default',
    ...structuredClone(cpParts),
  }
}
