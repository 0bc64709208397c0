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
import { CLAUDE_CLI_RUNTIME, CLAUDE_CLI_TOOL_PREFIX } from './runtime.ts'
import { obj } from './state.ts'

/** The most of a transcript read (its end): a compacted span is far smaller than Claude Code's window. */
export const MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024
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
 * The messages of one span of a Claude Code transcript, as pi messages (`tool_use` a `toolCall` block, a
 * `tool_result` a `toolResult` message, OpenClaw's tools without their MCP prefix, each with its time); `undefined`
 * when the span holds no conversation. Sidechains (subagents), meta lines and the compaction summaries are not the
 * conversation.
 */
export function spanMessages(text: string, span: Span): unknown[] | undefined {
  const lines: Record<string, unknown>[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const v = JSON.parse(line)
      if (v && typeof v === 'object' && !Array.isArray(v)) lines.push(v)
    } catch {
      // a line cut by the read window, or being written
    }
  }
  const bounds = lines.flatMap((l, i) => (l.type === 'system' && l.subtype === 'compact_boundary' ? [i] : []))
  if (span === 'last' && bounds.length === 0) return undefined
  const [from, to] = span === 'open' ? [bounds.at(-1) ?? -1, lines.length] : [bounds.at(-2) ?? -1, bounds.at(-1)!]
  const names = new Map<string, string>()
  const responses = new Map<string, Record<string, unknown>>()
  const out: unknown[] = []
  for (const l of lines.slice(from + 1, to)) {
    if ((l.type !== 'user' && l.type !== 'assistant') || l.isSidechain || l.isMeta || l.isCompactSummary) continue
    const m = obj(l.message)
    const stamp = typeof l.timestamp === 'string' ? Date.parse(l.timestamp) : NaN
    const at = Number.isFinite(stamp) ? { timestamp: stamp } : {}
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content.map(obj) : []
    if (l.type === 'assistant') {
      const content = blocks.flatMap((b): Record<string, unknown>[] => {
        if (b.type === 'text' && typeof b.text === 'string') return [{ type: 'text', text: b.text }]
        if (b.type === 'thinking' && typeof b.thinking === 'string') return [{ type: 'thinking', thinking: b.thinking }]
        if (b.type !== 'tool_use' || typeof b.name !== 'string') return []
        const name = b.name.startsWith(CLAUDE_CLI_TOOL_PREFIX) ? b.name.slice(CLAUDE_CLI_TOOL_PREFIX.length) : b.name
        if (typeof b.id === 'string') names.set(b.id, name)
        return [{ type: 'toolCall', id: String(b.id ?? ''), name, arguments: obj(b.input) }]
      })
      // Claude Code writes one line per content block of a model response: the lines of one response (its
      // message id) are one message, as the model sent it; why it stopped is the last line's.
      const stop = typeof m.stop_reason === 'string' ? { stopReason: m.stop_reason } : {}
      const same = typeof m.id === 'string' ? responses.get(m.id) : undefined
      if (same) {
        ;(same.content as unknown[]).push(...content)
        Object.assign(same, stop)
      } else if (content.length) {
        const message = { role: 'assistant', content, ...stop, ...at }
        if (typeof m.id === 'string') responses.set(m.id, message)
        out.push(message)
      }
      continue
    }
    for (const b of blocks.filter((b) => b.type === 'tool_result')) {
      const id = String(b.tool_use_id ?? '')
      const parts = typeof b.content === 'string' ? [{ type: 'text', text: b.content }] : Array.isArray(b.content) ? b.content.map(obj).filter((p) => p.type === 'text') : []
      out.push({ role: 'toolResult', toolCallId: id, toolName: names.get(id) ?? '', isError: b.is_error === true, content: parts, ...at })
    }
    const said = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string' && b.text.trim())
    if (said.length) out.push({ role: 'user', content: said.map((b) => ({ type: 'text', text: b.text })), ...at })
  }
  return out.some((m) => obj(m).role === 'user' || obj(m).role === 'assistant') ? out : undefined
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

/** What finds a session's Claude Code transcript: OpenClaw's session entry and the run's workspace. */
export interface ClaudeCodeSource {
  /** `api.runtime.agent.session.getSessionEntry` (absent in hosts without it). */
  getSessionEntry?: (params: { sessionKey: string; agentId?: string }) => unknown
  sessionKey: string
  agentId?: string
  workspaceDir?: string
}

/**
 * The messages of a span of the session's Claude Code transcript (see [`spanMessages`]); `undefined` when there
 * is no transcript to read (no binding, no workspace, no file) or the span holds no conversation.
 */
export async function claudeCodeMessages(src: ClaudeCodeSource, span: Span): Promise<unknown[] | undefined> {
  if (!src.getSessionEntry || !src.workspaceDir) return undefined
  let entry: unknown
  try {
    entry = src.getSessionEntry({ sessionKey: src.sessionKey, ...(src.agentId ? { agentId: src.agentId } : {}) })
  } catch {
    return undefined
  }
  const id = claudeCliSessionId(entry)
  if (!id) return undefined
  const text = await readTail(await transcriptPath(id, src.workspaceDir))
  return text === undefined ? undefined : spanMessages(text, span)
}

/**
 * The session's Claude Code transcript reader for a run's hooks: OpenClaw's session entry (through
 * `api.runtime.agent.session`) names the Claude Code session, the run's workspace its project directory.
 */
export function claudeCodeTranscript(
  api: { runtime?: unknown },
  sessionKey: string,
  ctx: { agentId?: string; workspaceDir?: string },
): (span: Span) => Promise<unknown[] | undefined> {
  const session = obj(obj(obj(api.runtime).agent).session)
  const get = session.getSessionEntry
  const src: ClaudeCodeSource = {
    sessionKey,
    ...(ctx.agentId ? { agentId: ctx.agentId } : {}),
    ...(ctx.workspaceDir ? { workspaceDir: ctx.workspaceDir } : {}),
    ...(typeof get === 'function' ? { getSessionEntry: (p) => get.call(session, p) } : {}),
  }
  return (span) => claudeCodeMessages(src, span)
}
