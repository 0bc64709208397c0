// The legacy (pre-SQLite) OpenClaw sessions the store fixture is made from
// (__test__/fixtures/openclaw-store/, by scripts/make-openclaw-store-fixture.mjs): bundled pi transcripts
// written as an older OpenClaw kept them, `agents/<agentId>/sessions/sessions.json` + `<sessionId>.jsonl`,
// for the pinned OpenClaw's own `openclaw doctor --fix` to import.
//
// Lines that do not parse are left out. pi skips such a line and reads on; OpenClaw's doctor import stops at
// the first one and imports only the readable prefix (measured with 2026.9.6 on session-2025-12-17.jsonl,
// line 440: issue `transcript_malformed`). Leaving them out gives both readers the same entries, so the
// replay of the store can be compared with the replay of the file.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const transcripts = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '__test__', 'fixtures', 'transcripts')

/**
 * The sessions: `{ agentId, sessionKey, source, firstLines, updatedAt }`; `firstLines` cuts a transcript to
 * its first lines (a small second session), `updatedAt` orders them (newest first: main, telegram, ops).
 */
export const LEGACY_SESSIONS = Object.freeze([
  { agentId: 'main', sessionKey: 'agent:main:main', source: 'pi-mono-history/session-2025-12-17.jsonl', firstLines: null, updatedAt: 1766004747057 },
  { agentId: 'main', sessionKey: 'agent:main:telegram:direct:42', source: 'large-session.jsonl', firstLines: 40, updatedAt: 1766000000000 },
  { agentId: 'ops', sessionKey: 'agent:ops:main', source: 'before-compaction.jsonl', firstLines: 16, updatedAt: 1765000000000 },
])

/** The JSONL text of a legacy session: the bundled transcript's parseable lines (its first `firstLines`). */
export function legacySessionText(session) {
  const lines = readFileSync(join(transcripts, session.source), 'utf8').split('\n')
  const kept = []
  for (const line of lines) {
    if (line.trim() === '') continue
    try {
      JSON.parse(line)
    } catch {
      continue
    }
    kept.push(line)
    if (session.firstLines && kept.length >= session.firstLines) break
  }
  return `${kept.join('\n')}\n`
}

/** The session id of a legacy session: its header's id. */
export function legacySessionId(text) {
  return JSON.parse(text.slice(0, text.indexOf('\n'))).id
}
