// Baseline: seed 001's checkpoint writer, reader and restore renderer, written the way the seed
// describes them for `src/agents/context-checkpoint.ts` and `context-checkpoint-inject.ts`:
//
// - the path: `<stateDir>/context/checkpoints/<sanitizeSessionKeyForPath(key)>/cp_NNN.yaml` plus a
//   per-session `_latest.json` pointer `{ checkpoint_id, path }` (5.2);
// - the document: schema v1 of 5.3 (every section, keys in the seed's order), serialised with the
//   `yaml` package's `stringify`: free text (topic, next_action, decision `what`, summary, gists)
//   as block scalars, every other string double-quoted (tool names always quoted) (5.1);
// - the write: dedup against the last checkpoint (input tokens moved < 5 %, unless a compaction
//   checkpoint with a new compaction count), the next id, the state files of section 7 for what
//   the input leaves out, temp file + rename for the checkpoint and for `_latest.json` (with
//   `fsync: true`, fsync of the file before the rename and of the directory after it, which is the
//   addon's durability), retention of the newest 5 (5.5), then the state files reset (7.3);
// - the reader: `_latest.json` -> the file -> `YAML.parse`, schema checked;
// - the renderer: the restore text of 8.2 (`[Post-compaction checkpoint restore]`, working state,
//   decisions with their HH:MM, thread, open items, learnings), plus the compaction warning of 5.5.
//
// Asynchronous with `fs/promises`, as the host's hooks are.

import { promises as fsp, readFileSync } from 'node:fs'
import path from 'node:path'
import YAML from 'yaml'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'

const ORDINARY = { disallowedSpecial: new Set() }

export const RETAIN = 5
export const DEDUP_RATIO = 0.05
const LATEST = '_latest.json'
const STATE_FILES = ['decisions.json', 'thread.json', 'resources.json', 'open_items.json']

/** Seed 001, 5.2 (codex finding #4). */
export function sanitizeSessionKeyForPath(sessionKey) {
  return sessionKey.replace(/[^a-zA-Z0-9._-]/g, '_')
}

export function checkpointDir(stateDir, sessionKey) {
  return path.join(stateDir, 'context', 'checkpoints', sanitizeSessionKeyForPath(sessionKey))
}

function stateDirOf(stateDir, sessionKey) {
  return path.join(stateDir, 'context', 'state', sanitizeSessionKeyForPath(sessionKey))
}

const idOf = (n) => `cp_${String(n).padStart(3, '0')}`
const numberOf = (id) => (/^cp_(\d+)$/.exec(id) ? Number(id.slice(3)) : NaN)
const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

/** Free text becomes a block scalar (seed 5.1: avoids colon and quote issues). */
function block(text) {
  if (text == null) return null
  const s = new YAML.Scalar(text)
  s.type = 'BLOCK_LITERAL'
  return s
}

async function readJson(file) {
  try {
    return JSON.parse(await fsp.readFile(file, 'utf8'))
  } catch (e) {
    if (e.code === 'ENOENT') return undefined
    throw e
  }
}

/** Temp file + rename; with fsync, the file before the rename and the directory after it. */
export async function atomicWrite(dir, name, text, { fsync }) {
  const tmp = path.join(dir, `.tmp-${name}-${process.pid}-${Math.random().toString(36).slice(2)}`)
  const fh = await fsp.open(tmp, 'w', 0o600)
  try {
    await fh.writeFile(text)
    if (fsync) await fh.sync()
  } finally {
    await fh.close()
  }
  try {
    await fsp.rename(tmp, path.join(dir, name))
  } catch (e) {
    await fsp.rm(tmp, { force: true })
    throw e
  }
  if (fsync) {
    const d = await fsp.open(dir, 'r')
    try {
      await d.sync()
    } finally {
      await d.close()
    }
  }
}

async function listCheckpoints(dir) {
  let names
  try {
    names = await fsp.readdir(dir)
  } catch (e) {
    if (e.code === 'ENOENT') return []
    throw e
  }
  return names
    .filter((n) => /^cp_\d+\.yaml$/.test(n))
    .map((n) => n.slice(0, -5))
    .sort((a, b) => numberOf(a) - numberOf(b))
}

/** Reads the state files of section 7 (missing files are empty). */
async function readState(stateDir, sessionKey) {
  const dir = stateDirOf(stateDir, sessionKey)
  const out = {}
  for (const f of STATE_FILES) out[f] = await readJson(path.join(dir, f))
  return out
}

/**
 * Writes the next checkpoint of a session (the contract's `CheckpointInput`).
 * @param {any} input
 * @param {{ fsync?: boolean }} [o] fsync: true is the addon's durability (the default)
 */
export async function writeCheckpoint(input, o = {}) {
  const fsync = o.fsync ?? true
  const dir = checkpointDir(input.stateDir, input.sessionKey)
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 })

  const ids = await listCheckpoints(dir)
  const pointer = await readJson(path.join(dir, LATEST))
  let last
  if (pointer?.checkpoint_id) {
    try {
      last = YAML.parse(await fsp.readFile(path.join(dir, `${pointer.checkpoint_id}.yaml`), 'utf8'))
    } catch {
      last = undefined // a damaged file does not block the next checkpoint
    }
  }
  const lastCount = last?.meta?.compaction_count ?? 0
  const compactionCount = input.compactionCount ?? lastCount
  const inputTokens = input.tokenUsage.inputTokens
  if (last) {
    const base = last.meta.token_usage.input_tokens
    const newCount = input.trigger === 'compaction' && compactionCount !== lastCount
    if (!newCount && (Math.abs(base - inputTokens) < DEDUP_RATIO * base || (base === 0 && inputTokens === 0))) {
      return { written: false, checkpointId: last.meta.checkpoint_id, path: path.join(dir, `${last.meta.checkpoint_id}.yaml`), reason: 'dedup', pruned: [] }
    }
  }

  const state = await readState(input.stateDir, input.sessionKey)
  const st = {
    decisions: state['decisions.json'] ?? [],
    thread: state['thread.json'] ?? {},
    resources: state['resources.json'] ?? {},
    openItems: state['open_items.json'] ?? [],
  }

  const n = ids.length ? numberOf(ids[ids.length - 1]) + 1 : 1
  const id = idOf(n)
  const w = input.working ?? {}
  const r = input.resources ?? {}
  const t = input.thread ?? {}
  const util = input.tokenUsage.utilization ?? inputTokens / input.tokenUsage.contextWindow
  let nextDecision = 1
  const doc = {
    schema: 'openclaw/checkpoint',
    schema_version: 1,
    meta: {
      checkpoint_id: id,
      session_key: input.sessionKey,
      session_file: input.sessionFile ?? null,
      created_at: nowIso(),
      trigger: input.trigger,
      compaction_count: compactionCount,
      token_usage: {
        input_tokens: inputTokens,
        context_window: input.tokenUsage.contextWindow,
        utilization: Math.round(util * 10_000) / 10_000,
      },
      previous_checkpoint: pointer?.checkpoint_id ?? null,
      channel: input.channel ?? null,
      agent_id: input.agentId ?? null,
    },
    working: {
      topic: block(w.topic ?? st.thread.topic ?? null),
      status: w.status ?? 'idle',
      interrupted: w.interrupted ?? input.isSplitTurn ?? false,
      last_tool_call: w.lastToolCall ? { name: w.lastToolCall.name, params_summary: w.lastToolCall.paramsSummary ?? null } : null,
      next_action: block(w.nextAction ?? null),
    },
    decisions: (input.decisions ?? st.decisions).slice(-50).map((d) => ({
      id: d.id ?? `d${nextDecision++}`,
      what: block(d.what),
      when: d.when ?? null,
    })),
    resources: {
      files_read: (r.filesRead ?? st.resources.files_read ?? []).slice(-100),
      files_modified: (r.filesModified ?? st.resources.files_modified ?? []).slice(-100),
      tools_used: (r.toolsUsed ?? st.resources.tools_used ?? []).slice(-100),
    },
    thread: {
      summary: block(t.summary ?? null),
      key_exchanges: (t.keyExchanges ?? st.thread.key_exchanges ?? []).slice(-8).map((e) => ({ role: e.role, gist: block(e.gist) })),
    },
    open_items: (input.openItems ?? st.openItems).slice(-50),
    learnings: (input.learnings ?? []).slice(-50),
  }
  // `YAML.stringify(value, options)` is `new YAML.Document(value).toString(options)`; the Document form
  // is used only to set the header comment (the block scalars are Scalar nodes inside `doc`)
  const yamlDoc = new YAML.Document(doc)
  yamlDoc.commentBefore = ' OpenClaw Checkpoint Schema v1'
  const text = yamlDoc.toString({ defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 })

  const file = `${id}.yaml`
  await atomicWrite(dir, file, text, { fsync })
  const full = path.join(dir, file)
  await atomicWrite(dir, LATEST, `${JSON.stringify({ checkpoint_id: id, path: full })}\n`, { fsync })

  const all = [...ids, id]
  const pruned = []
  for (const old of all.slice(0, Math.max(0, all.length - RETAIN))) {
    await fsp.rm(path.join(dir, `${old}.yaml`), { force: true })
    pruned.push(old)
  }
  // reset the state files that exist (7.3)
  const sdir = stateDirOf(input.stateDir, input.sessionKey)
  for (const f of STATE_FILES) {
    if (state[f] !== undefined) await atomicWrite(sdir, f, f === 'thread.json' || f === 'resources.json' ? '{}' : '[]', { fsync })
  }
  return { written: true, checkpointId: id, path: full, pruned }
}

/** Parses and checks a checkpoint document; throws on anything that is not schema v1. */
export function parseCheckpoint(text) {
  const cp = YAML.parse(text)
  if (cp?.schema !== 'openclaw/checkpoint' || cp.schema_version !== 1) throw new Error('not an openclaw/checkpoint v1 document')
  return cp
}

/** `_latest.json` -> the checkpoint file -> parsed, or undefined when the session has none. */
export async function readCheckpoint(source) {
  if ('yaml' in source) return parseCheckpoint(source.yaml)
  const dir = checkpointDir(source.stateDir, source.sessionKey)
  const pointer = await readJson(path.join(dir, LATEST))
  if (!pointer?.checkpoint_id) return undefined
  return parseCheckpoint(await fsp.readFile(path.join(dir, `${pointer.checkpoint_id}.yaml`), 'utf8'))
}

const oneLine = (s) => String(s).trim().replace(/\s*\n\s*/g, ' ')
const hhmm = (when) => {
  const m = /T(\d{2}:\d{2})/.exec(when ?? '')
  return m ? ` (${m[1]})` : ''
}

/**
 * The restore text of seed 001 section 8.2 for a parsed checkpoint. With `maxTokens` (counted
 * with gpt-tokenizer, o200k), the least important content is dropped until the text fits
 * (seed 001 P5 targets ~600-800 tokens): learnings, files read, tools, files modified, the
 * oldest key exchanges, the thread summary, the oldest decisions.
 */
export function renderRestoreText(cp, { mode = 'post-compaction', maxTokens } = {}) {
  let text = composeRestoreText(cp, mode)
  if (!maxTokens || countTokens(text, ORDINARY) <= maxTokens) return text
  const v = structuredClone(cp)
  v.resources ??= {}
  v.thread ??= {}
  const steps = [
    () => (v.learnings = []),
    () => (v.resources.files_read = []),
    () => (v.resources.tools_used = []),
    () => (v.resources.files_modified = []),
    ...(v.thread.key_exchanges ?? []).map(() => () => v.thread.key_exchanges.shift()),
    () => (v.thread.summary = null),
    ...(v.decisions ?? []).map(() => () => v.decisions.shift()),
  ]
  for (const step of steps) {
    step()
    text = composeRestoreText(v, mode)
    if (countTokens(text, ORDINARY) <= maxTokens) return text
  }
  return text
}

function composeRestoreText(cp, mode) {
  const out = [mode === 'resume' ? '[Session resume checkpoint]' : '[Post-compaction checkpoint restore]', '']
  const w = cp.working ?? {}
  if (w.topic) out.push(`Working on: ${oneLine(w.topic)}`)
  if (w.status) out.push(`Status: ${w.status}${w.interrupted ? ' (interrupted)' : ''}`)
  if (w.last_tool_call?.name) out.push(`Last tool call: ${w.last_tool_call.name}${w.last_tool_call.params_summary ? ` (${w.last_tool_call.params_summary})` : ''}`)
  if (w.next_action) out.push(`Next action: ${oneLine(w.next_action)}`)
  if (cp.decisions?.length) {
    out.push('', 'Decisions made:')
    for (const d of cp.decisions) out.push(`- ${oneLine(d.what)}${hhmm(d.when)}`)
  }
  if (cp.thread?.summary) out.push('', `Thread: ${oneLine(cp.thread.summary)}`)
  if (cp.thread?.key_exchanges?.length) {
    out.push('', 'Key exchanges:')
    for (const e of cp.thread.key_exchanges) out.push(`- ${e.role}: ${oneLine(e.gist)}`)
  }
  const res = cp.resources ?? {}
  const resLines = []
  if (res.files_modified?.length) resLines.push(`Files modified: ${res.files_modified.join(', ')}`)
  if (res.files_read?.length) resLines.push(`Files read: ${res.files_read.join(', ')}`)
  if (res.tools_used?.length) resLines.push(`Tools used: ${res.tools_used.join(', ')}`)
  if (resLines.length) out.push('', ...resLines)
  if (cp.open_items?.length) {
    out.push('', 'Open items:')
    for (const i of cp.open_items) out.push(`- ${oneLine(i)}`)
  }
  if (cp.learnings?.length) {
    out.push('', 'Learnings (consider storing to long-term memory):')
    for (const l of cp.learnings) out.push(`- ${oneLine(l)}`)
  }
  if ((cp.meta?.compaction_count ?? 0) > 3) {
    out.push('', `Warning: this session has been compacted ${cp.meta.compaction_count} times; consider starting a fresh session.`)
  }
  return out.join('\n')
}

/** The contract's `renderCheckpoint`: read (from disk or a YAML string), parse, render. */
export async function renderCheckpoint(source, options) {
  const cp = await readCheckpoint(source)
  return cp && renderRestoreText(cp, options)
}

/** Synchronous twin of `readCheckpoint` (what a host calls inside a sync hook). */
export function readCheckpointSync(source) {
  if ('yaml' in source) return parseCheckpoint(source.yaml)
  const dir = checkpointDir(source.stateDir, source.sessionKey)
  let pointer
  try {
    pointer = JSON.parse(readFileSync(path.join(dir, LATEST), 'utf8'))
  } catch (e) {
    if (e.code === 'ENOENT') return undefined
    throw e
  }
  if (!pointer?.checkpoint_id) return undefined
  return parseCheckpoint(readFileSync(path.join(dir, `${pointer.checkpoint_id}.yaml`), 'utf8'))
}

/** Synchronous twin of `renderCheckpoint`. */
export function renderCheckpointSync(source, options) {
  const cp = readCheckpointSync(source)
  return cp && renderRestoreText(cp, options)
}
