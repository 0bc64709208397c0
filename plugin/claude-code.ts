// Claude Code's own transcript of a session OpenClaw runs on the claude-cli runtime (runtime.ts).
//
// OpenClaw's mirror of such a session keeps the turns' text only: no tool call, no tool result. Claude Code writes
// the whole conversation to `<home>/.claude/projects/<workspace, sanitized>/<cli session id>.jsonl` (OpenClaw
// 2026.9.6's `claudeCliSessionTranscriptPath`; the id is the session entry's `cliSessionBindings["claude-cli"]`),
// and marks each of its compactions there with a `compact_boundary` line followed by its summary. The checkpoints
// of that runtime read the span a compaction removes from that file, as pi messages, so that they hold what the
// other runtimes' do: the plan and the task list the agent set with its tools, the files it read and changed, the
// commands it ran, what failed. Any doubt (no binding, no file, nothing in the span) falls back to the mirror.
import { lstat, open, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { CLAUDE_CLI_RUNTIME, ownToolName } from './runtime.ts'
import { obj } from './state.ts'
import { parseTranscript } from '@openclaw/context-native/bin/lib/transcript.mjs'

/** The most of a transcript read (its end): a compacted span is far smaller than Claude Code's window. */
const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024
/** Longest project directory name Claude Code writes before it shortens the name with a hash. */
const MAX_PROJECT_KEY = 200

/** The Claude Code session id OpenClaw bound to a session entry (`getSessionEntry`), else `undefined`. */
export function claudeCliSessionId(entry: unknown): string | undefined {
  const e = obj(entry)
  const id = obj(obj(e.cliSessionBindings)[CLAUDE_CLI_RUNTIME]).sessionId ?? obj(e.cliSessionIds)[CLAUDE_CLI_RUNTIME] ?? e.claudeCliSessionId
  return typeof id === 'string' && /^[\w-]+$/.test(id.trim()) ? id.trim() : undefined
}

/** Claude Code's project directory name for a workspace (as Claude Code and OpenClaw write it). */
export function projectKey(workspaceDir: string): string {
  const key = workspaceDir.replace(/[^a-zA-Z0-9]/g, '-')
  if (key.length <= MAX_PROJECT_KEY) return key
  let hash = 0
  for (let i = 0; i < workspaceDir.length; i++) hash = (hash * 31 + workspaceDir.charCodeAt(i)) >>> 0
  return `${key.slice(0, MAX_PROJECT_KEY)}-${hash.toString(36)}`
}

/** The transcript's path for a Claude Code session id and an OpenClaw workspace. */
export async function transcriptPath(sessionId: string, workspaceDir: string, home = process.env.HOME || homedir()): Promise<string> {
  const dir = resolve(workspaceDir).normalize('NFC')
  const canonical = await realpath(dir).then((p) => p.normalize('NFC'), () => dir)
  return join(home, '.claude', 'projects', projectKey(canonical), `${sessionId}.jsonl`)
}

/**
 * Which compaction's span: `open`, the messages since Claude Code's last compaction (the one about to come);
 * `last`, those its last compaction removed (between the two last boundaries).
 */
export type Span = 'open' | 'last'

/**
 * The messages of one span of a Claude Code transcript, as pi messages, read by the package's transcript parser
 * (`bin/lib/transcript.mjs`, the one `replay` and `eval:restore` read Claude Code sessions with: the conversation
 * Claude Code resumes, a response written in several lines one message, the prompts it folded into a turn), with
 * OpenClaw's tools without their MCP prefix; `undefined` when the text is no transcript or the span holds no
 * conversation.
 */
export function spanMessages(text: string, span: Span): unknown[] | undefined {
  let entries: Record<string, unknown>[]
  try {
    entries = parseTranscript(text).entries.map((e) => e.entry)
  } catch {
    return undefined
  }
  const bounds = entries.flatMap((e, i) => (e.type === 'compaction' ? [i] : []))
  if (span === 'last' && bounds.length === 0) return undefined
  const [from, to] = span === 'open' ? [bounds.at(-1) ?? -1, entries.length] : [bounds.at(-2) ?? -1, bounds.at(-1)!]
  const out = entries
    .slice(from + 1, to)
    .filter((e) => e.type === 'message')
    .map((e) => {
      const m = obj(e.message)
      if (m.role === 'toolResult') return { ...m, toolName: ownToolName(m.toolName) }
      if (m.role !== 'assistant' || !Array.isArray(m.content)) return m
      return { ...m, content: m.content.map((b) => (obj(b).type === 'toolCall' ? { ...obj(b), name: ownToolName(obj(b).name) } : b)) }
    })
  return out.some((m) => m.role === 'user' || m.role === 'assistant') ? out : undefined
}

/**
 * The end of a file, at most `max` bytes, from its first whole line; `undefined` when it cannot be read or is not a
 * plain file (a symbolic link is not followed, as OpenClaw does not follow one there).
 */
async function readTail(path: string, max = MAX_TRANSCRIPT_BYTES): Promise<string | undefined> {
  try {
    const st = await lstat(path)
    if (!st.isFile()) return undefined
    const f = await open(path, 'r')
    try {
      const { size } = await f.stat()
      const start = Math.max(0, size - max)
      const buf = Buffer.alloc(size - start)
      await f.read(buf, 0, buf.length, start)
      const text = buf.toString('utf8')
      return start === 0 ? text : text.slice(text.indexOf('\n') + 1)
    } finally {
      await f.close()
    }
  } catch {
    return undefined
  }
}

/**
 * The session's Claude Code transcript reader for a run's hooks: a span's messages (see [`spanMessages`]), or
 * `undefined` when there is none to read (no `api.runtime.agent.session.getSessionEntry`, no workspace, no Claude
 * Code session bound to the entry, no file). The session entry names the Claude Code session, the run's workspace
 * its project directory; both are read when a span is asked for, at a checkpoint, not when the reader is made.
 */
export function claudeCodeTranscript(
  api: { runtime?: unknown },
  sessionKey: string,
  ctx: { agentId?: string; workspaceDir?: string },
): (span: Span) => Promise<unknown[] | undefined> {
  const session = obj(obj(obj(api.runtime).agent).session)
  const get = session.getSessionEntry
  return async (span) => {
    if (typeof get !== 'function' || !ctx.workspaceDir) return undefined
    let entry: unknown
    try {
      entry = get.call(session, { sessionKey, ...(ctx.agentId ? { agentId: ctx.agentId } : {}) })
    } catch {
      return undefined
    }
    const id = claudeCliSessionId(entry)
    if (!id) return undefined
    const text = await readTail(await transcriptPath(id, ctx.workspaceDir))
    return text === undefined ? undefined : spanMessages(text, span)
  }
}
