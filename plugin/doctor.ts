// What `openclaw-context doctor` (bin/lib/doctor.mjs) reads of the plugin: evidence of what worked, per session, in
// the session's record (state.ts `SessionRecord.evidence`), and the warnings the plugin logs when a capability turns
// itself off. Nothing degrades in silence:
//
//   warnDegraded    the first time in a process that a cause turns a capability off (its conversation hooks
//                   blocked, a run without scratchpad_read so nothing is parked, no window so no gauge, a compaction
//                   checkpoint with no messages), one warning through OpenClaw's plugin logger naming the cause and
//                   `openclaw-context doctor`; recorded in the session's evidence so the doctor shows it
//   noteEvidence    the last prompt build, the tools the last run was sent: written when what they say changes, or
//                   at most every 10 minutes per session and process (not a write per turn); the checkpoint, the
//                   compaction and the restore delivered are written with the record updates that happen anyway
//
// Every write here is off the turn's path and never throws into a hook: evidence is a help to the doctor, and a
// failure to write it only loses the hint.
import { obj, processState, updateRecord, type SessionRecord } from './state.ts'
import { noteActivity } from './retention.ts'

/** What the plugin saw working in one session (the record's `evidence`). Times are RFC 3339 UTC. */
export interface Evidence {
  /** The last prompt build: whether the scratchpad block was prepended, the gauge's state, the window it read. */
  promptBuild?: { at: string; block: boolean; gauge: 'line' | 'below' | 'no-window'; window?: number; runtime?: string }
  /** The tools the last run's model was sent (`llm_input`, after OpenClaw's tool policy). */
  run?: { at: string; read: boolean; scratchpad: boolean }
  /** The last checkpoint the plugin wrote: its trigger, what it read the messages from and how many. */
  checkpoint?: { at: string; trigger: string; source: string; messages: number }
  /** The last compaction (`n`: the record's `compactions`) and what became of its restore. */
  compaction?: { at: string; n: number; restore: 'pending' | 'replaced' | 'nothing-compacted' | 'no-checkpoint' | 'disabled' }
  /** The last restore a prompt build delivered, and the compaction it followed. */
  restoreDelivered?: { at: string; compaction: number }
  /** The warnings logged for this session, by cause (the latest of each). */
  warnings?: Record<string, { at: string; message: string }>
}

/** The causes that turn a capability off, each warned once per process. */
export type DegradedCause = 'hooks-blocked' | 'no-read-tool' | 'no-window' | 'no-messages'

/** A recorded evidence entry is refreshed at most this often when nothing in it changed. */
export const EVIDENCE_REFRESH_MS = 10 * 60_000

const now = () => new Date().toISOString()

/** Per process: what each session's evidence last said and when it was written (`${stateDir}\0${key}\0${kind}`). */
function written(): Map<string, { sig: string; at: number }> {
  const s = processState() as unknown as { evidenceWritten?: Map<string, { sig: string; at: number }> }
  return (s.evidenceWritten ??= new Map())
}
/** Warnings logged in this process and not yet recorded in a session (the hooks-blocked one is logged at load). */
function unrecorded(): Map<DegradedCause, string> {
  const s = processState() as unknown as { unrecordedWarnings?: Map<DegradedCause, string> }
  return (s.unrecordedWarnings ??= new Map())
}

/** Applies `change` to the session's evidence in its record, off the turn's path; never throws. */
export function updateEvidence(stateDir: string, sessionKey: string, change: (e: Evidence) => void): Promise<void> {
  return updateRecord(stateDir, sessionKey, (r) => {
    const e = (r.evidence ??= {})
    change(e)
  }).then(
    () => undefined,
    () => undefined,
  )
}

/**
 * Records the last prompt build or run of a session when what it says (`value` but its time) differs from what this
 * process last wrote, or from what the session's record holds (`recorded`, when the caller has read it), or every
 * `EVIDENCE_REFRESH_MS`. Returns whether it wrote.
 */
export function noteEvidence<K extends 'promptBuild' | 'run'>(
  stateDir: string,
  sessionKey: string,
  kind: K,
  value: Omit<NonNullable<Evidence[K]>, 'at'>,
  recorded?: Evidence,
): boolean {
  const key = `${stateDir}\0${sessionKey}\0${kind}`
  const sig = JSON.stringify(value)
  const map = written()
  const t = Date.now()
  let last = map.get(key)
  const held = recorded?.[kind]
  if (!last && held) {
    const { at, ...rest } = held as { at: string }
    last = { sig: JSON.stringify(rest), at: Date.parse(at) || 0 }
  }
  if (last && last.sig === sig && t - last.at < EVIDENCE_REFRESH_MS) return false
  map.delete(key)
  map.set(key, { sig, at: t })
  if (map.size > 1024) map.delete(map.keys().next().value as string)
  void updateEvidence(stateDir, sessionKey, (e) => void ((e as Record<string, unknown>)[kind] = { ...value, at: now() }))
  return true
}

/**
 * The first time in this process that `cause` turns a capability off: one warning through OpenClaw's plugin logger
 * naming the cause and the doctor, and the warning recorded in the session's evidence (with a session key; without
 * one, in the first session `recordWarnings` is given). Later calls for the cause do nothing. Returns whether it
 * logged.
 */
export function warnDegraded(
  logger: { warn: (m: string) => void },
  cause: DegradedCause,
  what: string,
  where?: { stateDir: string; sessionKey?: string },
): boolean {
  const { warned } = processState()
  const key = `degraded:${cause}`
  if (warned.has(key)) return false
  warned.add(key)
  const message = `context-native: ${what}; \`openclaw-context doctor\` shows what works and the fix`
  try {
    logger.warn(message)
  } catch {
    // a logger that throws must not break the hook
  }
  if (where?.sessionKey) recordWarning(where.stateDir, where.sessionKey, cause, message)
  else unrecorded().set(cause, message)
  return true
}

function recordWarning(stateDir: string, sessionKey: string, cause: DegradedCause, message: string): void {
  // The session is then listed by the doctor even if no prompt build ever noted it (hooks blocked).
  noteActivity(stateDir, sessionKey)
  void updateEvidence(stateDir, sessionKey, (e) => void ((e.warnings ??= {})[cause] = { at: now(), message }))
}

/** Records the warnings this process logged without a session (at load) in `sessionKey`'s evidence, once. */
export function recordWarnings(stateDir: string, sessionKey: string): void {
  const pending = unrecorded()
  if (pending.size === 0) return
  for (const [cause, message] of pending) recordWarning(stateDir, sessionKey, cause, message)
  pending.clear()
}

/**
 * Why OpenClaw blocks the plugin's prompt-build hook, from the config it runs with (its rule for a non-bundled
 * plugin, 2026.9.6 `resolveConversationAccessAllowed`: `hooks.allowConversationAccess` must be true;
 * `hooks.allowPromptInjection: false` blocks before_prompt_build), else undefined.
 */
export function blockedHooks(config: unknown, pluginId: string): string | undefined {
  const hooks = obj(obj(obj(obj(obj(config).plugins).entries)[pluginId]).hooks)
  if (hooks.allowConversationAccess !== true) {
    return `OpenClaw blocks its conversation hooks (plugins.entries.${pluginId}.hooks.allowConversationAccess is not true): no scratchpad block, gauge, 80 % checkpoint, restore after a compaction or parked result; \`npx openclaw-context setup\` allows them`
  }
  if (hooks.allowPromptInjection === false) {
    return `OpenClaw blocks its before_prompt_build (plugins.entries.${pluginId}.hooks.allowPromptInjection is false): no scratchpad block, gauge or restore after a compaction`
  }
  return undefined
}

/**
 * At the plugin's load: when OpenClaw blocks its prompt-build hook (`blockedHooks`), one warning for the process.
 * Only the runtime registration (`full`) says it, not the discovery ones of the same process.
 */
export function warnIfHooksBlocked(api: { registrationMode?: string; config?: unknown; logger: { warn: (m: string) => void } }, pluginId: string): boolean {
  if (api.registrationMode !== 'full') return false
  const blocked = blockedHooks(api.config, pluginId)
  return blocked ? warnDegraded(api.logger, 'hooks-blocked', blocked) : false
}

/**
 * `llm_input` of a session's run: the tools its model is sent (after OpenClaw's tool policy) recorded, and when
 * scratchpad_read is not among them (so nothing of the run is parked), one warning for the process. A request with
 * no tools at all says nothing of the policy and is skipped.
 */
export function noteRunEvidence(logger: { warn: (m: string) => void }, stateDir: string, sessionKey: string, sent: ReadonlySet<string> | undefined): void {
  if (!sent || sent.size === 0) return
  const read = sent.has('scratchpad_read')
  noteEvidence(stateDir, sessionKey, 'run', { read, scratchpad: sent.has('session_scratchpad') })
  if (read) return
  warnDegraded(
    logger,
    'no-read-tool',
    `a run of ${sessionKey} is not sent scratchpad_read (a tool profile such as "minimal", tools.deny or an allowlist leaves it out): its large tool results are not parked`,
    { stateDir, sessionKey },
  )
}

/** The evidence the session's record holds (`{}` when none). */
export const evidenceOf = (record: SessionRecord): Evidence => (record.evidence ?? {}) as Evidence
