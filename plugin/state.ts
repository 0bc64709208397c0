// Where the plugin keeps what it knows of a session, given how OpenClaw runs it:
//
//   - OpenClaw registers a plugin several times per process (one `full` and several `discovery` registrations,
//     each from its own staged copy of the plugin folder), and the hooks, tools, middleware and compaction
//     provider run in different ones. So nothing a hook reads later lives in a `register()` closure or in a
//     module variable: memory-only state hangs off `globalThis` under one symbol, shared by every copy.
//   - `openclaw agent --local` is one process per turn. What must outlive the turn (the compaction count,
//     whether this 80 % crossing has its checkpoint, the context window, the restore waiting for the next
//     model request) is a per-session record on disk, in this package's store under the state dir, written
//     atomically by the native binding (`writeObservation`: temp file, fsync, rename).
import { readObservation, writeObservation } from '@openclaw/context-native'
import type { Evidence } from './doctor.ts'

/** The observation-store entry (one per session) that holds the scratchpad's persisted spaces. */
export const SCRATCHPAD_ENTRY = 'context-native-scratchpad'
/** The observation-store entry (one per session) that holds the plugin's durable session record. */
export const SESSION_ENTRY = 'context-native-session'
/** Entries the store must never evict for its quota. */
export const PROTECTED_ENTRIES = [SCRATCHPAD_ENTRY, SESSION_ENTRY]
/** Sessions whose memory-only state a process keeps (least recently used out first). */
const MAX_SESSIONS = 256

/** What must survive the process, per session key. */
export interface SessionRecord {
  /** The conversation (OpenClaw session id) this record belongs to; another id on the key = a new conversation. */
  sessionId?: string
  /** Compactions in this conversation. */
  compactions: number
  /** Compactions ever seen on this key (never goes back: a checkpoint's count after a reset or restart). */
  compactionSerial: number
  /** The compaction epoch (`compactions`) whose 80 % crossing already has its checkpoint. */
  checkpointedEpoch?: number
  /** The context window of the session's model as OpenClaw last reported it. */
  contextWindow?: number
  /**
   * The restore text written at the last compaction, waiting for the next prompt build; consumed once. `checkpointId`:
   * the checkpoint it renders, rendered again there without the names OpenClaw's summary states (compaction.ts).
   */
  restorePending?: { text: string; compaction: number; at: string; checkpointId?: string; historyLine?: string }
  /** The scratchpad's post-compaction nudge, waiting like the restore. */
  nudgePending?: string
  /** Claude Code runtime: the time of the reported usage whose native compaction was already handled (runtime.ts). */
  nativeCompactionStamp?: number
  /** What worked in this session and the warnings logged for it, for `openclaw-context doctor` (doctor.ts). */
  evidence?: Evidence
}

export const emptyRecord = (sessionId?: string, serial = 0): SessionRecord => ({
  ...(sessionId ? { sessionId } : {}),
  compactions: 0,
  compactionSerial: serial,
})

/** Memory-only state of one session in this process, shared by every registration of the plugin. */
export interface SessionMemory {
  /** The messages of the last prompt build (the fallback view of the context for a compaction). */
  messages: unknown[]
  /** The gauge's incremental estimator state (see gauge.ts). */
  gauge?: unknown
  /** Hints (nudges) for the next prompt build of this process. */
  hints: string[]
  /** The turn being run: user messages in the conversation at the last prompt build (tags offloaded results). */
  turn: number
  /**
   * What the prompt builds of one run consumed (the restore, the nudge, the hints): OpenClaw may build a run's
   * prompt more than once and send only the last (the Codex harness, for a turn it moves to a fresh native thread:
   * three builds, measured), so a later build of the same run carries them again.
   */
  consumed?: { runId: string; restore?: string; nudge?: string; hints: string[] }
}

interface ProcessState {
  sessions: Map<string, SessionMemory>
  /** One read-modify-write at a time per entry and session (`${sessionKey}\0${entry}`). */
  writes: Map<string, Promise<unknown>>
  /** Per session key: the scratchpad version this process last wrote or loaded (see tools.ts). */
  scratchpadVersion: Map<string, number>
  /** Compactions announced by `before_compaction` and not yet claimed by the compaction provider. */
  pendingCompactions: PendingCompaction[]
  /** Compactions the provider claimed, waiting for their `after_compaction`. */
  claimed: PendingCompaction[]
  /** Warnings already logged (a failing hook logs once per code). */
  warned: Set<string>
  /** Run ids and session keys of OpenClaw's housekeeping runs seen in this process (see `isHousekeeping`). */
  housekeeping: Set<string>
  /** Per run id: the tools OpenClaw sends the model in that run, after its tool policy (see `noteRunTools`). */
  runTools: Map<string, ReadonlySet<string>>
}

/** A compaction between `before_compaction` and the provider's `summarize` (which has no session key). */
export interface PendingCompaction {
  sessionKey: string
  sessionId?: string
  agentId?: string
  stateDir: string
  at: number
  /** Timestamps of the session's messages at `before_compaction`, to match the provider's messages. */
  stamps: Set<number>
  /** The messages it will checkpoint when no compaction provider hands over the exact ones. */
  messages?: unknown[]
  /** Where those messages came from (the doctor's evidence: the hook's, OpenClaw's transcript, the last prompt build's). */
  source?: string
  tokenCount?: number
  contextWindow?: number
  /** Set when the compaction provider claimed it. */
  claimedBy?: 'provider'
  /** Its checkpoint is written. */
  checkpointed?: boolean
  /** The provider returned the restore as the summary ('replace' mode): nothing to inject after. */
  replaced?: boolean
  /** The restore's last line for the history entry its messages were kept in (history.ts). */
  historyLine?: string
}

const KEY = Symbol.for('@openclaw/context-native/plugin-state')

/** The process-wide state (one per process, whatever registration or staged copy asks). */
export function processState(): ProcessState {
  const g = globalThis as unknown as Record<symbol, ProcessState | undefined>
  let s = g[KEY]
  if (!s) {
    s = {
      sessions: new Map(),
      writes: new Map(),
      scratchpadVersion: new Map(),
      pendingCompactions: [],
      claimed: [],
      warned: new Set(),
      housekeeping: new Set(),
      runTools: new Map(),
    }
    g[KEY] = s
  }
  return s
}

/**
 * The run triggers that are OpenClaw's own housekeeping, not a conversation: `memory` is the memory plugin's
 * pre-compaction memory flush (`EmbeddedRunTrigger`: "what initiated this agent run"), an agent run of its own
 * in an internal session (`agent:<id>:internal-session-effects:<run>`) over a private copy of the conversation.
 */
export const HOUSEKEEPING_TRIGGERS: ReadonlySet<string> = new Set(['memory'])
/** Housekeeping run ids and session keys a process remembers (oldest out first). */
const MAX_HOUSEKEEPING = 512

/** The hook context fields that tell a run (each hook passes some of them). */
export interface RunContext {
  trigger?: string
  runId?: string
  sessionKey?: string
}

/**
 * Whether the hook's run is OpenClaw's housekeeping, which the plugin leaves alone (no prepend, no checkpoint,
 * no record, no capture). The agent hooks (`before_prompt_build`, `llm_output`) carry the run's `trigger`; there
 * the run id and session key are remembered, so the hooks of the same run that carry no trigger (the tool-result
 * middleware: run id and key; the compaction hooks and session cleanup: the key only) are told too.
 */
export function isHousekeeping(ctx: RunContext): boolean {
  const state = processState()
  const seen = (state.housekeeping ??= new Set()) // a state made before this field existed
  if (ctx.trigger !== undefined && HOUSEKEEPING_TRIGGERS.has(ctx.trigger)) {
    for (const id of [ctx.runId, ctx.sessionKey]) {
      if (!id) continue
      seen.delete(id)
      seen.add(id)
      if (seen.size > MAX_HOUSEKEEPING) seen.delete(seen.values().next().value as string)
    }
    return true
  }
  return (ctx.runId !== undefined && seen.has(ctx.runId)) || (ctx.sessionKey !== undefined && seen.has(ctx.sessionKey))
}

/** Runs whose tool list a process remembers (oldest out first). */
const MAX_RUNS = 512

/**
 * Records the tools OpenClaw sends the model in a run (`llm_input`'s `tools`: what is left after the tool profile,
 * `tools.allow` / `tools.deny`, a sub-agent's or a channel's policy). The tool-result middleware of the same run
 * reads it (`runTools`): a result is parked only when the model can call `scratchpad_read` to get it back.
 */
export function noteRunTools(runId: string, tools: unknown): void {
  const names = new Set<string>()
  if (Array.isArray(tools)) {
    for (const t of tools) {
      const o = obj(t)
      const name = typeof o.name === 'string' ? o.name : obj(o.function).name
      if (typeof name === 'string' && name) names.add(name)
    }
  }
  const runs = (processState().runTools ??= new Map()) // a state made before this field existed
  runs.delete(runId)
  runs.set(runId, names)
  if (runs.size > MAX_RUNS) runs.delete(runs.keys().next().value as string)
}

/** The tools the run's model is sent (`noteRunTools`), or `undefined` when the run's `llm_input` was not seen. */
export function runTools(runId: string | undefined): ReadonlySet<string> | undefined {
  return runId === undefined ? undefined : processState().runTools?.get(runId)
}

/** The memory-only state of a session (created on first use, least recently used evicted past 256). */
export function memoryOf(sessionKey: string): SessionMemory {
  const { sessions } = processState()
  let s = sessions.get(sessionKey)
  if (s) sessions.delete(sessionKey)
  else s = { messages: [], hints: [], turn: 0 }
  sessions.set(sessionKey, s)
  if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string)
  return s
}

/** Forgets the session's memory-only state (its scratchpad version keeps counting: see tools.ts). */
export function forgetMemory(sessionKey: string): void {
  processState().sessions.delete(sessionKey)
}

/** `v` when it is a plain object, else `{}` (settings, event fields and arguments as they come). */
export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})

const isNotFound = (e: unknown) => (e as { code?: string })?.code === 'NotFound'

/** A named JSON entry of the session's store, or `undefined` when absent. */
export async function readEntry<T>(stateDir: string, sessionKey: string, name: string): Promise<T | undefined> {
  try {
    const r = await readObservation({ stateDir, sessionKey, name, mode: 'full' })
    return JSON.parse(r.content) as T
  } catch (e) {
    if (isNotFound(e)) return undefined
    throw e
  }
}

/**
 * Read-modify-write of a named JSON entry, one at a time per session and entry in this process, written
 * atomically. `update` gets the current value (or `undefined`) and returns the next one.
 */
export function updateEntry<T>(stateDir: string, sessionKey: string, name: string, update: (current: T | undefined) => T): Promise<T> {
  const { writes } = processState()
  const key = `${stateDir}\0${sessionKey}\0${name}`
  const next = (writes.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const value = update(await readEntry<T>(stateDir, sessionKey, name))
      await writeObservation({ stateDir, sessionKey, name, content: JSON.stringify(value), protect: PROTECTED_ENTRIES })
      return value
    })
  writes.set(key, next)
  void next.finally(() => writes.get(key) === next && writes.delete(key)).catch(() => undefined)
  return next
}

/** The session's durable record, empty when none was written. */
export async function readRecord(stateDir: string, sessionKey: string): Promise<SessionRecord> {
  return { ...emptyRecord(), ...((await readEntry<SessionRecord>(stateDir, sessionKey, SESSION_ENTRY)) ?? {}) }
}

/** Updates the session's durable record atomically. */
export function updateRecord(stateDir: string, sessionKey: string, update: (r: SessionRecord) => SessionRecord | void): Promise<SessionRecord> {
  return updateEntry<SessionRecord>(stateDir, sessionKey, SESSION_ENTRY, (current) => {
    const r = { ...emptyRecord(), ...(current ?? {}) }
    return update(r) ?? r
  })
}

/** Logs a hook failure once per code and process; the turn goes on. */
export function warnOnce(logger: { warn: (m: string) => void }, where: string, e: unknown): void {
  const code = (e as { code?: string })?.code ?? 'Error'
  const key = `${where}:${code}`
  const { warned } = processState()
  if (warned.has(key)) return
  warned.add(key)
  logger.warn(`context-native: ${where} failed (${code}): ${(e as Error)?.message ?? String(e)}; the turn goes on`)
}
