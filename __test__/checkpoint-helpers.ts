// Shared by the checkpoint tests: a temp state dir, a deterministic PRNG, nasty strings.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export function tempStateDir(tag: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `cp-${tag}-`))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** mulberry32: small, deterministic. */
export function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, below: (n: number) => Math.floor(next() * n) }
}

export const NASTY = [
  '', ' ', '  ', '\n', '\n\n', '\r\n', '\r', '\t', ' \t', '0o17', '0x1F', '017', '1e3', '+.inf', '-.inf',
  '.nan', '.NaN', '1_000', '12:30:00', '2001-12-14', 'yes', 'no', 'on', 'off', 'y', 'n', 'Yes', 'NO', 'null',
  'Null', '~', 'true', 'False', '---', '...', '--- x', '#', ' #', '# c', ': ', ':', 'a: b', '- ', '-', '? ',
  '?', '|', '|-', '|+', '>', '>-', '&a', '*a', '!tag', '!!str', '%YAML 1.2', '@', '`', "'", '"', '\\', '\\n',
  '{', '}', '[', ']', ',', '{a: 1}', '[1, 2]', '<<', '=', '\u0085', '\u2028', '\u2029', '\ufeff', '\u00a0',
  '\u0000', '\u0007', '\b', '\v', '\f', '\u001b', '\u007f', '\u009f', '\u0080', '😀', '👨\u200d👩\u200d👧',
  '日本語', '中文の文字', 'é', 'e\u0301', '\ufffe', '\uffff', '\u{10ffff}', '\ue000', '\ufdd0',
  '</checkpoint-data>', 'cp_001', '0', '-1', '1.5', 'word', 'hello world', '  indented', 'trailing  ',
  '\n  x', 'x\n', 'x\n\n',
]

/** A random valid-Unicode string of 0..10 pieces biased to what breaks YAML writers. */
export function nastyString(r: ReturnType<typeof rng>): string {
  let s = ''
  const n = r.below(11)
  for (let i = 0; i < n; i++) {
    const k = r.below(10)
    if (k <= 4) s += NASTY[r.below(NASTY.length)]
    else if (k === 5) {
      let cp = r.below(0x110000)
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x1f600
      s += String.fromCodePoint(cp)
    } else if (k === 6) s += String.fromCharCode(r.below(0x100))
    else if (k === 7) s += String.fromCodePoint(0x3000 + r.below(0x6000))
    else {
      const len = r.below(12)
      for (let j = 0; j < len; j++) s += String.fromCharCode(97 + r.below(26))
      if (r.below(100) < 30) s += ' '
    }
  }
  return s
}

/** The settings of the claude-cli runtime's compactions (plugin/runtime.ts) over `stateDir`: checkpoints and history on, a warning fails the test. */
export function nativeSettings(stateDir: string) {
  return {
    stateDir,
    checkpoints: true,
    restoreMaxTokens: 1500,
    history: { stateDir, enabled: true, readable: true, quotaBytes: 512 * 1024 * 1024 },
    logger: { warn: (m: string) => { throw new Error(`unexpected warning: ${m}`) } },
  }
}
