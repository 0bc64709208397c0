// Baseline: seed 002's session scratchpad written in plain TypeScript-style JavaScript, the way an
// OpenClaw extension would write it without the addon. It is the incumbent `applyScratchpadAction`
// and `getScratchpadContent` are measured against, so it does the same work the seeds ask for:
//
// - three spaces per session in a `Map<sessionId, pad>`: notes (4,000 chars), plan (2,000 chars),
//   refs (50 items); characters are JS string length (UTF-16 code units);
// - the six actions with seed 002's budget semantics: set_notes / set_plan truncate and warn,
//   append_notes is rejected when the result would exceed the notes limit (notes unchanged),
//   refs.add drops the oldest at capacity, refs.remove fails when the ref is missing, refs.set
//   keeps the first 50 strings and drops non-strings;
// - seed 000's token budget (maxTokens, default 2,000, o200k) over the whole rendered block,
//   counted with gpt-tokenizer: set_* cut the text to the longest prefix that fits (binary search
//   over grapheme boundaries), append / refs.add are rejected when over budget;
// - the rendered block between seed 000's markers, `[Session Scratchpad - your persistent working
//   memory]` ... `[End Scratchpad]`, only non-empty spaces included, content lines that would
//   read as the block's own markers escaped (same layout as the addon, so both produce the same
//   text and the comparison is like for like);
// - every successful change returns the session entries to persist (`openclaw:scratchpad:notes`,
//   `...:plan`, `...:refs`) and the usage (chars, refs, tokens, version).
//
// `getScratchpadContent` renders on every call (the natural TS implementation: the spaces are the
// state). `getScratchpadContentCached` is the variant that caches the block on change.

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'

export const BLOCK_OPEN = '[Session Scratchpad - your persistent working memory]'
export const BLOCK_CLOSE = '[End Scratchpad]'
export const NOTES_KEY = 'openclaw:scratchpad:notes'
export const PLAN_KEY = 'openclaw:scratchpad:plan'
export const REFS_KEY = 'openclaw:scratchpad:refs'
export const LEGACY_KEY = 'openclaw:scratchpad'
export const DEFAULT_LIMITS = Object.freeze({ notesMaxChars: 4000, planMaxChars: 2000, refsMax: 50, maxTokens: 2000 })

const ORDINARY = { disallowedSpecial: new Set() }
const tokensOf = (text) => (text === undefined ? 0 : countTokens(text, ORDINARY))

const RESERVED = /^\s*(\[end scratchpad|\[session scratchpad|\[notes:|\[plan:|\[refs:)/i
const LINE_BREAK = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/

/** Escapes content lines that would read as the block's own markers or labels. */
function escapeBlockLines(s) {
  if (!s.includes('[')) return s
  // split keeping the separators, so the text round-trips
  const parts = s.split(/(\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029])/)
  for (let i = 0; i < parts.length; i += 2) {
    const m = RESERVED.exec(parts[i])
    if (m) {
      const lead = parts[i].length - parts[i].trimStart().length
      parts[i] = `${parts[i].slice(0, lead)}\\${parts[i].slice(lead)}`
    }
  }
  return parts.join('')
}

/** A ref on exactly one line: line breaks become visible escapes. */
function oneLine(s) {
  if (!LINE_BREAK.test(s)) return s
  return s.replace(/[\n\r\u000b\u000c\u0085\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** The block for the given spaces, or undefined when all are empty. */
export function render(notes, plan, refs, limits) {
  if (!notes && !plan && refs.length === 0) return undefined
  let s = `${BLOCK_OPEN}\n`
  if (notes) s += `[Notes: ${notes.length}/${limits.notesMaxChars} chars]\n${escapeBlockLines(notes)}\n`
  if (plan) s += `[Plan: ${plan.length}/${limits.planMaxChars} chars]\n${escapeBlockLines(plan)}\n`
  if (refs.length) {
    s += `[Refs: ${refs.length}/${limits.refsMax}]\n`
    for (const r of refs) s += `- ${oneLine(r)}\n`
  }
  return s + BLOCK_CLOSE
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** Offsets (UTF-16) of every grapheme boundary of s, 0 and s.length included. */
function graphemeBoundaries(s) {
  const out = []
  for (const { index } of segmenter.segment(s)) out.push(index)
  out.push(s.length)
  return out
}

/** The longest prefix of at most max code units that does not split a grapheme. */
function truncateChars(s, max) {
  if (s.length <= max) return s
  let cut = 0
  for (const { index, segment } of segmenter.segment(s)) {
    if (index + segment.length > max) break
    cut = index + segment.length
  }
  return s.slice(0, cut)
}

/** Largest k in 1..n-1 with fits(k) (fits(n) is known false), by binary search. */
function largestFitting(n, fits) {
  let lo = 0
  let hi = n
  let best
  while (hi - lo > 1) {
    const mid = lo + ((hi - lo) >> 1)
    const m = fits(mid)
    if (m) {
      lo = mid
      best = { k: mid, m }
    } else hi = mid
  }
  return best
}

const quote = (s) => JSON.stringify(s.length <= 80 ? s : s.slice(0, 80)) + (s.length <= 80 ? '' : '…')

function clampLimits(l) {
  if (!l) return undefined
  return {
    notesMaxChars: l.notesMaxChars ?? DEFAULT_LIMITS.notesMaxChars,
    planMaxChars: l.planMaxChars ?? DEFAULT_LIMITS.planMaxChars,
    refsMax: l.refsMax ?? DEFAULT_LIMITS.refsMax,
    maxTokens: l.maxTokens ?? DEFAULT_LIMITS.maxTokens,
  }
}

function newPad() {
  return { notes: '', plan: '', refs: [], version: 0, limits: { ...DEFAULT_LIMITS }, rendered: undefined, tokens: 0 }
}

/** One scratchpad registry (the extension's module-level `Map`). */
export class ScratchpadStore {
  constructor() {
    /** @type {Map<string, ReturnType<typeof newPad>>} */
    this.sessions = new Map()
  }

  #pad(id) {
    let p = this.sessions.get(id)
    if (!p) {
      p = newPad()
      this.sessions.set(id, p)
    }
    return p
  }

  #measure(notes, plan, refs, limits) {
    const rendered = render(notes, plan, refs, limits)
    return { rendered, tokens: tokensOf(rendered) }
  }

  #usage(p) {
    return { notesChars: p.notes.length, planChars: p.plan.length, refs: p.refs.length, tokens: p.tokens, version: p.version }
  }

  #answer(p, ok, what, truncated = false, persist = []) {
    const u = this.#usage(p)
    const l = p.limits
    const status =
      `Scratchpad: notes ${u.notesChars}/${l.notesMaxChars} chars, plan ${u.planChars}/${l.planMaxChars} chars, ` +
      `refs ${u.refs}/${l.refsMax}, ${u.tokens}/${l.maxTokens} tokens (version ${u.version}).`
    return { ok, message: `${what} ${status}`, truncated, persist, usage: u }
  }

  #install(p, change, m) {
    if (change.notes !== undefined) p.notes = change.notes
    if (change.plan !== undefined) p.plan = change.plan
    if (change.refs !== undefined) p.refs = change.refs
    p.rendered = m.rendered
    p.tokens = m.tokens
    p.version++
  }

  /**
   * Applies one `session.scratchpad` tool call.
   * @param {string} sessionId
   * @param {{ action: string, content?: string, ref?: string, items?: unknown[] }} action
   * @param {{ notesMaxChars?: number, planMaxChars?: number, refsMax?: number, maxTokens?: number }} [limits]
   */
  apply(sessionId, action, limits) {
    const p = this.#pad(sessionId)
    const l = clampLimits(limits)
    if (l && JSON.stringify(l) !== JSON.stringify(p.limits)) {
      p.limits = l
      const m = this.#measure(p.notes, p.plan, p.refs, l)
      p.rendered = m.rendered
      p.tokens = m.tokens
    }
    const invalid = (what) =>
      this.#answer(p, false, `Invalid session.scratchpad call: ${what}. Nothing was changed.`)
    if (action === null || typeof action !== 'object') return invalid('the arguments must be an object')
    switch (action.action) {
      case 'set_notes':
      case 'set_plan':
        if (typeof action.content !== 'string') return invalid(`${action.action} needs \`content\` (a string)`)
        return this.#setText(p, action.action === 'set_notes' ? 'notes' : 'plan', action.content)
      case 'append_notes':
        if (typeof action.content !== 'string' || !action.content) return invalid('append_notes needs a non-empty `content`')
        return this.#appendNotes(p, action.content)
      case 'refs.add':
      case 'refs.remove':
        if (typeof action.ref !== 'string' || !action.ref) return invalid(`${action.action} needs a non-empty \`ref\``)
        return action.action === 'refs.add' ? this.#addRef(p, action.ref) : this.#removeRef(p, action.ref)
      case 'refs.set':
        if (!Array.isArray(action.items)) return invalid('refs.set needs `items` (an array of strings)')
        return this.#setRefs(p, action.items)
      default:
        return invalid(`unknown action ${JSON.stringify(String(action.action))}`)
    }
  }

  #setText(p, space, content) {
    const notes = space === 'notes'
    const max = notes ? p.limits.notesMaxChars : p.limits.planMaxChars
    const current = notes ? p.notes : p.plan
    const title = notes ? 'Notes' : 'Plan'
    if (content === current) return this.#answer(p, true, `${title} unchanged (same content).`)
    const capped = truncateChars(content, max)
    const charCut = capped.length < content.length
    const withText = (t) => (notes ? this.#measure(t, p.plan, p.refs, p.limits) : this.#measure(p.notes, t, p.refs, p.limits))
    let text = capped
    let m = withText(capped)
    let tokenCut = false
    if (m.tokens > p.limits.maxTokens && capped) {
      const bounds = graphemeBoundaries(capped)
      const best = largestFitting(bounds.length - 1, (k) => {
        const mk = withText(capped.slice(0, bounds[k]))
        return mk.tokens <= p.limits.maxTokens ? mk : undefined
      })
      if (!best) {
        return this.#answer(p, false, `${space === 'notes' ? 'set_notes' : 'set_plan'} rejected: the rest of the scratchpad already uses the ${p.limits.maxTokens}-token budget. Nothing was changed.`)
      }
      text = capped.slice(0, bounds[best.k])
      m = best.m
      tokenCut = true
    }
    let what
    if (!text) what = `${title} cleared.`
    else if (charCut || tokenCut) {
      const why = tokenCut ? `to fit the ${p.limits.maxTokens}-token scratchpad budget` : `to the ${max}-char limit`
      what = `Warning: ${space} truncated ${why}: kept ${text.length} of ${content.length} chars, the end was dropped. Consider summarizing.`
    } else what = `${title} replaced (${text.length}/${max} chars).`
    if (text === current) return this.#answer(p, true, `${title} unchanged after truncation.`, true)
    this.#install(p, notes ? { notes: text } : { plan: text }, m)
    return this.#answer(p, true, what, charCut || tokenCut, [{ customType: notes ? NOTES_KEY : PLAN_KEY, data: text }])
  }

  #appendNotes(p, content) {
    const max = p.limits.notesMaxChars
    const sep = p.notes ? 1 : 0
    const total = p.notes.length + sep + content.length
    if (total > max) {
      return this.#answer(p, false, `Append rejected: notes would be ${total}/${max} chars (current ${p.notes.length}, append ${content.length}). Notes unchanged. Use set_notes to rewrite the notes as a tighter summary.`)
    }
    const joined = sep ? `${p.notes}\n${content}` : content
    const m = this.#measure(joined, p.plan, p.refs, p.limits)
    if (m.tokens > p.limits.maxTokens) {
      return this.#answer(p, false, `Append rejected: the scratchpad would use ${m.tokens}/${p.limits.maxTokens} tokens (now ${p.tokens}). Notes unchanged.`)
    }
    this.#install(p, { notes: joined }, m)
    return this.#answer(p, true, `Appended ${content.length} chars to notes (${total}/${max} chars).`, false, [{ customType: NOTES_KEY, data: joined }])
  }

  #addRef(p, ref) {
    const max = p.limits.refsMax
    if (p.refs.includes(ref)) return this.#answer(p, true, `Ref ${quote(ref)} is already in refs; nothing changed.`)
    const overflow = Math.max(0, p.refs.length + 1 - max)
    const dropped = p.refs.slice(0, overflow)
    const refs = [...p.refs.slice(overflow), ref]
    const m = this.#measure(p.notes, p.plan, refs, p.limits)
    if (m.tokens > p.limits.maxTokens) {
      return this.#answer(p, false, `refs.add rejected: the scratchpad would use ${m.tokens}/${p.limits.maxTokens} tokens (now ${p.tokens}). Refs unchanged.`)
    }
    this.#install(p, { refs }, m)
    const what = dropped.length
      ? `Added ref ${quote(ref)}; refs were full, so the oldest was dropped: ${dropped.map(quote).join(', ')} (${refs.length}/${max} refs).`
      : `Added ref ${quote(ref)} (${refs.length}/${max} refs).`
    return this.#answer(p, true, what, false, [{ customType: REFS_KEY, data: [...refs] }])
  }

  #removeRef(p, ref) {
    const i = p.refs.indexOf(ref)
    if (i < 0) return this.#answer(p, false, `Ref ${quote(ref)} not found; nothing changed.`)
    const refs = p.refs.filter((_, j) => j !== i)
    const m = this.#measure(p.notes, p.plan, refs, p.limits)
    this.#install(p, { refs }, m)
    return this.#answer(p, true, `Removed ref ${quote(ref)} (${refs.length}/${p.limits.refsMax} refs).`, false, [{ customType: REFS_KEY, data: [...refs] }])
  }

  #setRefs(p, items) {
    const max = p.limits.refsMax
    const seen = new Set()
    let refs = []
    let dropped = 0
    for (const it of items) {
      if (typeof it === 'string' && it && !seen.has(it)) {
        seen.add(it)
        refs.push(it)
      } else dropped++
    }
    const strings = refs.length
    const capped = strings > max
    refs = refs.slice(0, max)
    if (refs.length === p.refs.length && refs.every((r, i) => r === p.refs[i])) {
      return this.#answer(p, true, 'Refs unchanged (same items).', capped)
    }
    let m = this.#measure(p.notes, p.plan, refs, p.limits)
    let tokenCut = false
    if (m.tokens > p.limits.maxTokens && refs.length) {
      const best = largestFitting(refs.length, (k) => {
        const mk = this.#measure(p.notes, p.plan, refs.slice(0, k), p.limits)
        return mk.tokens <= p.limits.maxTokens ? mk : undefined
      })
      if (!best) return this.#answer(p, false, `refs.set rejected: not even the first ref fits the ${p.limits.maxTokens}-token budget. Refs unchanged.`)
      refs = refs.slice(0, best.k)
      m = best.m
      tokenCut = true
    }
    let what = `Refs replaced (${refs.length}/${max} refs).`
    if (capped) what += ` Warning: only the first ${max} of ${strings} refs were kept.`
    if (tokenCut) what += ` Warning: only the first ${refs.length} refs fit the ${p.limits.maxTokens}-token budget.`
    if (dropped) what += ` Dropped ${dropped} item(s) that were not non-empty strings or were repeats.`
    this.#install(p, { refs }, m)
    return this.#answer(p, true, what, capped || tokenCut, [{ customType: REFS_KEY, data: [...refs] }])
  }

  /** The block to prepend, rendered from the spaces on every call; undefined when all are empty. */
  getContent(sessionId) {
    const p = this.sessions.get(sessionId)
    return p && render(p.notes, p.plan, p.refs, p.limits)
  }

  /** The block cached at the last change (what a tuned TS implementation would return). */
  getContentCached(sessionId) {
    return this.sessions.get(sessionId)?.rendered
  }

  /**
   * Restores from pi session entries: the last entry of each key wins; the legacy single key
   * fills notes when there is no notes entry.
   */
  restore(sessionId, entries) {
    let notes
    let plan
    let refs
    let legacy
    for (const e of entries) {
      if (e?.type !== 'custom') continue
      if (e.customType === NOTES_KEY && typeof e.data === 'string') notes = e.data
      else if (e.customType === PLAN_KEY && typeof e.data === 'string') plan = e.data
      else if (e.customType === REFS_KEY && Array.isArray(e.data)) refs = e.data.filter((r) => typeof r === 'string' && r)
      else if (e.customType === LEGACY_KEY && typeof e.data === 'string') legacy = e.data
    }
    const p = newPad()
    p.notes = notes ?? legacy ?? ''
    p.plan = plan ?? ''
    p.refs = refs ?? []
    const m = this.#measure(p.notes, p.plan, p.refs, p.limits)
    p.rendered = m.rendered
    p.tokens = m.tokens
    this.sessions.set(sessionId, p)
    return this.#usage(p)
  }

  clear(sessionId) {
    return this.sessions.delete(sessionId)
  }
}
