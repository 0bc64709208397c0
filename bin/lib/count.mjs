// `openclaw-context count [file]`: the tokens of a file (or stdin) in each encoding the addon counts.
import { readFileSync } from 'node:fs'
import { ENCODINGS, native } from './native.mjs'
import { fmt } from './format.mjs'

/** Reads all of stdin (fd 0) as UTF-8. */
function readStdin() {
  return readFileSync(0, 'utf8')
}

/**
 * Counts `text` in every encoding (or only `encodings`).
 * @returns {{ source: string, bytes: number, chars: number, lines: number, tokens: Record<string, number> }}
 */
export function countText(text, source, encodings = ENCODINGS) {
  const tokens = {}
  for (const e of encodings) tokens[e] = native.countTokens(text, e)
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  return { source, bytes: Buffer.byteLength(text, 'utf8'), chars: text.length, lines, tokens }
}

export function runCount(file, { encoding } = {}) {
  const fromStdin = file === undefined || file === '-'
  const text = fromStdin ? readStdin() : readFileSync(file, 'utf8')
  const encodings = encoding ? [encoding] : ENCODINGS
  return countText(text, fromStdin ? '<stdin>' : file, encodings)
}

export function formatCount(r) {
  const out = [`${r.source}: ${fmt(r.bytes)} bytes, ${fmt(r.chars)} characters, ${fmt(r.lines)} line${r.lines === 1 ? "" : "s"}`]
  const width = Math.max(...Object.keys(r.tokens).map((k) => k.length))
  for (const [enc, n] of Object.entries(r.tokens)) out.push(`  ${enc.padEnd(width)}  ${fmt(n).padStart(10)} tokens`)
  return out.join('\n')
}
