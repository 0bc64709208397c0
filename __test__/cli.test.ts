// The openclaw-context CLI, run as a user runs it (a child process), on the bundled real transcripts, on
// v3 conversions of them made by pi's own migration, and on malformed copies. Every number the report
// gives is checked against the transcript read independently here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..')
const CLI = join(root, 'bin', 'openclaw-context.mjs')
const FIXTURES = join(here, 'fixtures', 'transcripts')
const native = createRequire(import.meta.url)('../index.js')

let tmp: string
beforeAll(() => {
  // State writes are durable (an fsync each); on a RAM disk they cost what the logic costs, which is
  // what these tests check. Elsewhere the system temp dir.
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()
  tmp = mkdtempSync(join(base, 'cli-test-'))
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
})

function run(args: string[], input?: string, env?: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', maxBuffer: 64 << 20, env: env ? { ...process.env, ...env } : undefined })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const replayed = new Map<string, ReturnType<typeof replayJson>>()
/** The default replay of a file, run once per test file (several tests read the same report). */
function replayOnce(file: string) {
  if (!replayed.has(file)) replayed.set(file, replayJson(file))
  return replayed.get(file)!
}

function replayJson(file: string, extra: string[] = []) {
  const stateDir = mkdtempSync(join(tmp, 'state-'))
  const r = run(['replay', file, '--json', '--state-dir', stateDir, ...extra])
  expect(r.stderr).toBe('')
  const report = JSON.parse(r.stdout)
  return { ...r, report, stateDir }
}

/** The transcript read the plain way (the fixtures are clean JSONL). */
function readLines(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
}

/** The transcript read as pi's loader reads it: a line that does not parse is skipped. */
function readLinesAsPi(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)]
      } catch {
        return []
      }
    })
}

function facts(entries: any[], window = 200_000) {
  let assistant = 0
  let withUsage = 0
  let user = 0
  let toolResults = 0
  let peak = 0
  const compactions: any[] = []
  for (const e of entries) {
    if (e.type === 'compaction') compactions.push(e)
    if (e.type !== 'message') continue
    const m = e.message
    if (m.role === 'assistant') {
      assistant++
      const u = m.usage ?? {}
      const t = (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)
      if (t > 0) {
        withUsage++
        peak = Math.max(peak, t)
      }
    } else if (m.role === 'user') user++
    else if (m.role === 'toolResult') toolResults++
  }
  return { assistant, withUsage, user, toolResults, peak, peakUtilization: peak / window, compactions }
}


/**
 * The checkpoints a replay must write, from the transcript and the writer's documented rule (index.d.ts,
 * writeCheckpoint): one attempt at every assistant turn whose provider context is at least 80% of the
 * window, one at every compaction entry; an attempt is skipped when its input tokens moved less than 5%
 * from the last written checkpoint's, unless it is a compaction checkpoint whose compaction count changed.
 */
function expectedCheckpoints(entries: any[], window = 200_000) {
  const out: Array<{ trigger: string; turn: number }> = []
  let last: { tokens: number; count: number } | null = null
  let count = 0
  let turn = 0
  const attempt = (trigger: string, tokens: number) => {
    const newCount = trigger === 'compaction' && last !== null && last.count !== count
    if (last === null || newCount || Math.abs(tokens - last.tokens) >= 0.05 * last.tokens) {
      out.push({ trigger, turn })
      last = { tokens, count }
    }
  }
  for (const e of entries) {
    if (e.type === 'compaction') {
      count++
      attempt('compaction', e.tokensBefore)
    } else if (e.type === 'message' && e.message.role === 'assistant') {
      turn++
      const u = e.message.usage ?? {}
      const t = (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)
      if (t > 0 && t / window >= 0.8) attempt('auto-80pct', t)
    }
  }
  return out
}

/** Tool results the observation store must park: seed 003's JSON size of {content, metadata} over 4096 bytes. */
function expectedOffloads(entries: any[], thresholdBytes = 4096) {
  const out: Array<{ tokens: number }> = []
  for (const e of entries) {
    if (e.type !== 'message' || e.message.role !== 'toolResult') continue
    const text = (e.message.content ?? []).filter((c: any) => c.type === 'text').map((c: any) => c.text).join('\n')
    const size = Buffer.byteLength(JSON.stringify({ content: text, metadata: { toolCallId: e.message.toolCallId } }))
    if (size > thresholdBytes) out.push({ tokens: native.countTokens(text) })
  }
  return out
}

const large = join(FIXTURES, 'large-session.jsonl')
const before = join(FIXTURES, 'before-compaction.jsonl')

describe('count', () => {
  it('counts a file in both encodings, exactly as countTokens does', () => {
    const text = readFileSync(join(FIXTURES, 'README.md'), 'utf8')
    const r = run(['count', join(FIXTURES, 'README.md'), '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j.tokens).toEqual({
      o200k_base: native.countTokens(text, 'o200k_base'),
      cl100k_base: native.countTokens(text, 'cl100k_base'),
    })
    expect(j.bytes).toBe(Buffer.byteLength(text))
    expect(j.chars).toBe(text.length)
  })

  it('reads stdin and prints one line per encoding', () => {
    const text = 'héllo wörld 👋\nsecond line\n'
    const r = run(['count'], text)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('<stdin>: ')
    expect(r.stdout).toContain(`2 lines`)
    expect(r.stdout).toMatch(new RegExp(`o200k_base\\s+${native.countTokens(text, 'o200k_base')} tokens`))
    expect(r.stdout).toMatch(new RegExp(`cl100k_base\\s+${native.countTokens(text, 'cl100k_base')} tokens`))
  })

  it('fails with a message, not a stack, on a missing file or a bad encoding', () => {
    const r = run(['count', join(tmp, 'nope.txt')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/ENOENT/)
    const e = run(['count', '--encoding', 'p50k_base'], 'x')
    expect(e.code).toBe(1)
    expect(e.stderr).toMatch(/InvalidArg/)
  })

  it('rejects unknown commands and options with the usage', () => {
    expect(run(['frobnicate']).code).toBe(2)
    const r = run(['replay', large, '--windw', '5'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/usage: openclaw-context/)
    expect(run(['replay', large, '--window=abc']).stderr).toMatch(/--window must be a positive integer/)
  })
})

describe('replay: what the transcript holds', () => {
  for (const file of [large, before]) {
    it(`finds the turns, usage peak and compaction entries of ${file.replace(/^.*\//, '')}`, () => {
      const f = facts(readLines(file))
      const { code, report } = replayOnce(file)
      expect(code).toBe(0)
      expect(report.format).toBe('v1')
      expect(report.problems).toEqual([])
      expect(report.turns).toEqual({
        assistant: f.assistant,
        withUsage: f.withUsage,
        user: f.user,
        toolResults: f.toolResults,
        compactions: f.compactions.length,
      })
      expect(report.peak.tokens).toBe(f.peak)
      expect(report.peak.utilization).toBeCloseTo(f.peakUtilization, 10)
      expect(report.compactions.map((c: any) => c.tokensBefore)).toEqual(f.compactions.map((c) => c.tokensBefore))
      expect(report.compactions.map((c: any) => c.summaryTokens)).toEqual(
        f.compactions.map((c) => native.countTokens(c.summary)),
      )
    })
  }
})


describe('replay: checkpoints, offloading and the estimator', () => {
  for (const file of [large, before]) {
    it(`${file.replace(/^.*\//, '')}: checkpoints where the gauge and the compactions put them, restore beside the real summary`, () => {
      const entries = readLines(file)
      const want = expectedCheckpoints(entries)
      const { report, stateDir } = replayOnce(file)
      expect(report.checkpoints.available).toBe(true)
      expect(report.errors).toEqual([])
      const written = report.checkpoints.written
      expect(written.map((c: any) => ({ trigger: c.trigger, turn: c.turn }))).toEqual(want)
      expect(written.map((c: any) => c.id)).toEqual(want.map((_, i) => `cp_${String(i + 1).padStart(3, '0')}`))
      expect(want.length).toBeGreaterThan(0)
      // Each compaction entry of the transcript has its checkpoint, with the real summary's size beside it.
      const compactions = entries.filter((e) => e.type === 'compaction')
      expect(written.filter((c: any) => c.trigger === 'compaction').map((c: any) => c.summaryTokens)).toEqual(
        compactions.map((c) => native.countTokens(c.summary)),
      )
      expect(report.compactions.map((c: any) => c.checkpoint)).toEqual(
        written.filter((c: any) => c.trigger === 'compaction').map((c: any) => c.id),
      )
      for (const c of written) {
        expect(c.restoreTokens).toBeGreaterThan(0)
        expect(c.restoreTokens).toBeLessThanOrEqual(800) // renderCheckpoint's default cap
      }
      // On disk: the newest five (retention) and the pointer to the last.
      const dir = join(stateDir, 'context', 'checkpoints', native.sessionDirName(report.sessionKey))
      const files = readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort()
      expect(files).toEqual(written.slice(-5).map((c: any) => `${c.id}.yaml`))
      expect(JSON.parse(readFileSync(join(dir, '_latest.json'), 'utf8')).checkpoint_id).toBe(written.at(-1).id)
    })

    it(`${file.replace(/^.*\//, '')}: tool results over 4096 bytes offloaded, and the tokens that moved`, () => {
      const entries = readLines(file)
      const want = expectedOffloads(entries)
      const { report } = replayOnce(file)
      const o = report.offload
      expect(o.available).toBe(true)
      expect(o.offered).toBe(facts(entries).toolResults)
      expect(o.offloaded).toBe(want.length)
      expect(o.tokensBefore).toBe(want.reduce((a, x) => a + x.tokens, 0))
      expect(o.tokensAfter).toBeGreaterThan(0)
      expect(o.tokensMoved).toBe(o.tokensBefore - o.tokensAfter)
      expect(o.tokensMoved).toBeGreaterThan(0)
    })
  }

  it('the estimator is compared on every turn with provider usage', () => {
    const { report } = replayOnce(before)
    const f = facts(readLines(before))
    expect(report.estimator.available).toBe(true)
    expect(report.estimator.samples).toBe(f.withUsage)
    expect(report.estimator.meanAbsError).toBeGreaterThanOrEqual(Math.abs(report.estimator.meanError))
    expect(report.estimator.maxAbsError).toBeGreaterThanOrEqual(report.estimator.meanAbsError)
  })


  // Every bundled pi transcript with a compaction (more may be added beside these).
  const compacting = readdirSync(FIXTURES)
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => join(FIXTURES, n))
    .filter((f) => readLinesAsPi(f).some((e) => e.type === 'compaction'))
  it('there is a bundled pi transcript with compactions', () => expect(compacting).toContain(before))
  for (const file of compacting) {
    it(`${file.replace(/^.*\//, '')}: the first estimate after each compaction is reported on its own, within 3% of the next provider figure`, async () => {
      const { report } = file === before ? replayOnce(before) : replayJson(file)
      const entries = readLinesAsPi(file)
      // The provider's figure right after each compaction: the first assistant turn with usage after it.
      const want: Array<{ compactionLine: number; line: number; provider: number }> = []
      entries.forEach((e, i) => {
        if (e.type !== 'compaction') return
        const j = entries.findIndex((x, k) => k > i && x.type === 'message' && x.message.role === 'assistant' && facts([x]).withUsage === 1)
        if (j < 0) return
        const u = entries[j].message.usage
        want.push({ compactionLine: i + 1, line: j + 1, provider: u.input + u.cacheRead + u.cacheWrite })
      })
      const after = report.estimator.afterCompaction
      expect(after.map((a: any) => ({ compactionLine: a.compactionLine, line: a.line, provider: a.provider }))).toEqual(want)
      for (const a of after) {
        expect(a.error).toBe(a.estimate - a.provider)
        expect(a.percent).toBeCloseTo(a.error / a.provider, 12)
        expect(a.estimate).toBe(a.overheadTokens + a.carriedTokens + a.countedTokens)
        // pi keeps the recent messages: they come through at the size the provider measured them.
        expect(a.carriedTokens).toBeGreaterThan(0)
        // Seeded from what the compaction left (summary + kept) with the learned correction. Before:
        // -2.1% / -2.9% on before-compaction.jsonl, +15.0% on pi-mono's compact-2025-12-24.jsonl.
        expect(Math.abs(a.percent)).toBeLessThan(0.03)
      }
      const { formatReplay } = await import('../bin/lib/report.mjs')
      const text = formatReplay(report)
      for (const a of after) expect(text).toContain(`first turn after the compaction on line ${a.compactionLine}: estimated`)
    })
  }

  it('the text report shows the same numbers', async () => {
    const { formatReplay } = await import('../bin/lib/report.mjs')
    const { report } = replayOnce(before)
    const text = formatReplay(report)
    const w = report.checkpoints.written
    expect(text).toContain(`${w.length} written (`)
    expect(text).toContain(`${report.offload.offloaded} of ${report.offload.offered} tool results over 4,096 bytes parked`)
    expect(text).toContain(`${report.turns.assistant} assistant turns`)
    expect(text).toContain(`${report.turns.compactions} compaction entries`)
    for (const c of w) expect(text).toMatch(new RegExp(`${c.id}\\s+${c.trigger}\\s+${c.turn}\\s+${c.line}\\b`))
    expect(text).not.toMatch(/not available in this build/)
    // The CLI prints exactly that text (on a short session, to keep this quick).
    const short = join(tmp, 'short.jsonl')
    writeFileSync(short, readFileSync(before, 'utf8').split('\n').slice(0, 120).join('\n'))
    const stateDir = mkdtempSync(join(tmp, 'state-'))
    const cli = run(['replay', short, '--state-dir', stateDir])
    expect(cli.code).toBe(0)
    const again = formatReplay({ ...replayJson(short).report, stateDir })
    // Restore texts carry their time and offloaded observations a random id, so token counts that
    // depend on them can differ by a few between runs; every other line is the same.
    const stable = again.split('\n').filter((l: string) => !/tokens moved|^\s*cp_\d{3}\s/.test(l))
    expect(stable.length).toBeGreaterThan(12)
    for (const l of stable) expect(cli.stdout.split('\n')).toContain(l)
  })

})

describe('replay: malformed input is survived and reported', () => {
  it('two objects on a line, a garbage line, an unknown entry type, CRLF and a truncated last line (with --window and --threshold)', async () => {
    const lines = readFileSync(large, 'utf8').split('\n').filter((l) => l !== '')
    const entries = lines.map((l) => JSON.parse(l))
    // lines 10 and 11 joined into one; garbage after line 20; an unknown type after line 30; the last
    // line cut in half; every line ending in CRLF.
    const out: string[] = []
    const expected: Array<{ line: number; kind: string }> = []
    for (let i = 0; i < lines.length; i++) {
      if (i === 9) {
        out.push(lines[9] + lines[10])
        expected.push({ line: out.length, kind: 'two-objects' })
        i++
        continue
      }
      if (i === lines.length - 1) {
        out.push(lines[i].slice(0, Math.floor(lines[i].length / 2)))
        expected.push({ line: out.length, kind: 'truncated-last-line' })
        continue
      }
      out.push(lines[i])
      if (i === 20) {
        out.push('this is not json {"type":"message"')
        expected.push({ line: out.length, kind: 'garbage' })
      }
      if (i === 30) {
        out.push(JSON.stringify({ type: 'telemetry_ping', timestamp: '2025-11-20T23:40:00.000Z' }))
        expected.push({ line: out.length, kind: 'unknown-type' })
      }
    }
    const file = join(tmp, 'malformed.jsonl')
    writeFileSync(file, out.join('\r\n'))
    // A smaller window moves the checkpoints earlier; a higher threshold offloads less.
    const { code, report } = replayJson(file, ['--window', '180000', '--threshold', '20000'])
    expect(code).toBe(0)
    expect(report.problems.map((p: any) => ({ line: p.line, kind: p.kind }))).toEqual(expected)
    // pi's loader (loadEntriesFromFile) JSON.parses each line and skips one that fails: the joined line
    // (entries 9 and 10) and the truncated last line contribute nothing; everything else is replayed.
    const kept = entries.filter((_, i) => i !== 9 && i !== 10).slice(0, -1)
    const f = facts(kept)
    expect(report.turns.assistant).toBe(f.assistant)
    expect(report.turns.user).toBe(f.user)
    expect(report.turns.toolResults).toBe(f.toolResults)
    expect(report.peak.tokens).toBe(f.peak)
    expect(report.window).toBe(180_000)
    expect(report.peak.utilization).toBeCloseTo(f.peak / 180_000, 10)
    const want = expectedCheckpoints(kept, 180_000)
    expect(report.checkpoints.written.map((c: any) => ({ trigger: c.trigger, turn: c.turn }))).toEqual(want)
    expect(want.length).toBeGreaterThan(expectedCheckpoints(kept).length)
    expect(report.offload.offloaded).toBe(expectedOffloads(kept, 20_000).length)
    expect(report.offload.offloaded).toBeLessThan(expectedOffloads(kept).length)
    expect(report.entries).toBe(kept.length - 1) // the header is not an entry

    const { formatReplay } = await import('../bin/lib/report.mjs')
    const text = formatReplay(report)
    expect(text).toMatch(/4 line\(s\) could not be read as they stand/)
    for (const p of expected) expect(text).toContain(`line ${p.line}: ${p.kind}`)
  })

  it('pi drops a line holding two objects, so a compaction on it is not replayed', () => {
    const lines = readFileSync(before, 'utf8').split('\n').filter((l) => l !== '')
    const at = lines.findIndex((l) => JSON.parse(l).type === 'compaction')
    expect(at).toBeGreaterThan(0)
    const joined = [...lines.slice(0, at - 1), lines[at - 1] + lines[at], ...lines.slice(at + 1)]
    const file = join(tmp, 'joined-compaction.jsonl')
    writeFileSync(file, joined.join('\n') + '\n')
    const { code, report } = replayJson(file)
    expect(code).toBe(0)
    expect(report.problems.map((p: any) => [p.line, p.kind])).toEqual([[at, 'two-objects']])
    const all = lines.map((l) => JSON.parse(l))
    expect(report.turns.compactions).toBe(facts(all).compactions.length - 1)
    expect(report.compactions.map((c: any) => c.tokensBefore)).toEqual(facts(all).compactions.slice(1).map((c: any) => c.tokensBefore))
  })

  it('a pi file without its session header: pi would load nothing, the replay says so and reads it', () => {
    const lines = readFileSync(large, 'utf8').split('\n').filter((l) => l !== '').slice(1, 80)
    const file = join(tmp, 'headless.jsonl')
    writeFileSync(file, lines.join('\n') + '\n')
    const { code, report } = replayJson(file)
    expect(code).toBe(0)
    expect(report.format).toBe('v1')
    expect(report.problems.map((p: any) => [p.line, p.kind])).toEqual([[1, 'no-header']])
    expect(report.turns.assistant).toBe(facts(lines.map((l) => JSON.parse(l))).assistant)
  })

  it('a file in no known format, and an empty file, are an error listing the formats known and the first lines', () => {
    const g = join(tmp, 'garbage.jsonl')
    writeFileSync(g, 'hello\n\u0000\u0001binary\n[1,2,3]\n"just a string"\n{"event":"tick"}\n{"type":"telemetry"}\n')
    const stateDir = mkdtempSync(join(tmp, 'state-'))
    for (const cmd of [['replay', g, '--json', '--state-dir', stateDir], ['inspect', g]]) {
      const r = run(cmd)
      expect(r.code).toBe(3)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^openclaw-context: UnknownFormat: not a session transcript/)
      expect(r.stderr).toContain('pi: pi session')
      expect(r.stderr).toContain('claude-code: Claude Code / Claude Agent SDK transcript')
      expect(r.stderr).toContain('line 1 (not JSON): hello')
      expect(r.stderr).toContain('line 3 (no "type"): [1,2,3]')
      expect(r.stderr).toContain('line 5 (no "type"): {"event":"tick"}')
      expect(r.stderr).not.toContain('line 6') // five lines are quoted
    }
    // Nothing was written into the state dir.
    expect(readdirSync(stateDir)).toEqual([])
    const e = join(tmp, 'empty.jsonl')
    writeFileSync(e, '')
    const r = run(['replay', e])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('the file is empty')
  })
})

describe('replay: its temporary state dir', () => {
  it('is removed when the replay ends, kept with --keep, and a chosen --state-dir is never removed', () => {
    const small = join(tmp, 'small.jsonl')
    writeFileSync(small, readFileSync(large, 'utf8').split('\n').slice(0, 120).join('\n') + '\n')
    const scratch = mkdtempSync(join(tmp, 'tmpdir-'))
    const env = { TMPDIR: scratch, TMP: scratch, TEMP: scratch }
    const gone = run(['replay', small, '--json'], undefined, env)
    expect(gone.code).toBe(0)
    const a = JSON.parse(gone.stdout)
    expect(a.stateDir.startsWith(scratch)).toBe(true)
    expect(a.checkpoints.written.length + a.offload.offloaded).toBeGreaterThan(0) // it did write there
    expect(a.stateDirTemporary).toBe(true)
    expect(a.stateDirKept).toBe(false)
    expect(existsSync(a.stateDir)).toBe(false)
    expect(readdirSync(scratch)).toEqual([])
    const text = run(['replay', small], undefined, env)
    expect(text.stdout).toMatch(/state dir .* \(temporary, removed; --keep keeps it\)/)
    expect(readdirSync(scratch)).toEqual([])

    const kept = run(['replay', small, '--json', '--keep'], undefined, env)
    const b = JSON.parse(kept.stdout)
    expect(b.stateDirKept).toBe(true)
    expect(existsSync(join(b.stateDir, 'context'))).toBe(true)
    expect(run(['inspect', b.stateDir]).stdout).toContain('checkpoints:')

    const chosen = mkdtempSync(join(tmp, 'chosen-'))
    const c = JSON.parse(run(['replay', small, '--json', '--state-dir', chosen]).stdout)
    expect(c.stateDirTemporary).toBe(false)
    expect(existsSync(join(chosen, 'context'))).toBe(true)
  })
})

describe('replay: pi v3 sessions (id / parentId)', () => {
  let migrate: (entries: any[]) => void
  beforeAll(async () => {
    // pi's own migration makes the v3 copies: the conversion is the SDK's, not this test's.
    ;({ migrateSessionEntries: migrate } = (await import('@mariozechner/pi-coding-agent')) as any)
  })

  function toV3(file: string) {
    const entries = readLines(file)
    migrate(entries)
    expect(entries[0].version).toBe(3)
    return entries
  }

  for (const file of [large, before]) {
    it(`a v3 conversion of ${file.replace(/^.*\//, '')} replays to the same numbers as the v1 file`, () => {
      const v3 = toV3(file)
      const out = join(tmp, `v3-${file.replace(/^.*\//, '')}`)
      writeFileSync(out, v3.map((e) => JSON.stringify(e)).join('\n') + '\n')
      const a = replayOnce(file).report
      const b = replayJson(out).report
      expect(b.format).toBe('v3')
      expect(b.problems).toEqual([])
      expect(b.turns).toEqual(a.turns)
      expect(b.peak).toEqual(a.peak)
      expect(b.compactions.map((c: any) => [c.tokensBefore, c.summaryTokens, c.firstKeptLine])).toEqual(
        a.compactions.map((c: any) => [c.tokensBefore, c.summaryTokens, c.firstKeptLine]),
      )
    })
  }

  it('replays only the active branch of a tree, and reports an orphaned entry', () => {
    const v3 = toV3(large).slice(0, 400)
    // An abandoned branch: a user message and an assistant reply hanging off entry 50, written in the
    // middle of the file (pi appends branches where they happen); the leaf stays the last entry.
    const side = [
      { type: 'message', id: 'side0001', parentId: v3[50].id, timestamp: v3[50].timestamp, message: { role: 'user', content: 'try another way', timestamp: 0 } },
      {
        type: 'message',
        id: 'side0002',
        parentId: 'side0001',
        timestamp: v3[50].timestamp,
        message: { role: 'assistant', content: [], usage: { input: 199_000, output: 1, cacheRead: 0, cacheWrite: 0 }, stopReason: 'stop', timestamp: 0 },
      },
    ]
    const tree = [...v3.slice(0, 60), ...side, ...v3.slice(60)]
    const file = join(tmp, 'tree.jsonl')
    writeFileSync(file, tree.map((e) => JSON.stringify(e)).join('\n'))
    const f = facts(v3)
    const { report } = replayJson(file)
    expect(report.offBranch).toBe(2)
    expect(report.turns.assistant).toBe(f.assistant)
    expect(report.peak.tokens).toBe(f.peak) // the side branch's 199k turn is not on the branch

    // Cut the chain: an entry whose parent does not exist starts the branch there.
    const broken = v3.map((e) => ({ ...e }))
    broken[300].parentId = 'missing1'
    const bf = join(tmp, 'orphan.jsonl')
    writeFileSync(bf, broken.map((e) => JSON.stringify(e)).join('\n'))
    const r = replayJson(bf).report
    expect(r.problems).toEqual([expect.objectContaining({ line: 301, kind: 'orphan' })])
    expect(r.entries).toBe(v3.length - 300)
    expect(r.turns.assistant).toBe(facts(v3.slice(300)).assistant)
  })
})

describe('replay: session.scratchpad calls', () => {
  it('applies the session’s session.scratchpad tool calls and reports the prepend they leave', () => {
    const entries = readLines(large).slice(0, 400)
    const calls = [
      { action: 'set_plan', content: '1. Read the theme docs\n2. Port the colours\n3. Test' },
      { action: 'refs.add', ref: 'packages/coding-agent/docs/theme.md' },
      { action: 'append_notes', content: 'x'.repeat(5000) }, // over the notes limit: rejected
      { action: 'bogus' }, // not an action: rejected
      { action: 'append_notes', content: 'theme tokens are all required' },
    ]
    // Attach each call to a different assistant turn that has usage, as the model would make them.
    const turns = entries.filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.usage?.input > 0)
    calls.forEach((args, i) => turns[10 + i * 20].message.content.push({ type: 'toolCall', id: `sp${i}`, name: 'session.scratchpad', arguments: args }))
    const file = join(tmp, 'scratchpad.jsonl')
    writeFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n'))

    const { report } = replayJson(file)
    expect(report.scratchpad.available).toBe(true)
    expect(report.scratchpad.calls).toBe(5)
    expect(report.scratchpad.results.map((r: any) => r.ok)).toEqual([true, true, false, false, true])
    expect(report.scratchpad.applied).toBe(3)
    expect(report.scratchpad.rejected).toBe(2)
    // The same calls applied directly give the same block.
    const id = `cli-test-${process.pid}`
    for (const c of calls) native.applyScratchpadAction(id, c)
    const block = native.getScratchpadContent(id)
    native.clearScratchpad(id)
    expect(report.scratchpad.prepend).toEqual({ chars: block.length, tokens: native.countTokens(block) })
  })
})

describe('inspect', () => {
  it('shows the sessions a replay left: checkpoints, observation store and the latest restore text', () => {
    const { report, stateDir } = replayOnce(before)
    const r = run(['inspect', stateDir, '--json'])
    expect(r.code).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j.sessions).toHaveLength(1)
    const s = j.sessions[0]
    expect(s.sessionKey).toBe(report.sessionKey)
    expect(s.dir).toBe(native.sessionDirName(report.sessionKey))
    const kept = report.checkpoints.written.slice(-5)
    expect(s.checkpoints.map((c: any) => [c.id, c.trigger, c.inputTokens])).toEqual(kept.map((c: any) => [c.id, c.trigger, c.inputTokens]))
    expect(s.latest.checkpoint_id).toBe(kept.at(-1).id)
    // the parked results, and the history the replay kept at each compaction with its index (issue 49)
    const history = report.compactions.filter((c: any) => c.history).length
    expect(history).toBeGreaterThan(0)
    expect(s.observations.count).toBe(report.offload.offloaded + history + 1)
    expect(s.observations.history.entries).toBe(history)
    expect(s.observations.entries.every((e: any) => e.sizeBytes > 0)).toBe(true)
    const restore = native.renderCheckpoint({ stateDir, sessionKey: report.sessionKey }, { mode: 'post-compaction' })
    expect(s.restore.text).toBe(restore)
    expect(s.state.map((f: any) => f.name)).toEqual(expect.arrayContaining(['resources.json']))

    const text = run(['inspect', stateDir, report.sessionKey])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`session ${report.sessionKey}`)
    expect(text.stdout).toContain(`checkpoints: ${kept.length}, latest ${kept.at(-1).id}`)
    expect(text.stdout).toContain(`observation store: ${report.offload.offloaded + history + 1} entries`)
    expect(text.stdout).toMatch(new RegExp(`history \\(compacted messages, scratchpad_read "history"\\): ${history} entries`))
    for (const line of restore.split('\n').slice(0, 5)) expect(text.stdout).toContain(`| ${line}`.trimEnd())
  })

  it('an unknown session key or an empty state dir says so', () => {
    const { stateDir } = replayOnce(before)
    const r = run(['inspect', stateDir, 'agent:main:telegram:direct:999'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('no session agent:main:telegram:direct:999 in this state dir')
    const empty = mkdtempSync(join(tmp, 'empty-'))
    const e = run(['inspect', empty])
    expect(e.code).toBe(0)
    expect(e.stdout).toContain('no sessions')
    expect(run(['inspect', join(tmp, 'does-not-exist')]).code).toBe(1)
  })
})

describe('progress', () => {
  it.skipIf(process.platform !== 'linux' || !existsSync('/usr/bin/script'))('shows progress on a terminal, and never when piped', () => {
    const short = join(tmp, 'progress.jsonl')
    writeFileSync(short, readFileSync(large, 'utf8').split('\n').slice(0, 300).join('\n'))
    const stateDir = mkdtempSync(join(tmp, 'state-'))
    // util-linux `script` runs the CLI on a pseudo-terminal: stdout and stderr are both that terminal.
    const cmd = [process.execPath, CLI, 'replay', short, '--state-dir', stateDir].map((a) => `'${a}'`).join(' ')
    const tty = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8' })
    expect(tty.status).toBe(0)
    expect(tty.stdout).toMatch(/\rreplaying \[[#.]{24}\] \d+\/299 entries, turn \d+/)
    expect(tty.stdout).toContain('\r\x1b[2K') // the progress line is cleared before the report
    expect(tty.stdout).toContain('openclaw-context replay')
    const piped = run(['replay', short, '--state-dir', mkdtempSync(join(tmp, 'state-'))])
    expect(piped.stderr).toBe('')
    expect(piped.stdout).not.toContain('\r')
  })
})

describe('npm run demo', () => {
  it('replays the bundled transcript with its MIT notice, prints the report and the restore text, and cleans up', () => {
    const f = facts(readLines(large))
    const tmpBase = mkdtempSync(join(tmp, 'demo-'))
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'demo.mjs')], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: tmpBase },
    })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/recorded by Mario Zechner,\npublished with badlogic\/pi-mono under the MIT licence/)
    expect(r.stdout).toContain(`${f.assistant} assistant turns (${f.withUsage} with provider usage)`)
    expect(r.stdout).toContain(`${expectedCheckpoints(readLines(large)).length} written (`)
    expect(r.stdout).toContain(`${expectedOffloads(readLines(large)).length} of ${f.toolResults} tool results over 4,096 bytes parked`)
    expect(r.stdout).toMatch(/restore text of the latest checkpoint \(cp_\d{3}, \d+ tokens\)/)
    expect(r.stdout).toContain('  | [Post-compaction checkpoint restore]')
    expect(r.stdout).not.toMatch(/not available in this build/)
    expect(readdirSync(tmpBase)).toEqual([]) // the temporary state dir is gone
  })
})
