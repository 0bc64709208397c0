// The turn's captures for the incremental state (seed 001, section 7: the tools used, the files read and written,
// the failures), kept in memory while the turn runs and written once per turn (`recordToolResults`: one locked
// read-modify-write per state file for the whole turn) instead of one durable write per tool result.
//
//   bufferToolResult   the tool-result middleware: the result's capture joins its session's buffer (no I/O)
//   flushCaptures      agent_end (the run is over: off the turn's path, the write runs on the libuv pool),
//                      before a checkpoint reads the state (80 % and compaction: awaited there), and the next
//                      prompt build of the session when no agent_end came (an aborted run)
//   exit handler       a process that ends with captures still buffered (`--local` is one process per turn, and
//                      OpenClaw does not await agent_end) writes them synchronously before it goes
//   dropCaptures       a reset or a new conversation on the key: its old captures are not written
//
// A crash of the process mid-turn loses at most that turn's captures (best effort, as the state files are:
// seed 001, 7.3); a checkpoint never misses one, since every checkpoint flushes first.
import { recordToolResults, recordToolResultsSync, type ToolResultsInput } from '@openclaw/context-native'

type Result = ToolResultsInput['results'][number]

interface Buffer {
  stateDir: string
  sessionKey: string
  /** Captures not yet handed to a write. */
  pending: Result[]
  /** Captures handed to the write in flight (written again by the exit handler if it does not finish). */
  writing: Result[]
  /** The write in flight. */
  flight?: Promise<void>
}

interface CaptureState {
  buffers: Map<string, Buffer>
  exitHook: boolean
}

const KEY = Symbol.for('@openclaw/context-native/captures')

/** Process-wide (every registration of the plugin in the process shares it). */
function captureState(): CaptureState {
  const g = globalThis as unknown as Record<symbol, CaptureState | undefined>
  let s = g[KEY]
  if (!s) {
    s = { buffers: new Map(), exitHook: false }
    g[KEY] = s
  }
  return s
}

const keyOf = (stateDir: string, sessionKey: string) => `${stateDir}\0${sessionKey}`

/** Writes every capture still buffered, synchronously (the process is exiting: nothing async runs any more). */
export function flushAllCapturesSync(): void {
  for (const b of captureState().buffers.values()) {
    const results = [...b.writing, ...b.pending]
    if (results.length === 0) continue
    try {
      recordToolResultsSync({ stateDir: b.stateDir, sessionKey: b.sessionKey, results })
    } catch {
      // Best effort at exit: the state files are a help to the checkpoint, not a record of truth.
    }
    b.pending = []
    b.writing = []
  }
}

/** Captures a session buffers before they are written without waiting for agent_end. */
const MAX_PENDING = 64
/** Characters a string argument keeps in a capture (paths and commands are shorter; a write's content is not read). */
const MAX_ARG_CHARS = 1024

/**
 * What the state reads of a result's `details` to tell a failure (OpenClaw's rule: crates/state `details_failed`):
 * their top-level flags, numbers and short strings (`status`, `ok`, `error`, `exitCode`, …), not the payload
 * beside them (`exec`'s `aggregated` output, a fetch's text), which need not be held or converted.
 */
export function statusFields(details: unknown): Record<string, unknown> | undefined {
  if (!details || typeof details !== 'object' || Array.isArray(details)) return undefined
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(details)) {
    if (typeof v === 'boolean' || typeof v === 'number' || (typeof v === 'string' && v.length <= 4 * MAX_ARG_CHARS)) out[k] = v
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * The arguments as the capture needs them: the state files keep paths and a command's first words, so a long
 * string (a written file's content, an edit's text) is cut to its first 1,024 characters. The buffer then holds
 * little, and the write converts little.
 */
export function captureParams(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > MAX_ARG_CHARS ? v.slice(0, MAX_ARG_CHARS) : v
  if (!v || typeof v !== 'object' || depth > 8) return v
  if (Array.isArray(v)) return v.map((x) => captureParams(x, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[k] = captureParams(x, depth + 1)
  return out
}

/** Adds a tool result's capture to its session's buffer; nothing is written yet. */
export function bufferToolResult(stateDir: string, sessionKey: string, result: Result): void {
  const state = captureState()
  if (!state.exitHook) {
    state.exitHook = true
    process.once('exit', flushAllCapturesSync)
  }
  const key = keyOf(stateDir, sessionKey)
  let b = state.buffers.get(key)
  if (!b) {
    b = { stateDir, sessionKey, pending: [], writing: [] }
    state.buffers.set(key, b)
  }
  // A failure is kept by its first and last lines: a long error text keeps its head and its tail.
  const error = result.error !== undefined && result.error.length > 4 * MAX_ARG_CHARS ? `${result.error.slice(0, 2 * MAX_ARG_CHARS)}\n${result.error.slice(-2 * MAX_ARG_CHARS)}` : result.error
  const details = statusFields(result.details)
  b.pending.push({ ...result, params: captureParams(result.params), ...(error !== undefined ? { error } : {}), ...(details ? { details } : {}) })
  // A run whose agent_end never comes (OpenClaw blocks it without hooks.allowConversationAccess) still has its
  // captures written, a batch at a time, instead of piling up.
  if (b.pending.length >= MAX_PENDING && !b.flight) flushCaptures(stateDir, sessionKey).catch(() => undefined)
}

/** Captures buffered for the session and not yet written (for tests and the bench). */
export function bufferedCaptures(stateDir: string, sessionKey: string): number {
  const b = captureState().buffers.get(keyOf(stateDir, sessionKey))
  return b ? b.pending.length + b.writing.length : 0
}

/**
 * Writes the session's buffered captures in one batch (and waits for a write already in flight). Resolves when
 * everything buffered before the call is on disk; rejects with the binding's error (the captures are then
 * dropped: a bad capture must not block the next ones forever).
 */
export async function flushCaptures(stateDir: string, sessionKey: string): Promise<void> {
  const state = captureState()
  const key = keyOf(stateDir, sessionKey)
  const b = state.buffers.get(key)
  if (!b) return
  while (b.flight) await b.flight.catch(() => undefined)
  if (b.pending.length === 0) {
    if (state.buffers.get(key) === b && b.writing.length === 0) state.buffers.delete(key)
    return
  }
  b.writing = b.pending
  b.pending = []
  const flight = recordToolResults({ stateDir, sessionKey, results: b.writing }).then(() => undefined)
  b.flight = flight
  try {
    await flight
  } finally {
    b.writing = []
    b.flight = undefined
    if (b.pending.length === 0 && state.buffers.get(key) === b) state.buffers.delete(key)
  }
}

/** Forgets the session's buffered captures (a reset, a new conversation on the key), once a write in flight is done. */
export async function dropCaptures(stateDir: string, sessionKey: string): Promise<void> {
  const b = captureState().buffers.get(keyOf(stateDir, sessionKey))
  if (!b) return
  b.pending = []
  while (b.flight) await b.flight.catch(() => undefined)
  b.pending = []
}
