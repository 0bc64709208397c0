import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const native = createRequire(import.meta.url)('../index.js')

const root = mkdtempSync(path.join(os.tmpdir(), 'offload-vitest-'))
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

let n = 0
/** A fresh state dir + session per test, so tests do not share quota or names. */
function where() {
  n += 1
  return { stateDir: path.join(root, `s${n}`), sessionKey: `agent:main:test:${n}` }
}

const chars = (s: string) => Array.from(s) // Unicode characters (code points), as the store counts
const sliceChars = (s: string, a: number, b?: number) => chars(s).slice(a, b).join('')

/** Seed 003 replayed on a real tool result: the largest toolResult of a real pi session. */
function largestToolResult(file: string, minBytes = 40_000): { toolName: string; text: string } {
  const p = path.join(__dirname, 'fixtures', 'transcripts', file)
  let best = { toolName: '', text: '' }
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    if (!line) continue
    const e = JSON.parse(line)
    if (e.type !== 'message' || e.message?.role !== 'toolResult') continue
    const text = (e.message.content ?? [])
      .filter((c: any) => c.type === 'text')
      .map((c: any) => c.text)
      .join('')
    // Prefer a result with non-ASCII characters, so character and byte offsets differ.
    const score = (t: string) => Buffer.byteLength(t) - t.length + (Buffer.byteLength(t) > minBytes ? 1e9 : 0)
    if (score(text) > score(best.text)) best = { toolName: e.message.toolName, text }
  }
  return best
}

describe('offloadObservation (seed 003)', () => {
  it('replays a real > 40 KB tool result: synthetic observation, summary, reads, reference', async () => {
    const { toolName, text } = largestToolResult('before-compaction.jsonl')
    const bytes = Buffer.byteLength(text)
    expect(bytes).toBeGreaterThan(40_000)
    expect(bytes).toBeGreaterThan(text.length) // multi-byte characters inside
    const w = where()
    const metadata = { path: '/repo/docs/refactor.md', bytes, encoding: 'utf-8' }
    const res = await native.offloadObservation({ ...w, content: text, metadata, toolName, turnId: 'turn-1' })
    expect(res.offloaded).toBe(true)
    expect(res.measuredBytes).toBe(Buffer.byteLength(JSON.stringify({ content: text, metadata })))
    const obs = res.observation
    expect(Object.keys(obs)).toEqual(['ok', 'scratchpad_id', 'name', 'size_bytes', 'kind', 'summary', 'metadata', '_note'])
    expect(obs.ok).toBe(true)
    expect(obs.scratchpad_id).toMatch(/^[0-9a-f]{16}$/)
    expect(obs.name).toBe(`${toolName}_1`)
    expect(obs.size_bytes).toBe(bytes)
    expect(obs.kind).toBe('text')
    expect(obs.metadata).toEqual(metadata)
    expect(obs._note).toMatch(/scratchpad_read/)
    const total = chars(text).length
    const head = sliceChars(text, 0, 500)
    const sep = head.endsWith('\n') ? '' : '\n'
    expect(obs.summary).toBe(`${head}${sep}[... ${total - 1000} characters omitted ...]\n${sliceChars(text, total - 500)}`)
    // The synthetic observation is what saves context: a few KB instead of ~50.
    expect(Buffer.byteLength(JSON.stringify(obs))).toBeLessThan(4000)

    const id = obs.scratchpad_id
    const tail = await native.readObservation({ ...w, scratchpad_id: id, mode: 'tail' })
    expect(tail.content).toBe(sliceChars(text, total - 2000))
    expect(tail).toMatchObject({ totalChars: total, totalBytes: bytes, totalLines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), start: total - 2000, end: total })
    // Every multi-byte character as a one-character range.
    const cs = chars(text)
    const firstWide = cs.findIndex((c) => Buffer.byteLength(c) > 1)
    const r = await native.readObservation({ ...w, id, mode: 'range', start: firstWide, end: firstWide + 1 })
    expect(r.content).toBe(cs[firstWide])
    // grep finds the same lines as JS.
    const g = await native.readObservation({ ...w, id, mode: 'grep', pattern: '^## ' })
    const want = text
      .split('\n')
      .map((l, i) => [i + 1, l] as const)
      .filter(([, l]) => /^## /.test(l))
      .slice(0, 100)
      .map(([i, l]) => `${i}:${l}`)
      .join('\n')
    expect(g.content).toBe(want)
    // {{observation:<id>}} gives back the exact 50 KB, as seed 003's {{step1.content}}.
    const args = await native.expandObservationRefs({ ...w, value: { path: '/tmp/out.md', content: `{{observation:${id}}}` } })
    expect(args).toEqual({ path: '/tmp/out.md', content: text })
  })

  it('under the threshold stores nothing and returns the observation whole; the boundary is exact', () => {
    const w = where()
    const small = native.offloadObservationSync({ ...w, content: 'small', metadata: { a: 1 } })
    expect(small.offloaded).toBe(false)
    expect(small.entry).toBeUndefined()
    expect(small.observation).toEqual({ content: 'small', metadata: { a: 1 } })
    expect(existsSync(path.join(w.stateDir, 'context'))).toBe(false)
    // {"content":"xxx"} is 14 bytes + the x's.
    const at = native.offloadObservationSync({ ...w, content: 'x'.repeat(4096 - 14) })
    expect([at.measuredBytes, at.offloaded]).toEqual([4096, false])
    const over = native.offloadObservationSync({ ...w, content: 'x'.repeat(4096 - 13) })
    expect([over.measuredBytes, over.offloaded]).toEqual([4097, true])
    // Escapes count as JSON.stringify writes them; thresholdBytes is configurable.
    const quoted = '"\n'.repeat(100)
    const q = native.offloadObservationSync({ ...w, content: quoted, thresholdBytes: 100 })
    expect(q.measuredBytes).toBe(Buffer.byteLength(JSON.stringify({ content: quoted })))
    expect(q.offloaded).toBe(true)
  })

  it('binary content: summary with sha256, byte offsets, hex reads; UTF-8 bytes are text', async () => {
    const w = where()
    const buf = Buffer.alloc(10_000)
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 31 + 7) & 0xff
    buf[0] = 0xff // not UTF-8
    const res = await native.offloadObservation({ ...w, content: buf, toolName: 'fs_read' })
    const sha = createHash('sha256').update(buf).digest('hex')
    expect(res.kind).toBe('binary')
    expect(res.observation.summary).toBe(`[BINARY: 10000 bytes, sha256=${sha}]`)
    const id = res.observation.scratchpad_id
    const r = await native.readObservation({ ...w, id, mode: 'range', start: 9990, end: 20_000 })
    expect(r).toMatchObject({ encoding: 'hex', content: buf.subarray(9990).toString('hex'), start: 9990, end: 10_000, totalChars: 10_000 })
    await expect(native.readObservation({ ...w, id, mode: 'grep', pattern: 'x' })).rejects.toMatchObject({ code: 'InvalidArg' })
    // A Uint8Array of valid UTF-8 is text; so is a Buffer. Offsets then count characters.
    const u8 = new TextEncoder().encode('日本語'.repeat(2000))
    const t = await native.offloadObservation({ ...w, content: u8 })
    expect(t.kind).toBe('text')
    expect(t.entry.chars).toBe(6000)
    const h = await native.readObservation({ ...w, id: t.entry.id, mode: 'head', n: 4 })
    expect(h.content).toBe('日本語日')
    // Binary under the threshold comes back as base64.
    const tiny = native.offloadObservationSync({ ...w, content: Buffer.from([0xff, 0, 0xfe]) })
    expect(tiny.observation).toEqual({ content: '/wD+', encoding: 'base64' })
  })

  it('ids are unpredictable and auto names count per tool', () => {
    const w = where()
    const ids = new Set<string>()
    const names: string[] = []
    for (let i = 0; i < 6; i++) {
      const r = native.offloadObservationSync({ ...w, content: 'same content '.repeat(400), toolName: i % 2 ? 'exec' : 'web_fetch', durable: false })
      ids.add(r.observation.scratchpad_id)
      names.push(r.observation.name)
    }
    expect(ids.size).toBe(6)
    expect(names).toEqual(['web_fetch_1', 'exec_1', 'web_fetch_2', 'exec_2', 'web_fetch_3', 'exec_3'])
  })
})

describe('readObservation modes', () => {
  const text = Array.from({ length: 3000 }, (_, i) => `${i + 1} ${i % 5 === 0 ? 'ERROR' : 'INFO'} é🎉 ${'z'.repeat(i % 17)}`).join('\n') + '\nlast line'
  const lines = text.split('\n')
  const w = where()
  let id = ''
  beforeAll(() => {
    id = native.offloadObservationSync({ ...w, content: text, toolName: 'exec' }).entry.id
  })
  const read = (o: object) => native.readObservationSync({ ...w, id, ...o })

  it('head and tail, default n 2000 and given n', () => {
    expect(read({}).content).toBe(sliceChars(text, 0, 2000))
    expect(read({ mode: 'head', n: 3 }).content).toBe(sliceChars(text, 0, 3))
    expect(read({ mode: 'tail', n: 12 }).content).toBe(sliceChars(text, chars(text).length - 12))
    expect(read({ mode: 'head', n: 0 }).content).toBe('')
  })

  it('range counts characters, end exclusive, clamped at the end', () => {
    const total = chars(text).length
    for (const [a, b] of [[0, 1], [4095, 4097], [12_345, 20_000], [total - 5, total + 50], [total + 1, total + 2]]) {
      const r = read({ mode: 'range', start: a, end: b })
      expect(r.content).toBe(sliceChars(text, a, b))
      expect(r.end).toBe(Math.min(b, total))
    }
    expect(() => read({ mode: 'range', start: 5, end: 4 })).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    // No end: start + n.
    expect(read({ mode: 'range', start: 10, n: 5 }).content).toBe(sliceChars(text, 10, 15))
  })

  it('lines are 1-based, end inclusive, with line totals', () => {
    for (const [a, b] of [[1, 1], [255, 260], [2999, 3001], [3001, 3001], [2990, 9999]]) {
      const r = read({ mode: 'lines', start: a, end: b })
      const want = lines.slice(a - 1, Math.min(b, lines.length))
      expect(r.content).toBe(want.join('\n') + (Math.min(b, lines.length) < lines.length ? '\n' : ''))
      expect([r.startLine, r.endLine, r.totalLines]).toEqual([a, Math.min(b, lines.length), 3001])
    }
    expect(read({ mode: 'lines', start: 5000 }).content).toBe('')
    expect(() => read({ mode: 'lines', start: 0 })).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
  })

  it('grep: numbered matches, context, at most 100, regex errors are InvalidArg with the engine message', () => {
    const g = read({ mode: 'grep', pattern: '^(6|11) ERROR' })
    expect(g.content).toBe(`6:${lines[5]}\n11:${lines[10]}`)
    expect(g.matches).toBe(2)
    const c = read({ mode: 'grep', pattern: '^2998 ', context: 2 })
    expect(c.content).toBe([`2996-${lines[2995]}`, `2997-${lines[2996]}`, `2998:${lines[2997]}`, `2999-${lines[2998]}`, `3000-${lines[2999]}`].join('\n'))
    const many = read({ mode: 'grep', pattern: 'ERROR' })
    expect(many.matches).toBe(100)
    expect(many.truncated).toBe(true)
    expect(many.content.split('\n').length).toBe(100)
    expect(read({ mode: 'grep', regex: 'last line$' }).content).toBe('3001:last line')
    let err: any
    try {
      read({ mode: 'grep', pattern: 'a[' })
    } catch (e) {
      err = e
    }
    expect(err.code).toBe('InvalidArg')
    expect(err.message).toMatch(/unclosed character class/)
  })

  it('full is refused above maxChars with a pointer to range and grep', () => {
    let err: any
    try {
      read({ mode: 'full' })
    } catch (e) {
      err = e
    }
    expect(err.code).toBe('TooLarge')
    expect(err.message).toMatch(/range/)
    expect(err.message).toMatch(/grep/)
    expect(read({ mode: 'full', maxChars: 1_000_000 }).content).toBe(text)
    // Other modes are cut at maxChars and say so.
    const cut = read({ mode: 'head', n: 5000, maxChars: 100 })
    expect([cut.content, cut.truncated]).toEqual([sliceChars(text, 0, 100), true])
  })

  it('bad input: unknown ids NotFound, bad mode InvalidArg, async rejects instead of throwing', async () => {
    expect(() => read({ id: '0123456789abcdef' })).toThrow(expect.objectContaining({ code: 'NotFound' }))
    expect(() => read({ id: undefined, name: '../catalog' })).toThrow(expect.objectContaining({ code: 'NotFound' }))
    expect(() => read({ mode: 'middle' })).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    expect(() => read({ n: -1 })).toThrow(expect.objectContaining({ code: 'InvalidArg' }))
    const p = native.readObservation({ stateDir: w.stateDir, sessionKey: 'nobody', id })
    expect(p).toBeInstanceOf(Promise)
    await expect(p).rejects.toMatchObject({ code: 'NotFound' })
    await expect(native.readObservation({ stateDir: w.stateDir })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.offloadObservation({ ...w, content: 42 })).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.offloadObservation(null)).rejects.toMatchObject({ code: 'InvalidArg' })
    await expect(native.offloadObservation({ ...w, content: new Float32Array(4) })).rejects.toMatchObject({ code: 'InvalidArg' })
  })
})

describe('named entries (seed 004) and lifecycle', () => {
  it('write / edit / list / delete, names never become paths', async () => {
    const w = where()
    const a = await native.writeObservation({ ...w, name: 'plan', content: 'one two two' })
    expect(a.entry.expiresAt).toBeUndefined()
    const b = await native.writeObservation({ ...w, name: 'plan', content: 'alpha beta beta' })
    expect(b.entry.id).toBe(a.entry.id) // overwrite keeps the id
    await expect(native.editObservation({ ...w, name: 'plan', old_string: 'beta', new_string: 'x' })).rejects.toMatchObject({ code: 'InvalidArg' })
    const e = await native.editObservation({ ...w, name: 'plan', old_string: 'beta', new_string: 'gamma', replace_all: true })
    expect(e.replacements).toBe(2)
    expect((await native.readObservation({ ...w, name: 'plan', mode: 'full' })).content).toBe('alpha gamma gamma')
    await native.editObservation({ ...w, id: a.entry.id, content: 'fresh' })
    expect(native.readObservationSync({ ...w, name: 'plan', mode: 'full' }).content).toBe('fresh')
    await expect(native.editObservation({ ...w, name: 'plan', oldString: 'nope', newString: 'x' })).rejects.toMatchObject({ code: 'NotFound' })
    await expect(native.editObservation({ ...w, name: 'plan' })).rejects.toMatchObject({ code: 'InvalidArg' })
    for (const bad of ['../escape', 'a/b', 'a\\b', '..', '.', '']) {
      await expect(native.writeObservation({ ...w, name: bad, content: 'x' })).rejects.toMatchObject({ code: 'InvalidArg' })
    }
    await native.writeObservation({ ...w, name: 'notes v2 (draft)', content: Buffer.from('buffer text') })
    const list = await native.listObservations(w)
    expect(list.map((x: any) => x.name)).toEqual(['plan', 'notes v2 (draft)'])
    expect(list[1]).toMatchObject({ kind: 'text', sizeBytes: 11, chars: 11, lines: 1 })
    expect(Date.parse(list[0].createdAt)).toBeGreaterThan(Date.now() - 60_000)
    // On disk only ids: the catalog, the lock, <id>[.<rev>].dat / .idx, and of each entry only the
    // current revision (a rewrite writes the next revision, then removes the old files).
    const dir = path.join(w.stateDir, 'context', 'observations', native.sessionDirName(w.sessionKey))
    const files = readdirSync(dir)
    for (const f of files) expect(f).toMatch(/^(catalog\.json|\.lock|[0-9a-f]{16}(\.[1-9]\d*)?\.(dat|idx))$/)
    const dats = files.filter((f) => f.endsWith('.dat'))
    expect(dats).toHaveLength(list.length)
    expect(new Set(dats.map((f) => f.slice(0, 16)))).toEqual(new Set(list.map((x: any) => x.id)))
    const gone = await native.deleteObservation({ ...w, name: 'plan' })
    expect(gone.id).toBe(a.entry.id)
    await expect(native.deleteObservation({ ...w, name: 'plan' })).rejects.toMatchObject({ code: 'NotFound' })
    // Same name in another session: no conflict. Deleting a session's store.
    const other = { ...w, sessionKey: `${w.sessionKey}:other` }
    native.writeObservationSync({ ...other, name: 'notes v2 (draft)', content: 'theirs' })
    expect(await native.deleteObservationSession(w)).toBe(true)
    expect(existsSync(dir)).toBe(false)
    expect(native.deleteObservationSessionSync(w)).toBe(false)
    expect(native.listObservationsSync(w)).toEqual([])
    expect(native.readObservationSync({ ...other, name: 'notes v2 (draft)', mode: 'full' }).content).toBe('theirs')
  })

  it('turn scope: reads and lists limited to one turn', () => {
    const w = where()
    const t1 = native.offloadObservationSync({ ...w, content: 'a'.repeat(5000), turnId: 't1' }).entry
    const t2 = native.offloadObservationSync({ ...w, content: 'b'.repeat(5000), turnId: 't2' }).entry
    expect(native.readObservationSync({ ...w, id: t1.id, turnId: 't1' }).content).toBe('a'.repeat(2000))
    expect(() => native.readObservationSync({ ...w, id: t1.id, turnId: 't2' })).toThrow(expect.objectContaining({ code: 'NotFound' }))
    expect(native.listObservationsSync({ ...w, turnId: 't2' }).map((e: any) => e.id)).toEqual([t2.id])
    expect(() => native.expandObservationRefsSync({ ...w, value: `{{observation:${t1.id}}}`, turnId: 't2' })).toThrow(expect.objectContaining({ code: 'NotFound' }))
  })

  it('TTL: expired entries are unreadable and collected; named entries do not expire', async () => {
    const w = where()
    const auto = native.offloadObservationSync({ ...w, content: 'q'.repeat(5000), toolName: 'web_fetch' }).entry
    expect(Date.parse(auto.expiresAt) - Date.parse(auto.createdAt)).toBe(3_600_000)
    const short = native.offloadObservationSync({ ...w, content: 'r'.repeat(5000), ttlSeconds: 1 }).entry
    const kept = native.offloadObservationSync({ ...w, content: 'keep', name: 'kept' }).entry
    expect(kept.expiresAt).toBeUndefined()
    await new Promise((r) => setTimeout(r, 1100))
    expect(() => native.readObservationSync({ ...w, id: short.id })).toThrow(expect.objectContaining({ code: 'NotFound' }))
    expect(native.listObservationsSync(w).map((e: any) => e.name)).toEqual(['web_fetch_1', 'kept'])
    expect(native.listObservationsSync({ ...w, includeExpired: true })).toHaveLength(3)
    const gc = await native.gcObservations({ stateDir: w.stateDir })
    expect(gc.removed.map((e: any) => e.id)).toEqual([short.id])
    expect([gc.sessions, gc.remainingEntries]).toEqual([1, 2])
  })

  it('quota evicts expired, then least recently read, never what the latest checkpoint names', async () => {
    const w = where()
    const q = { quotaBytes: 30_000, durable: false }
    const put = (name: string) => native.writeObservationSync({ ...w, ...q, name, content: name[0].repeat(10_000) })
    put('alpha')
    const b = put('bravo')
    const c = put('charlie')
    await new Promise((r) => setTimeout(r, 5))
    native.readObservationSync({ ...w, name: 'alpha' }) // alpha is now more recent than bravo
    await new Promise((r) => setTimeout(r, 5))
    expect(put('delta').evicted).toEqual([b.entry.id])
    expect(native.listObservationsSync(w).map((e: any) => e.name)).toEqual(['alpha', 'charlie', 'delta'])
    // A real checkpoint naming charlie by reference protects it; alpha (least recently used) goes.
    const cp = native.writeCheckpointSync({
      stateDir: w.stateDir,
      sessionKey: w.sessionKey,
      trigger: 'compaction',
      tokenUsage: { inputTokens: 150_000, contextWindow: 200_000 },
      openItems: [`compare the build log in {{observation:${c.entry.id}}}`],
    })
    expect(cp.written).toBe(true)
    const r = put('echo')
    expect(r.evicted).toHaveLength(1)
    expect(native.listObservationsSync(w).map((e: any) => e.name)).toEqual(['charlie', 'delta', 'echo'])
    // Host-protected (scratchpad refs) too: charlie by checkpoint, delta and echo by protect.
    await expect(
      native.writeObservation({ ...w, ...q, name: 'foxtrot', content: 'f'.repeat(10_000), protect: ['delta', 'echo'] }),
    ).rejects.toMatchObject({ code: 'TooLarge' })
    // gc does what it can: charlie and echo stay protected, so the store ends above the quota.
    const gc = native.gcObservationsSync({ ...w, quotaBytes: 15_000, protect: ['echo'] })
    expect(gc.removed.map((e: any) => e.name)).toEqual(['delta'])
    expect(gc.remainingBytes).toBe(20_000)
  })

  it('survives a restart: a child process reads what this one wrote', async () => {
    const w = where()
    const text = 'persisted é🎉\n'.repeat(1000)
    const { entry } = await native.offloadObservation({ ...w, content: text })
    const { execFileSync } = await import('node:child_process')
    const out = execFileSync(process.execPath, [
      '-e',
      `const n=require(${JSON.stringify(path.resolve(__dirname, '../index.js'))});` +
        `process.stdout.write(n.readObservationSync(${JSON.stringify({ ...w, id: entry.id, mode: 'range', start: 13_990, end: 14_000 })}).content)`,
    ])
    expect(out.toString()).toBe(sliceChars(text, 13_990, 14_000))
  })

  it('concurrent offloads to one session all land with distinct names', async () => {
    const w = where()
    const res = await Promise.all(
      Array.from({ length: 16 }, (_, i) => native.offloadObservation({ ...w, content: `${i} `.repeat(3000), toolName: 'exec', durable: false })),
    )
    const names = new Set(res.map((r: any) => r.observation.name))
    expect(names.size).toBe(16)
    expect(native.listObservationsSync(w)).toHaveLength(16)
    for (const [i, r] of res.entries()) {
      expect(native.readObservationSync({ ...w, id: r.observation.scratchpad_id, n: 4 }).content).toBe(`${i} `.repeat(3).slice(0, 4))
    }
  })
})

describe('references and tool definitions', () => {
  it('expands {{observation:..}} in strings and nested JSON, by id or name', async () => {
    const w = where()
    const body = JSON.stringify({ url: 'https://httpbin.org/get', headers: { pad: 'p'.repeat(14_000) } })
    const { observation } = await native.offloadObservation({ ...w, content: body, toolName: 'web_fetch' })
    const args = {
      path: '/tmp/out.txt',
      content: `{{observation:${observation.scratchpad_id}}}`,
      list: [1, { note: 'see {{ observation:web_fetch_1 }}!' }],
      keep: null,
    }
    const out = await native.expandObservationRefs({ ...w, value: args })
    expect(out).toEqual({ path: '/tmp/out.txt', content: body, list: [1, { note: `see ${body}!` }], keep: null })
    expect(native.expandObservationRefsSync({ ...w, value: 'no refs here' })).toBe('no refs here')
    await expect(native.expandObservationRefs({ ...w, value: '{{observation:missing}}' })).rejects.toMatchObject({ code: 'NotFound' })
    expect(() => native.expandObservationRefsSync({ ...w, value: args, maxBytes: 1000 })).toThrow(expect.objectContaining({ code: 'TooLarge' }))
  })

  it('exports the scratchpad_read / write / edit / list / delete schemas', () => {
    const defs = native.observationToolDefinitions()
    expect(defs.map((d: any) => d.name)).toEqual(['scratchpad_read', 'scratchpad_write', 'scratchpad_edit', 'scratchpad_list', 'scratchpad_delete'])
    const read = native.observationToolDefinition('scratchpad_read')
    expect(read.parameters.properties.mode.enum).toEqual(['head', 'tail', 'range', 'lines', 'grep', 'full'])
    expect(read.parameters.properties.scratchpad_id.type).toBe('string')
    expect(native.observationToolDefinition('scratchpad_write').parameters.required).toEqual(['name', 'content'])
    expect(() => native.observationToolDefinition('nope')).toThrow(expect.objectContaining({ code: 'NotFound' }))
  })
})

describe('large entries', () => {
  it('long strings (converted through Buffer.from) keep astral characters; lone surrogates become U+FFFD', async () => {
    const w = where()
    const s = 'a🎉é\uD800b'.repeat(20_000) // 120,000 UTF-16 units, above the Buffer.from cut-over
    const res = await native.offloadObservation({ ...w, content: s })
    expect(res.kind).toBe('text')
    const expected = Buffer.from(s).toString()
    expect(res.entry.chars).toBe(chars(expected).length)
    const r = native.readObservationSync({ ...w, id: res.entry.id, mode: 'range', start: 99_991, end: 99_996 })
    expect(r.content).toBe('🎉é\uFFFDba')
    expect(r.content).toBe(sliceChars(expected, 99_991, 99_996))
    expect(native.expandObservationRefsSync({ ...w, value: `{{observation:${res.entry.id}}}` })).toBe(expected)
    const sync = native.offloadObservationSync({ ...w, content: s })
    expect(sync.entry.sizeBytes).toBe(Buffer.byteLength(s))
  })

  it('a 16 MB Buffer is stored, and the end read by range and lines without reading it all', async () => {
    const w = where()
    const line = 'INFO 2026-04-26 event number ü\n'
    const buf = Buffer.from(line.repeat(Math.ceil((16 * 1024 * 1024) / Buffer.byteLength(line))) + 'ERROR LAST_CRITICAL_EVENT')
    const res = await native.offloadObservation({ ...w, content: buf, toolName: 'fs_read', durable: false })
    expect(res.kind).toBe('text')
    const total = res.entry.chars
    const end = await native.readObservation({ ...w, id: res.entry.id, mode: 'range', start: total - 25, end: total })
    expect(end.content).toBe('ERROR LAST_CRITICAL_EVENT')
    const last = await native.readObservation({ ...w, id: res.entry.id, mode: 'lines', start: res.entry.lines })
    expect(last.content).toBe('ERROR LAST_CRITICAL_EVENT')
    const g = await native.readObservation({ ...w, id: res.entry.id, mode: 'grep', pattern: 'ERROR' })
    expect(g.content).toBe(`${res.entry.lines}:ERROR LAST_CRITICAL_EVENT`)
  })
})
