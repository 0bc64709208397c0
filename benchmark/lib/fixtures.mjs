// Inputs shared by the cases: the text of the bundled real transcripts, their messages, and
// the two pathological 1 MB inputs.

import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './native.mjs'

export const TRANSCRIPTS_DIR = path.join(ROOT, '__test__', 'fixtures', 'transcripts')

export function transcriptFiles() {
  return readdirSync(TRANSCRIPTS_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(TRANSCRIPTS_DIR, f))
}

/** The pi agent messages of one transcript, in order. */
export function readMessages(file) {
  const out = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue
    const entry = JSON.parse(line)
    if (entry.type === 'message' && entry.message) out.push(entry.message)
  }
  return out
}

/** The text a model reads from one message: text, thinking, tool-call arguments, tool results. */
export function messageText(m) {
  if (typeof m.content === 'string') return m.content
  const parts = []
  for (const b of m.content ?? []) {
    if (b.type === 'text') parts.push(b.text)
    else if (b.type === 'thinking') parts.push(b.thinking)
    else if (b.type === 'toolCall') parts.push(`${b.name} ${JSON.stringify(b.arguments)}`)
  }
  return parts.join('\n')
}

/** The concatenated text of every fixture transcript (the tokenizer throughput input). */
export function transcriptText() {
  return transcriptFiles()
    .flatMap((f) => readMessages(f).map(messageText))
    .join('\n')
}

export const ONE_MB = 1 << 20

/** 1 MB of one repeated character: a single pre-tokenizer piece, quadratic for naive BPE. */
export function repeatedChar() {
  return 'a'.repeat(ONE_MB)
}

/** 1 MB of base64 without spaces or newlines, from a fixed-seed generator (same bytes every run). */
export function base64NoSpaces() {
  const bytes = Buffer.alloc(Math.ceil((ONE_MB * 3) / 4))
  let x = 0x2545f491 >>> 0 // xorshift32, fixed seed
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    bytes[i] = x & 0xff
  }
  return bytes.toString('base64').slice(0, ONE_MB)
}

export const PATHOLOGICAL = {
  'repeated-char': { label: '1 MB of one repeated character (`a` x 1,048,576)', make: repeatedChar },
  base64: { label: '1 MB of base64, no spaces or newlines', make: base64NoSpaces },
}
