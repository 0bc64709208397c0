import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { get_encoding } from 'tiktoken'

const native = createRequire(import.meta.url)('../index.js')
const fixtures = new URL('./fixtures/transcripts/', import.meta.url)

/** Every text a model sees in a pi transcript: message texts, thinking, tool call arguments, whole messages. */
function transcriptTexts(name: string): string[] {
  const texts: string[] = []
  for (const line of readFileSync(new URL(name, fixtures), 'utf8').split('\n')) {
    if (!line.trim()) continue
    const entry = JSON.parse(line)
    if (entry.type !== 'message') continue
    const m = entry.message
    texts.push(JSON.stringify(m))
    const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? [])
    for (const p of parts) {
      if (p.type === 'text') texts.push(p.text)
      else if (p.type === 'thinking') texts.push(p.thinking)
      else if (p.type === 'toolCall') texts.push(p.name, JSON.stringify(p.arguments))
    }
  }
  return texts.filter((t) => typeof t === 'string')
}

describe.each(['o200k_base', 'cl100k_base'] as const)('countTokens %s', (encoding) => {
  const reference = get_encoding(encoding)
  const expected = (text: string) => reference.encode(text, [], []).length

  it.each(['before-compaction.jsonl', 'large-session.jsonl'])('equals the tiktoken npm package on every message of %s', (name) => {
    const texts = transcriptTexts(name)
    expect(texts.length).toBeGreaterThan(1500)
    const mismatches = texts.filter((t) => native.countTokens(t, encoding) !== expected(t))
    expect(mismatches.map((t) => t.slice(0, 80))).toEqual([])
  })

  it('equals tiktoken on edge cases: whitespace runs, specials, emoji, CJK, lone surrogates', () => {
    const cases = ['', ' ', '   x', 'a  \n  b', '\u3000\u3000y', "we'LL", '<|endoftext|>', '👩‍👩‍👧 ok', '日本語', '\ud800 lone', 'x\u0000y', '1234567']
    for (const c of cases) expect(native.countTokens(c, encoding), JSON.stringify(c)).toBe(expected(c))
  })

  it('counts the two pathological 1 MB inputs exactly', () => {
    const repeated = 'a'.repeat(1 << 20)
    const base64 = Buffer.from(Array.from({ length: 786_432 }, (_, i) => (i * 2_654_435_761) >>> 24)).toString('base64')
    expect(base64.length).toBe(1 << 20)
    // 1 MB of 'a' is 131,072 tokens of 8 'a' in both encodings (the JS tokenizers take seconds here).
    expect(native.countTokens(repeated, encoding)).toBe(131_072)
    expect(native.countTokens(base64, encoding)).toBe(expected(base64))
  })
})

describe('tables', () => {
  it('defaults to o200k_base', () => {
    const text = 'The quick brown fox 🦊 jumps'
    expect(native.countTokens(text)).toBe(native.countTokens(text, 'o200k_base'))
    expect(native.countTokens(text)).not.toBe(native.countTokens('The quick brown fox 🦊 jumps over', 'o200k_base'))
  })

  it('warmup resolves and counting stays exact afterwards, also from worker threads', async () => {
    await native.warmup('o200k_base')
    await native.warmup('cl100k_base')
    const { Worker } = await import('node:worker_threads')
    const script = `
      const { parentPort, workerData } = require('node:worker_threads')
      const native = require(workerData.addon)
      let total = 0
      for (let i = 0; i < 200; i++) total += native.countTokens('hello world ' + i, i % 2 ? 'cl100k_base' : 'o200k_base')
      parentPort.postMessage(total)
    `
    const addon = new URL('../index.js', import.meta.url).pathname
    const results = await Promise.all(
      Array.from({ length: 4 }, () => new Promise<number>((resolve, reject) => {
        const w = new Worker(script, { eval: true, workerData: { addon } })
        w.once('message', resolve)
        w.once('error', reject)
      })),
    )
    let expected = 0
    for (let i = 0; i < 200; i++) expected += native.countTokens('hello world ' + i, i % 2 ? 'cl100k_base' : 'o200k_base')
    expect(results).toEqual([expected, expected, expected, expected])
  })
})
