// Bad input over every export: wrong types, unknown enum values, NaN, Infinity, negative and huge
// numbers, 10 MB strings, lone surrogates, NUL bytes, hostile session keys and a symlinked session
// directory. Each call gives a stable error code or a correct result, never `Panic` or an abort,
// and no file appears outside the state directory (the parent's tree is compared before/after).
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { STABLE_CODES, added, assert, attempt, cpInput, expectCode, native, sessionDir, short, snapshot, tempDir } from '../lib.mjs'

const TEN_MB = 'a'.repeat(10 * 1024 * 1024)
const LONE = 'before \ud800 middle \udfff after'
const NUL = 'nul\u0000byte'

/** A case: `call(stateDir)` must throw one of `codes`, or return something `ok(value)` accepts. */
function c(name, call, { codes, ok } = {}) {
  return { name, call, codes, ok }
}
const anyCode = undefined

function table(S) {
  const key = 'agent:main:bad:1'
  const t = { stateDir: S, sessionKey: key }
  const isStr = (v) => typeof v === 'string'
  return [
    // tokens
    c('countTokens(42)', () => native.countTokens(42), { codes: ['InvalidArg'] }),
    c('countTokens(undefined)', () => native.countTokens(), { codes: ['InvalidArg'] }),
    c("countTokens('x', 'p50k_base') unknown encoding", () => native.countTokens('x', 'p50k_base'), { codes: ['InvalidArg'] }),
    c('countTokens(lone surrogates)', () => native.countTokens(LONE), { ok: (n) => Number.isInteger(n) && n > 0 }),
    c('countTokens(NUL byte)', () => native.countTokens(NUL), { ok: (n) => Number.isInteger(n) && n > 0 }),
    c('countTokens(10 MB)', () => native.countTokens(TEN_MB), { ok: (n) => Number.isInteger(n) && n > 10000 }),
    c("warmup('nope') rejects", () => native.warmup('nope'), { codes: ['InvalidArg'] }),
    c('warmup({}) wrong type', () => native.warmup({}), { codes: ['InvalidArg'] }),
    // scratchpad
    c("applyScratchpadAction('', ...)", () => native.applyScratchpadAction('', { action: 'set_notes', content: 'x' }), { codes: ['InvalidArg'] }),
    c('applyScratchpadAction(42, ...)', () => native.applyScratchpadAction(42, { action: 'set_notes', content: 'x' }), { codes: ['InvalidArg'] }),
    c('applyScratchpadAction unknown action', () => native.applyScratchpadAction('bad-1', { action: 'rm -rf' }), { ok: (r) => r.ok === false && r.persist.length === 0 }),
    c('applyScratchpadAction action null', () => native.applyScratchpadAction('bad-1', null), { codes: ['InvalidArg'], ok: (r) => r.ok === false }),
    c('applyScratchpadAction content 42', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 42 }), { ok: (r) => r.ok === false }),
    c('applyScratchpadAction expectedVersion NaN', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 'x', expectedVersion: NaN }), { codes: ['InvalidArg'], ok: (r) => r.ok === false }),
    c('applyScratchpadAction expectedVersion -1', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 'x', expectedVersion: -1 }), { ok: (r) => r.ok === false }),
    c('applyScratchpadAction 10 MB notes cut to the limit', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: TEN_MB }), { ok: (r) => r.ok && r.truncated && r.usage.notesChars <= 4000 }),
    c('applyScratchpadAction lone surrogates and NUL', () => native.applyScratchpadAction('bad-1', { action: 'set_plan', content: LONE + NUL }), { ok: (r) => r.ok }),
    c('applyScratchpadAction refs.set items of mixed types', () => native.applyScratchpadAction('bad-1', { action: 'refs.set', items: [1, null, {}, 'ok', '', 'ok'] }), { ok: (r) => r.ok && r.usage.refs === 1 }),
    c('applyScratchpadAction limits NaN', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 'x' }, { notesMaxChars: NaN }), { codes: ['InvalidArg'] }),
    c('applyScratchpadAction limits -5', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 'x' }, { notesMaxChars: -5 }), { codes: ['InvalidArg'] }),
    c('applyScratchpadAction limits Infinity', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 'x' }, { maxTokens: Infinity }), { codes: ['InvalidArg'] }),
    c('applyScratchpadAction limits 2^53', () => native.applyScratchpadAction('bad-1', { action: 'set_notes', content: 'x' }, { refsMax: 2 ** 53 }), { codes: ['InvalidArg'], ok: (r) => r.ok }),
    c('getScratchpadContent(undefined)', () => native.getScratchpadContent(), { codes: ['InvalidArg'] }),
    c('getScratchpadUsage({})', () => native.getScratchpadUsage({}), { codes: ['InvalidArg'] }),
    c('clearScratchpad(null)', () => native.clearScratchpad(null), { codes: ['InvalidArg'] }),
    c('restoreScratchpad entries not an array', () => native.restoreScratchpad('bad-2', 'nope'), { codes: ['InvalidArg'] }),
    c('restoreScratchpad entry data of wrong types', () => native.restoreScratchpad('bad-2', [{ type: 'custom', customType: 'openclaw:scratchpad:notes', data: 42 }, { type: 'custom', customType: 'openclaw:scratchpad:refs', data: 'x' }, 7]), { codes: ['InvalidArg'], ok: (r) => r.notesChars === 0 }),
    c('restoreScratchpad unknown leafId', () => native.restoreScratchpad('bad-2', [], 'no-such-leaf'), { codes: ['NotFound'] }),
    c('evaluateScratchpadNudge unknown kind', () => native.evaluateScratchpadNudge('bad-2', { kind: 'explode' }), { codes: ['InvalidArg'] }),
    c('evaluateScratchpadNudge settings NaN', () => native.evaluateScratchpadNudge('bad-2', { kind: 'turn_start' }, { nudgeAfterTurns: NaN }), { codes: ['InvalidArg'] }),
    c('getScratchpadToolDefinition limits -1', () => native.getScratchpadToolDefinition({ notesMaxChars: -1 }), { codes: ['InvalidArg'] }),
    c("getScratchpadSystemPrompt limits 'big'", () => native.getScratchpadSystemPrompt({ planMaxChars: 'big' }), { codes: ['InvalidArg'] }),
    // gauge
    c('evaluateContextUsage tokens NaN', () => native.evaluateContextUsage({ tokens: NaN, contextWindow: 1000 }), { codes: ['InvalidArg'] }),
    c('evaluateContextUsage contextWindow 0', () => native.evaluateContextUsage({ tokens: 1, contextWindow: 0 }), { codes: ['InvalidArg'] }),
    c('evaluateContextUsage percent Infinity', () => native.evaluateContextUsage({ percent: Infinity, contextWindow: 1000 }), { codes: ['InvalidArg'] }),
    c('evaluateContextUsage tokens -1', () => native.evaluateContextUsage({ tokens: -1, contextWindow: 1000 }), { codes: ['InvalidArg'] }),
    c('evaluateContextUsage huge tokens 1e300', () => native.evaluateContextUsage({ tokens: 1e300, contextWindow: 200000 }), { codes: ['InvalidArg'], ok: (r) => r.action === 'checkpoint' }),
    c('evaluateContextUsage gaugeAt > checkpointAt', () => native.evaluateContextUsage({ tokens: 1, contextWindow: 10 }, { gaugeAt: 0.9, checkpointAt: 0.1 }), { codes: ['InvalidArg'] }),
    c("estimateContextTokens message without role", () => native.estimateContextTokens([{ content: 'x' }]), { codes: ['InvalidArg'] }),
    c("estimateContextTokens('x') (known open: napi's ArrayExpected)", () => native.estimateContextTokens('x'), { codes: ['InvalidArg', 'ArrayExpected'] }),
    c("new ContextEstimator({ encoding: 'nope' })", () => new native.ContextEstimator({ encoding: 'nope' }), { codes: ['InvalidArg'] }),
    c('ContextEstimator.addMessage(42)', () => new native.ContextEstimator().addMessage(42), { codes: ['InvalidArg'] }),
    c('ContextEstimator.addMessages with one bad: nothing added', () => {
      const e = new native.ContextEstimator()
      const r = attemptSync(() => e.addMessages([{ role: 'user', content: 'a' }, null]))
      return { threw: r, count: e.messageCount }
    }, { ok: (v) => v.threw === 'InvalidArg' && v.count === 0 }),
    // checkpoints
    c("writeCheckpointSync trigger 'sometimes'", () => native.writeCheckpointSync(cpInput(S, key, { trigger: 'sometimes' })), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync inputTokens NaN', () => native.writeCheckpointSync(cpInput(S, key, { tokenUsage: { inputTokens: NaN, contextWindow: 1 } })), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync inputTokens -1', () => native.writeCheckpointSync(cpInput(S, key, { tokenUsage: { inputTokens: -1, contextWindow: 1 } })), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync contextWindow Infinity', () => native.writeCheckpointSync(cpInput(S, key, { tokenUsage: { inputTokens: 1, contextWindow: Infinity } })), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync compactionCount 2^64', () => native.writeCheckpointSync(cpInput(S, key, { compactionCount: 2 ** 64 })), { codes: ['InvalidArg'] }),
    c("writeCheckpointSync working.status 'asleep'", () => native.writeCheckpointSync(cpInput(S, key, { working: { status: 'asleep' } })), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync decisions not an array', () => native.writeCheckpointSync(cpInput(S, key, { decisions: 'd' })), { codes: ['InvalidArg'] }),
    c("writeCheckpoint (async) keyExchanges role 'system'", () => native.writeCheckpoint(cpInput(S, key, { thread: { keyExchanges: [{ role: 'system', gist: 'x' }] } })), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync stateDir with NUL', () => native.writeCheckpointSync(cpInput(`${S}/a\u0000b`, key)), { codes: ['InvalidArg'] }),
    c("writeCheckpointSync stateDir ''", () => native.writeCheckpointSync(cpInput('', key)), { codes: ['InvalidArg'] }),
    c('writeCheckpointSync 10 MB topic, lone surrogates, NUL: written and readable', () => {
      const r = native.writeCheckpointSync(cpInput(S, 'big-topic', { working: { topic: TEN_MB, nextAction: LONE + NUL }, openItems: [LONE, NUL] }))
      const cp = native.readCheckpoint({ stateDir: S, sessionKey: 'big-topic' })
      return { r, cp }
    }, { codes: ['InvalidArg', 'TooLarge'], ok: (v) => v.r.written && v.cp?.meta.checkpointId === v.r.checkpointId }),
    c('readCheckpoint({}) malformed source', () => native.readCheckpoint({}), { codes: ['InvalidArg'] }),
    c('readCheckpoint({ yaml: 42 })', () => native.readCheckpoint({ yaml: 42 }), { codes: ['InvalidArg'] }),
    c('readCheckpoint({ yaml: garbage }) is undefined', () => native.readCheckpoint({ yaml: '{{{[[[' + NUL }), { ok: (v) => v === undefined }),
    c('readCheckpoint({ yaml: billion laughs })', () => native.readCheckpoint({ yaml: laughs() }), { ok: (v) => v === undefined }),
    c('readCheckpoint({ yaml: 10 MB })', () => native.readCheckpoint({ yaml: TEN_MB }), { codes: ['TooLarge', 'InvalidArg'], ok: (v) => v === undefined }),
    c("renderCheckpoint mode 'evil'", () => native.renderCheckpoint({ yaml: 'x' }, { mode: 'evil' }), { codes: ['InvalidArg'] }),
    c('renderCheckpoint maxTokens -1', () => native.renderCheckpoint(renderSrc(S), { maxTokens: -1 }), { codes: ['InvalidArg'] }),
    c('renderCheckpoint maxTokens 10 (too small)', () => native.renderCheckpoint(renderSrc(S), { maxTokens: 10 }), { codes: ['InvalidArg'] }),
    c('renderCheckpoint maxTokens NaN', () => native.renderCheckpoint(renderSrc(S), { maxTokens: NaN }), { codes: ['InvalidArg'] }),
    c('checkpointToYaml({})', () => native.checkpointToYaml({}), { codes: ['InvalidArg'] }),
    c('checkpointToYaml(null)', () => native.checkpointToYaml(null), { codes: ['InvalidArg'] }),
    c("sessionDirName('')", () => native.sessionDirName(''), { codes: ['InvalidArg'] }),
    c('sessionDirName(42)', () => native.sessionDirName(42), { codes: ['InvalidArg'] }),
    // state
    c("recordDecisionSync what ''", () => native.recordDecisionSync({ ...t, what: '  ' }), { codes: ['InvalidArg'] }),
    c("recordDecisionSync when 'yesterday'", () => native.recordDecisionSync({ ...t, what: 'x', when: 'yesterday' }), { codes: ['InvalidArg'] }),
    c('recordDecision (async) what 42', () => native.recordDecision({ ...t, what: 42 }), { codes: ['InvalidArg'] }),
    c('recordDecisionSync 10 MB what is cut to 1,000 chars', () => native.recordDecisionSync({ ...t, what: TEN_MB }), { ok: (d) => d.what.length <= 1000 }),
    c('recordToolResultSync params 10 MB path, NUL, lone surrogate', () => native.recordToolResultSync({ ...t, toolName: 'read', params: { path: TEN_MB.slice(0, 1e6), paths: [NUL, LONE] } }), { ok: (r) => Array.isArray(r.filesRead) }),
    c("recordToolResultSync access 'admin'", () => native.recordToolResultSync({ ...t, toolName: 'x', params: {}, access: 'admin' }), { codes: ['InvalidArg'] }),
    c("recordToolResult toolName ''", () => native.recordToolResult({ ...t, toolName: '', params: {} }), { codes: ['InvalidArg'] }),
    c('recordMessagesSync messages not an array', () => native.recordMessagesSync({ ...t, messages: {} }), { codes: ['InvalidArg'] }),
    c('recordMessages messages of junk', () => native.recordMessages({ ...t, messages: [null, 1, 'x', { role: 42 }] }), { codes: ['InvalidArg'], ok: (r) => Array.isArray(r.exchanges) }),
    c('recordOpenItemSync text null', () => native.recordOpenItemSync({ ...t, text: null }), { codes: ['InvalidArg'] }),
    c('resolveOpenItemSync never recorded', () => native.resolveOpenItemSync({ ...t, text: 'never' }), { ok: (v) => v === false }),
    c('recordLearning text NaN', () => native.recordLearning({ ...t, text: NaN }), { codes: ['InvalidArg'] }),
    c('resolveOpenItem stateDir 42', () => native.resolveOpenItem({ stateDir: 42, sessionKey: key, text: 'x' }), { codes: ['InvalidArg'] }),
    c('readContextStateSync missing sessionKey', () => native.readContextStateSync({ stateDir: S }), { codes: ['InvalidArg'] }),
    c('readContextState wrong type', () => native.readContextState('x'), { codes: ['InvalidArg'] }),
    c('clearContextStateSync(null)', () => native.clearContextStateSync(null), { codes: ['InvalidArg'] }),
    c('clearContextState unknown session', () => native.clearContextState({ stateDir: S, sessionKey: 'never-seen' }), { ok: (v) => v === undefined }),
    // observations
    c('offloadObservationSync content 42', () => native.offloadObservationSync({ ...t, content: 42 }), { codes: ['InvalidArg'] }),
    c('offloadObservationSync thresholdBytes -1', () => native.offloadObservationSync({ ...t, content: 'x', thresholdBytes: -1 }), { codes: ['InvalidArg'] }),
    c('offloadObservationSync ttlSeconds NaN', () => native.offloadObservationSync({ ...t, content: 'x', ttlSeconds: NaN }), { codes: ['InvalidArg'] }),
    c("offloadObservation name '../../etc/passwd'", () => native.offloadObservation({ ...t, content: 'x', name: '../../etc/passwd' }), { codes: ['InvalidArg'] }),
    c("offloadObservationSync name 'a\\0b'", () => native.offloadObservationSync({ ...t, content: 'x', name: 'a\u0000b' }), { codes: ['InvalidArg'] }),
    c('offloadObservationSync 10 MB with lone surrogates: stored, tail reads back', () => {
      const r = native.offloadObservationSync({ ...t, content: TEN_MB + LONE, toolName: 'bash' })
      const tail = native.readObservationSync({ ...t, id: r.entry.id, mode: 'tail', n: 10 })
      return { r, tail }
    }, { ok: (v) => v.r.offloaded && v.tail.content === 'fd after'.slice(0) + '' || v.tail.content.endsWith('after') }),
    c('offloadObservationSync quotaBytes 1 (content over quota)', () => native.offloadObservationSync({ ...t, content: 'q'.repeat(10000), quotaBytes: 1 }), { codes: ['TooLarge'] }),
    c("readObservationSync mode 'all'", () => native.readObservationSync({ ...t, name: 'x', mode: 'all' }), { codes: ['InvalidArg'] }),
    c('readObservationSync unknown id', () => native.readObservationSync({ ...t, id: 'ffffffffffffffff' }), { codes: ['NotFound'] }),
    c('readObservationSync n -5', () => native.readObservationSync({ ...t, id: 'ffffffffffffffff', n: -5 }), { codes: ['InvalidArg'] }),
    c('readObservation range start Infinity', () => native.readObservation({ ...t, id: 'ffffffffffffffff', mode: 'range', start: Infinity }), { codes: ['InvalidArg'] }),
    c('readObservationSync grep bad regex', () => readExisting(S, key, { mode: 'grep', pattern: '(' }), { codes: ['InvalidArg'] }),
    c('readObservationSync grep catastrophic-looking regex', () => readExisting(S, key, { mode: 'grep', pattern: '(a+)+$' }), { ok: (r) => typeof r.content === 'string' }),
    c('readObservationSync range end < start', () => readExisting(S, key, { mode: 'range', start: 100, end: 5 }), { codes: ['InvalidArg'], ok: (r) => r.content === '' }),
    c('readObservationSync range start 2^53', () => readExisting(S, key, { mode: 'range', start: 2 ** 53 }), { codes: ['InvalidArg'], ok: (r) => r.content === '' }),
    c('readObservationSync lines 0..0', () => readExisting(S, key, { mode: 'lines', start: 0, end: 0 }), { codes: ['InvalidArg'], ok: (r) => isStr(r.content) }),
    c("writeObservationSync name ''", () => native.writeObservationSync({ ...t, name: '', content: 'x' }), { codes: ['InvalidArg'] }),
    c("writeObservation name '..'", () => native.writeObservation({ ...t, name: '..', content: 'x' }), { codes: ['InvalidArg'] }),
    c('writeObservationSync name 300 chars', () => native.writeObservationSync({ ...t, name: 'n'.repeat(300), content: 'x' }), { codes: ['InvalidArg'] }),
    c('editObservationSync content and oldString together', () => native.editObservationSync({ ...t, name: 'w', content: 'x', oldString: 'a', newString: 'b' }), { codes: ['InvalidArg', 'NotFound'] }),
    c('editObservation unknown entry', () => native.editObservation({ ...t, name: 'nope', content: 'x' }), { codes: ['NotFound'] }),
    c('deleteObservationSync unknown', () => native.deleteObservationSync({ ...t, name: 'nope' }), { codes: ['NotFound'] }),
    c('deleteObservation neither id nor name', () => native.deleteObservation({ ...t }), { codes: ['InvalidArg', 'NotFound'] }),
    c('listObservationsSync unknown session is empty', () => native.listObservationsSync({ stateDir: S, sessionKey: 'nobody' }), { ok: (v) => Array.isArray(v) && v.length === 0 }),
    c('listObservations stateDir null', () => native.listObservations({ stateDir: null, sessionKey: key }), { codes: ['InvalidArg'] }),
    c('gcObservationsSync quotaBytes -1', () => native.gcObservationsSync({ stateDir: S, quotaBytes: -1 }), { codes: ['InvalidArg'] }),
    c('gcObservations all sessions', () => native.gcObservations({ stateDir: S }), { ok: (v) => v.sessions >= 1 }),
    c('expandObservationRefsSync unknown ref', () => native.expandObservationRefsSync({ ...t, value: '{{observation:nope}}' }), { codes: ['NotFound'] }),
    c('expandObservationRefs maxBytes NaN', () => native.expandObservationRefs({ ...t, value: 'x', maxBytes: NaN }), { codes: ['InvalidArg'] }),
    c('expandObservationRefsSync deeply nested value', () => native.expandObservationRefsSync({ ...t, value: nested(5000) }), { codes: ['InvalidArg'], ok: () => true }),
    c('deleteObservationSessionSync unknown', () => native.deleteObservationSessionSync({ stateDir: S, sessionKey: 'nobody' }), { ok: (v) => v === false }),
    c('deleteObservationSession wrong type', () => native.deleteObservationSession(7), { codes: ['InvalidArg'] }),
    c("observationToolDefinition('rm')", () => native.observationToolDefinition('rm'), { codes: ['NotFound'] }),
    c('observationToolDefinition(42)', () => native.observationToolDefinition(42), { codes: ['InvalidArg'] }),
    c('observationToolDefinitions()', () => native.observationToolDefinitions(), { ok: (v) => v.length === 5 }),
    // history (issue 49)
    c('writeHistorySync messages 42', () => native.writeHistorySync({ ...t, messages: 42 }), { codes: ['InvalidArg'] }),
    c('writeHistory quotaBytes -1', () => native.writeHistory({ ...t, messages: [], quotaBytes: -1 }), { codes: ['InvalidArg'] }),
    c("writeHistorySync sessionKey ''", () => native.writeHistorySync({ stateDir: S, sessionKey: '', messages: [] }), { codes: ['InvalidArg'] }),
    c('writeHistorySync hostile messages (no role, numbers, nulls, lone surrogates, NUL)', () =>
      native.writeHistorySync({ ...t, messages: [null, 42, {}, { role: 7 }, { role: 'user', content: [null, 5, { type: 'text', text: 7 }] }, { role: 'user', content: LONE + NUL }, { role: 'toolResult', content: 'x', timestamp: -1 }] }), { ok: (v) => v.written && v.messages === 2 }),
    c('writeHistorySync 10 MB one-line result: wrapped, read back by grep', () => {
      native.writeHistorySync({ ...t, messages: [{ role: 'toolResult', toolName: 'read', content: [{ type: 'text', text: TEN_MB }] }] })
      return native.readObservationSync({ ...t, name: 'history', pattern: '^zzz' })
    }, { ok: (v) => v.matches === 0 }),
    c("readObservationSync name 'history' grep bad regex", () => native.readObservationSync({ ...t, name: 'history', pattern: '(' }), { codes: ['InvalidArg'] }),
    c("readObservationSync name 'history' of a session without history", () => native.readObservationSync({ stateDir: S, sessionKey: 'nobody', name: 'history', pattern: 'x' }), { codes: ['NotFound'] }),
    c('historySummary unknown session is empty', () => native.historySummary({ stateDir: S, sessionKey: 'nobody' }), { ok: (v) => v.entries === 0 && v.line == null }),
    c('historySummary wrong type', () => native.historySummary('x'), { codes: ['InvalidArg'] }),
  ]
}

function renderSrc(S) {
  native.writeCheckpointSync(cpInput(S, 'render-src'))
  return { stateDir: S, sessionKey: 'render-src' }
}

function attemptSync(f) {
  try {
    f()
    return 'none'
  } catch (e) {
    return e.code
  }
}

function readExisting(S, key, opts) {
  const name = 'grepme'
  native.writeObservationSync({ stateDir: S, sessionKey: key, name, content: `${'a'.repeat(30)}b\nline two\n`.repeat(50) })
  return native.readObservationSync({ stateDir: S, sessionKey: key, name, ...opts })
}

function nested(depth) {
  let v = '{{observation:nope}}'
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

function laughs() {
  let y = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
  for (let i = 0; i < 9; i++) y += `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]\n`
  return y
}

async function check(k, S) {
  const r = await attempt(() => k.call(S))
  if (r.ok) {
    if (!k.ok) throw new Error(`expected ${k.codes?.join('|') ?? 'an error'}, got ${short(r.value)}`)
    if (!k.ok(r.value)) throw new Error(`wrong result ${short(r.value)}`)
    return 'result ok'
  }
  const code = r.error?.code
  if (code === 'Panic' || !STABLE_CODES.has(code) && !(k.codes ?? []).includes(code)) throw new Error(`code ${code}: ${r.error?.message?.slice(0, 200)}`)
  if (k.codes && !k.codes.includes(code)) throw new Error(`code ${code} (${r.error.message.slice(0, 160)}), expected ${k.codes.join('|')}`)
  if (!k.codes) throw new Error(`threw ${code} (${r.error.message.slice(0, 160)}), expected a result`)
  return code
}

/** Open findings reported to their owners (RELIABILITY.md): the exact non-stable code seen. */
const KNOWN_OPEN = {}

const KEYS = ['.', '..', '../../etc', '..\\..\\windows', 'CON', 'nul', 'x'.repeat(300), 'Key', 'key', 'a:b', 'a_b', '/abs/path', 'a/../../b', ' ', 'é🦊\u0000']

export default function badInputCases() {
  return [
    {
      group: 'bad-input',
      name: 'every export called with no arguments, a number, and an empty object: stable code or result, never Panic',
      async run() {
        const exports = Object.entries(native).filter(([n, v]) => typeof v === 'function' && !n.startsWith('__') && n !== 'ContextEstimator')
        let n = 0
        const bad = []
        const open = new Set()
        for (const [name, f] of exports) {
          for (const args of [[], [42], [{}], [{}, {}, {}]]) {
            const r = await attempt(() => f(...args))
            if (!r.ok && KNOWN_OPEN[name] && r.error.code === KNOWN_OPEN[name]) {
              open.add(`${name}: ${r.error.code}`)
            } else if (!r.ok) {
              try {
                expectCode(r, undefined, `${name}(${args.map(short).join(', ')})`)
              } catch (e) {
                bad.push(e.message)
              }
            }
            n++
          }
        }
        assert(bad.length === 0, `${bad.length} calls without a stable code:\n  ${bad.join('\n  ')}`)
        for (const name of Object.keys(KNOWN_OPEN)) assert([...open].some((o) => o.startsWith(name)), `${name} is fixed: remove it from KNOWN_OPEN`)
        assert(n >= 60, `only ${n} calls`)
        return `${exports.length} exports x 4 argument shapes = ${n} calls; known open: ${[...open].join(', ') || 'none'}`
      },
    },
    {
      group: 'bad-input',
      name: 'targeted bad values (see table): each gives its stable code or a correct result; no file outside the state dir',
      async run() {
        const parent = tempDir('bad')
        const S = join(parent, 'state')
        const before = snapshot(parent)
        const fails = []
        const rows = []
        const cases = table(S)
        for (const k of cases) {
          if (process.env.RELIABILITY_TRACE) console.error(`  ${k.name}`)
          try {
            rows.push(`${k.name}: ${await check(k, S)}`)
          } catch (e) {
            fails.push(`${k.name}: ${e.message}`)
          }
        }
        const outside = added(before, snapshot(parent)).filter((p) => p !== 'state' && !p.startsWith('state/'))
        assert(outside.length === 0, `files created outside the state dir: ${outside}`)
        if (fails.length) throw new Error(`${fails.length} of ${cases.length} failed:\n  ${fails.join('\n  ')}`)
        globalThis.__badInputRows = rows
        return `${cases.length} cases`
      },
    },
    {
      group: 'bad-input',
      name: `hostile session keys (${KEYS.length}: "", ".", "..", "../../etc", "CON", 300 chars, case and ':'/'_' twins, ...): distinct directories inside the state dir`,
      async run() {
        const parent = tempDir('keys')
        const S = join(parent, 'state')
        const before = snapshot(parent)
        for (const f of [() => native.writeCheckpointSync(cpInput(S, '')), () => native.recordDecisionSync({ stateDir: S, sessionKey: '', what: 'x' }), () => native.offloadObservationSync({ stateDir: S, sessionKey: '', content: 'x'.repeat(5000) })]) {
          expectCode(await attempt(f), ['InvalidArg'], 'empty key')
        }
        // Lone surrogates reach Rust as U+FFFD, so 'a\ud800' and 'a\udc00' would share a directory:
        // keys that are not well-formed Unicode are refused instead.
        for (const key of ['a\ud800', 'a\udc00', 'é🦊\u0000\ud800']) {
          for (const f of [() => native.writeCheckpointSync(cpInput(S, key)), () => native.recordDecisionSync({ stateDir: S, sessionKey: key, what: 'x' }), () => native.offloadObservationSync({ stateDir: S, sessionKey: key, content: 'x'.repeat(5000) }), () => native.sessionDirName(key)]) {
            expectCode(await attempt(f), ['InvalidArg'], `lone surrogate key ${short(key)}`)
          }
        }
        const dirs = new Set()
        for (const key of KEYS) {
          native.writeCheckpointSync(cpInput(S, key))
          native.recordDecisionSync({ stateDir: S, sessionKey: key, what: `for ${key}` })
          native.offloadObservationSync({ stateDir: S, sessionKey: key, content: `${key} `.repeat(2000), name: 'k' })
          const name = native.sessionDirName(key)
          assert(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,64}$/.test(name) && name.length <= 65, `bad dir name ${name}`)
          dirs.add(name.toLowerCase())
          const cp = native.readCheckpoint({ stateDir: S, sessionKey: key })
          assert(cp.meta.sessionKey === key.toWellFormed(), `read back key ${short(cp.meta.sessionKey)} for ${short(key)}`)
          assert(native.readContextStateSync({ stateDir: S, sessionKey: key }).decisions[0]?.what.startsWith('for'), `state of ${short(key)}`)
        }
        assert(dirs.size === KEYS.length, `only ${dirs.size} distinct directories for ${KEYS.length} keys (case-insensitively)`)
        for (const kind of ['checkpoints', 'state', 'observations']) {
          const snap = snapshot(join(S, 'context', kind))
          const top = [...snap.keys()].filter((k) => !k.includes('/'))
          assert(top.length === KEYS.length, `${kind}: ${top.length} session dirs`)
        }
        const outside = added(before, snapshot(parent)).filter((p) => p !== 'state' && !p.startsWith('state/'))
        assert(outside.length === 0, `files created outside the state dir: ${outside}`)
        assert(snapshot(S).size > 0 && ![...snapshot(S).keys()].some((k) => k.split('/').includes('..')), 'path escape')
        return `${KEYS.length} keys -> ${dirs.size} distinct directories; "" refused InvalidArg`
      },
    },
    {
      group: 'bad-input',
      name: 'session directory that is a symlink to elsewhere: every read and write refused UnsafePath, nothing written there',
      async run() {
        const parent = tempDir('symlink')
        const S = join(parent, 'state')
        const elsewhere = join(parent, 'elsewhere')
        mkdirSync(elsewhere)
        const key = 'agent:main:symlinked'
        native.writeCheckpointSync(cpInput(S, 'other'))
        for (const kind of ['checkpoints', 'state', 'observations']) {
          mkdirSync(join(S, 'context', kind), { recursive: true })
          symlinkSync(elsewhere, sessionDir(S, kind, key))
        }
        const t = { stateDir: S, sessionKey: key }
        const calls = {
          writeCheckpointSync: () => native.writeCheckpointSync(cpInput(S, key)),
          writeCheckpoint: () => native.writeCheckpoint(cpInput(S, key)),
          readCheckpoint: () => native.readCheckpoint(t),
          renderCheckpoint: () => native.renderCheckpoint(t),
          recordDecisionSync: () => native.recordDecisionSync({ ...t, what: 'x' }),
          recordToolResult: () => native.recordToolResult({ ...t, toolName: 'read', params: { path: '/x' } }),
          recordMessagesSync: () => native.recordMessagesSync({ ...t, messages: [{ role: 'user', content: 'x' }] }),
          recordOpenItemSync: () => native.recordOpenItemSync({ ...t, text: 'x' }),
          recordLearningSync: () => native.recordLearningSync({ ...t, text: 'x' }),
          resolveOpenItemSync: () => native.resolveOpenItemSync({ ...t, text: 'x' }),
          readContextStateSync: () => native.readContextStateSync(t),
          clearContextStateSync: () => native.clearContextStateSync(t),
          offloadObservationSync: () => native.offloadObservationSync({ ...t, content: 'x'.repeat(9000) }),
          writeObservation: () => native.writeObservation({ ...t, name: 'n', content: 'x' }),
          readObservationSync: () => native.readObservationSync({ ...t, name: 'n' }),
          listObservationsSync: () => native.listObservationsSync(t),
          editObservationSync: () => native.editObservationSync({ ...t, name: 'n', content: 'y' }),
          deleteObservationSync: () => native.deleteObservationSync({ ...t, name: 'n' }),
          deleteObservationSessionSync: () => native.deleteObservationSessionSync(t),
          gcObservationsSync: () => native.gcObservationsSync(t),
          expandObservationRefsSync: () => native.expandObservationRefsSync({ ...t, value: '{{observation:n}}' }),
          writeHistorySync: () => native.writeHistorySync({ ...t, messages: [{ role: 'user', content: 'x' }] }),
          historySummary: () => native.historySummary(t),
        }
        const wrong = []
        for (const [name, f] of Object.entries(calls)) {
          const r = await attempt(f)
          if (r.ok || r.error.code !== 'UnsafePath') wrong.push(`${name}: ${r.ok ? `returned ${short(r.value)}` : r.error.code}`)
        }
        const there = snapshot(elsewhere)
        assert(there.size === 0, `files written through the symlink: ${[...there.keys()]}`)
        assert(wrong.length === 0, `not refused with UnsafePath: ${wrong.join('; ')}`)
        return `${Object.keys(calls).length} calls refused UnsafePath; target untouched`
      },
    },
  ]
}
