// Retention and scratchpad persistence for the OpenClaw plugin (issue 23): a gateway that runs for weeks.
//
//   scheduleRetention     gcStateDir off the turn's path: the first run a minute after start, then at most once per
//                         `retention.intervalMinutes` per process and state dir, each visiting at most
//                         `retention.maxDirsPerRun` session directories (unref'd timers: never keeps a process alive)
//   noteActivity          a turn of a session: retention must not count it idle (fire and forget, never throws)
//   persistEntries        the scratchpad's persist entries, merged under the session lock (persistScratchpad)
//   readPersisted         the persisted spaces, read with the cap every write respects (readPersistedScratchpad)
//
// Settings: `retention.*` in plugin/settings.ts (the manifest's configSchema and docs/configuration.md follow it).
import type { OpenClawPluginApi } from 'openclaw/plugin-sdk/plugin-entry'
import { resolveSettings, type ContextNativeSettings } from './settings.ts'
import { gcStateDir, persistScratchpad, readPersistedScratchpad, touchSession, type GcStateDirResult } from '@openclaw/context-native'

/** The `retention` settings (plugin/settings.ts defines them with the others: ranges, defaults, docs). */
export type RetentionSettings = ContextNativeSettings['retention']

/** The `retention` settings of the plugin config, defaults filled in and checked (InvalidSettingsError). */
export function resolveRetentionSettings(pluginConfig: unknown): RetentionSettings {
  return resolveSettings(pluginConfig).retention
}

type Logger = Pick<OpenClawPluginApi['logger'], 'info' | 'warn'>

/** Per process and state dir: when the last run started, and the pending timer (one schedule per state dir). */
interface Schedule {
  lastRunAt: number
  timer?: ReturnType<typeof setTimeout>
  running?: Promise<GcStateDirResult | undefined>
}
// Shared by every copy of this module in the process (a plugin registered twice, a reload): keyed on globalThis.
const SCHEDULES: Map<string, Schedule> = ((globalThis as Record<symbol, unknown>)[Symbol.for('openclaw.context-native.retention')] ??= new Map()) as Map<
  string,
  Schedule
>

/** One run of the policy, logged once: what it reclaimed, or the error code (never thrown). */
export async function runRetention(
  stateDir: string,
  settings: RetentionSettings,
  logger: Logger,
  quotaBytes?: number,
): Promise<GcStateDirResult | undefined> {
  const schedule = SCHEDULES.get(stateDir) ?? { lastRunAt: 0 }
  SCHEDULES.set(stateDir, schedule)
  if (schedule.running) return schedule.running
  schedule.lastRunAt = Date.now()
  schedule.running = (async () => {
    try {
      // The parked results' quota (offload.quotaBytes): the run never evicts what the parking itself kept.
      const r = await gcStateDir({ stateDir, idleDays: settings.idleDays, maxDirs: settings.maxDirsPerRun, ...(quotaBytes ? { quotaBytes } : {}) })
      if (r.removedSessions.length || r.removedEntries || r.errors.length) {
        logger.info(
          `context-native: retention removed ${r.removedSessions.length} idle session(s) (${r.removedBytes} bytes) and ` +
            `${r.removedEntries} expired observation(s) (${r.removedEntryBytes} bytes); kept ${r.keptSessions}` +
            (r.errors.length ? `; ${r.errors.length} error(s), first: ${r.errors[0]}` : ''),
        )
      }
      return r
    } catch (e) {
      logger.warn(`context-native: retention failed (${(e as { code?: string }).code ?? 'Error'}): ${(e as Error).message}`)
      return undefined
    } finally {
      schedule.running = undefined
    }
  })()
  return schedule.running
}

/**
 * Schedules the retention policy off the turn's path: a first run `firstRunDelaySeconds` after registration, then
 * one every `intervalMinutes`, at most once per interval per process and state dir however often the plugin is
 * registered. Timers are unref'd. Returns a function that cancels this schedule.
 */
export function scheduleRetention(api: Pick<OpenClawPluginApi, 'logger' | 'pluginConfig'>, stateDir: string): () => void {
  const settings = resolveRetentionSettings(api.pluginConfig)
  const quotaBytes = resolveSettings(api.pluginConfig).offload.quotaBytes
  if (!settings.enabled) return () => undefined
  const schedule = SCHEDULES.get(stateDir) ?? { lastRunAt: 0 }
  SCHEDULES.set(stateDir, schedule)
  if (schedule.timer) return () => undefined // another registration in this process already schedules it
  const interval = Math.max(1, settings.intervalMinutes) * 60_000
  const arm = (delay: number) => {
    schedule.timer = setTimeout(() => {
      const due = Date.now() - schedule.lastRunAt >= interval
      void (due ? runRetention(stateDir, settings, api.logger, quotaBytes) : Promise.resolve()).finally(() => arm(interval))
    }, delay)
    schedule.timer.unref?.()
  }
  arm(Math.max(0, settings.firstRunDelaySeconds) * 1000)
  return () => {
    if (schedule.timer) clearTimeout(schedule.timer)
    schedule.timer = undefined
  }
}

/**
 * Records that a session had a turn, off the turn's path: a chat that calls no tool writes nothing between
 * checkpoints, and must not look idle to retention while it is used. Never throws (a failure only loses the hint).
 */
export function noteActivity(stateDir: string, sessionKey: string): void {
  touchSession({ stateDir, sessionKey }).catch(() => undefined)
}

/** The scratchpad's persist entries merged into the session's persisted spaces under its lock (no lost update). */
export async function persistEntries(
  stateDir: string,
  sessionKey: string,
  entries: ReadonlyArray<{ customType: string; data: string | string[] }>,
): Promise<void> {
  await persistScratchpad({ stateDir, sessionKey, entries: [...entries] })
}

/** The session's persisted scratchpad spaces (`{}` when none). */
export async function readPersisted(stateDir: string, sessionKey: string): Promise<Record<string, string | string[]>> {
  return (await readPersistedScratchpad({ stateDir, sessionKey })) ?? {}
}
