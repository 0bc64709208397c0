// `openclaw-context replay`: plays a pi session file through the addon the way the OpenClaw runtime would
// have during the session, and measures what the addon did.
//
// Per entry on the active branch, in order:
// - an assistant message is a turn: before it is added to the context, the gauge reads its provider usage
//   (input + cacheRead + cacheWrite, what the provider billed as context for that call) against the window;
//   at `checkpoint` (80%) a checkpoint is written (trigger auto-80pct; the writer skips near-duplicates).
//   The usage estimator's reading of the context at that moment is compared with the provider's number.
//   The turn's `session.scratchpad` tool calls are applied to the scratchpad.
// - a tool result is captured (incremental state) and offered to the observation store; results over the
//   threshold are parked and the synthetic observation's tokens are compared with the original's.
// - a `compaction` entry writes a checkpoint (trigger compaction) with the messages being compacted, renders
//   its post-compaction restore text, and rebuilds the context as pi does: summary + kept messages.
import { firstKeptIndex, messageText, providerContextTokens } from './transcript.mjs'
import { has, missing, native, notAvailable } from './native.mjs'

export const DEFAULT_WINDOW = 200_000
export const DEFAULT_THRESHOLD_BYTES = 4096
/** The gauge's thresholds the replay runs with (evaluateContextUsage's defaults, the plugin's too): line, checkpoint. */
export const GAUGE_AT = 0.7
export const CHECKPOINT_AT = 0.8
/** The scratchpad tool's default name (issue 14); `session.scratchpad` is its alias. */
export const SCRATCHPAD_TOOL = 'session_scratchpad'
/** Every name the scratchpad tool is called by. */
export const SCRATCHPAD_TOOL_NAMES = Object.freeze(['session_scratchpad', 'session.scratchpad'])

/**
 * True for a call of the scratchpad tool: either name, or an MCP tool of that name (Claude Code calls
 * an MCP server's tool `mcp__<server>__<tool>`).
 */
export function isScratchpadTool(name) {
  if (typeof name !== 'string') return false
  if (SCRATCHPAD_TOOL_NAMES.includes(name)) return true
  const mcp = /^mcp__.+__(.+)$/.exec(name)
  return mcp !== null && SCRATCHPAD_TOOL_NAMES.includes(mcp[1])
}

/** The session key a replay writes under when none is given. */
export function defaultSessionKey(parsed, file) {
  const id = parsed.header && typeof parsed.header.id === 'string' ? parsed.header.id : null
  const base = id ?? String(file ?? 'session').replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '')
  return `agent:main:replay:${base}`
}

/** Characters of a tool result's text the replay hands to checkpoints (see `light` in replay). */
export const LIGHT_RESULT_CHARS = 4096

/** A tool result's text blocks, each cut to LIGHT_RESULT_CHARS (head and tail); other blocks left out. */
function lightContent(content) {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []
  const half = LIGHT_RESULT_CHARS / 2
  return blocks
    .filter((b) => b && b.type === 'text' && typeof b.text === 'string')
    .map((b) => ({ type: 'text', text: b.text.length > LIGHT_RESULT_CHARS ? `${b.text.slice(0, half)}\n[...]\n${b.text.slice(-half)}` : b.text }))
}

/**
 * A tool result's `details` as the plugin hands them to the state (plugin/capture.ts statusFields): their
 * top-level flags, numbers and short strings, by which a failure is told (crates/state details_failed); a
 * result without any has none.
 */
function statusOf(details) {
  if (!details || typeof details !== 'object' || Array.isArray(details)) return undefined
  const out = Object.fromEntries(Object.entries(details).filter(([, v]) => ['boolean', 'number'].includes(typeof v) || (typeof v === 'string' && v.length <= LIGHT_RESULT_CHARS)))
  return Object.keys(out).length > 0 ? out : undefined
}

/** Files named by a tool call's arguments, as pi's compaction fileOps lists them. */
function addFileOps(ops, name, args) {
  if (!args || typeof args !== 'object') return
  const path = typeof args.path === 'string' ? args.path : typeof args.file_path === 'string' ? args.file_path : null
  if (!path) return
  // pi's tools are read / write / edit; Claude Code's Read / Write / Edit / MultiEdit / NotebookEdit.
  const tool = String(name).toLowerCase()
  if (tool === 'read') ops.read.add(path)
  else if (tool === 'write') ops.written.add(path)
  else if (tool === 'edit' || tool === 'multiedit' || tool === 'notebookedit') ops.edited.add(path)
}

/** The message a non-`message` entry puts in pi's context (buildSessionContext), or null. */
function entryMessage(entry) {
  if (entry.type === 'message') return entry.message
  if (entry.type === 'branch_summary' && typeof entry.summary === 'string' && entry.summary) {
    return { role: 'branchSummary', summary: entry.summary, fromId: entry.fromId ?? '', timestamp: Date.parse(entry.timestamp) || 0 }
  }
  if (entry.type === 'custom_message') {
    return { role: 'custom', customType: entry.customType, content: entry.content, display: entry.display, timestamp: Date.parse(entry.timestamp) || 0 }
  }
  return null
}

function median(xs) {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

function mean(xs) {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null
}

/**
 * The gauge's incremental estimator (what a host uses when the SDK has no usage to report): each
 * message is counted once as it is added. After a compaction, `compact(keep, summary)` carries the
 * kept messages at the size the provider measured them and adds the summary (builds without it:
 * reset, then the summary and the kept messages counted without their pre-compaction usage).
 */
export function makeEstimator() {
  if (typeof native.ContextEstimator !== 'function') return null
  const est = new native.ContextEstimator()
  const canCompact = typeof est.compact === 'function'
  return {
    kind: 'ContextEstimator',
    /** After a compaction: `summary` replaces all but the last `keptMessages.length` messages added. */
    compact(summary, keptMessages) {
      if (canCompact) {
        est.compact(keptMessages.length, [summary])
        return
      }
      est.reset()
      for (const m of [summary, ...keptMessages]) est.addMessage(m, { ignoreUsage: true })
    },
    /** After an OpenClaw reset: the context is only `keptMessages` (counted without their old usage). */
    restart(keptMessages) {
      est.reset()
      for (const m of keptMessages) est.addMessage(m, { ignoreUsage: true })
    },
    push(m) {
      est.addMessage(m)
    },
    estimate() {
      this.last = est.estimate()
      return this.last.tokens
    },
    last: null,
  }
}

/**
 * Replays `parsed` (from parseTranscript) and returns the report as data.
 *
 * @param {object} parsed
 * @param {{ file?: string, window?: number, stateDir: string, sessionKey?: string, thresholdBytes?: number,
 *           onProgress?: (p: { done: number, total: number, turn: number }) => void,
 *           onCheckpoint?: (cp: object) => void, onCompaction?: (c: object) => void,
 *           compactionInput?: 'compacted' | 'context' }} options
 * `onCheckpoint` is called right after each checkpoint is written (its file is on disk at `cp.path`),
 * with the record listed in `checkpoints.written` plus its post-compaction `restore` text.
 * `onCompaction` is called at each `compaction` entry, before anything is written for it, with what the host's
 * summarizer receives: `{ line, tokensBefore, summary, messages, firstKept }` (`messages`: the context up to the
 * first kept entry, whole, the previous compaction's summary first when there is one; `firstKept`: the first kept
 * message, or null).
 * `compactionInput` is what the compaction checkpoint is written from: `'compacted'` (the default) the messages
 * the compaction summarises, as pi's extension and OpenClaw's compaction provider (replace mode) hand them;
 * `'context'` the whole context, the messages the compaction keeps too, as the OpenClaw plugin reads it in default
 * mode (its `before_compaction` carries no list of what is compacted: plugin/compaction.ts).
 * `detail: true` adds what a picture of the session needs (the HTML report): `series` (the provider's context
 * per assistant turn), each compaction's real `summary` and `restore` text, and `offload.results` (one row per
 * parked result with its tokens before and after).
 */
export async function replay(parsed, options) {
  const window = options.window ?? DEFAULT_WINDOW
  const stateDir = options.stateDir
  const sessionKey = options.sessionKey ?? defaultSessionKey(parsed, options.file)
  const thresholdBytes = options.thresholdBytes ?? DEFAULT_THRESHOLD_BYTES
  const entries = parsed.entries
  const total = entries.length
  const onProgress = options.onProgress ?? (() => {})
  const detail = options.detail === true
  const series = [] // with detail: { turn, line, tokens, utilization } per assistant turn with provider usage
  const offloaded = [] // with detail: { turn, line, toolName, tokensBefore, tokensAfter }
  let lastRestore = null // the post-compaction restore of the last checkpoint written

  const canGauge = has('evaluateContextUsage')
  const canCheckpoint = has('writeCheckpointSync', 'renderCheckpoint')
  const canHistory = has('writeHistorySync')
  const canOffload = has('offloadObservationSync')
  const canState = has('recordToolResultSync')
  const canMessages = has('recordMessagesSync')
  const canScratchpad = has('applyScratchpadAction', 'getScratchpadContent', 'clearScratchpad')
  const estimator = makeEstimator()
  // The scratchpad registry is process-wide: a replay uses a session id of its own and clears it after.
  const scratchpadSession = `${sessionKey}#replay-${process.pid}-${Date.now()}`

  const turns = { assistant: 0, withUsage: 0, user: 0, toolResults: 0, compactions: 0 }
  const peak = { tokens: 0, utilization: 0, turn: null, line: null }
  const gaugeFirst = { gauge: null, checkpoint: null } // first turn whose reading asked for each action
  const checkpoints = [] // written
  const skipped = [] // attempts the writer skipped
  const compactions = []
  const resets = [] // OpenClaw `reset` entries: { line, reason, keptMessages }
  const offload = { thresholdBytes, offered: 0, offloaded: 0, bytes: 0, tokensBefore: 0, tokensAfter: 0, largest: null }
  const estimates = [] // { turn, line, estimate, provider, afterCompaction }
  let compactionPending = null // the compaction whose first provider figure has not come yet
  const scratchpad = { calls: 0, applied: 0, rejected: 0, messages: [] }
  const errors = [] // addon calls that threw: { line, call, code, message }

  let ctx = [] // the context as pi would send it: AgentMessage[]
  let ctxIdx = [] // for each ctx message, its index in `entries` (-1 for synthesized)
  let messagesRecordedUpTo = 0 // ctx length already given to recordMessages
  let compactionCount = 0
  let checkpointSaved = false
  const toolCalls = new Map() // toolCallId -> { name, arguments, turn }
  const fileOps = { read: new Set(), written: new Set(), edited: new Set() }

  // A replayed checkpoint stands for the moment of the transcript, not of the replay.
  const timeOf = (entry) => {
    const t = typeof entry?.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN
    return Number.isFinite(t) ? { createdAt: new Date(t).toISOString() } : {}
  }

  const call = (line, name, fn) => {
    try {
      return fn()
    } catch (e) {
      errors.push({ line, call: name, code: e?.code ?? 'Error', message: String(e?.message ?? e) })
      return undefined
    }
  }
  // The context handed to checkpoints and the message capture. The checkpoint reads a tool result's text
  // for the ids a short result returns and the values of the latest messages (crates/checkpoint thread/);
  // the rest reads its role only. A result's text is handed over cut to LIGHT_RESULT_CHARS (its head and
  // tail), as the host's context holds a parked result's head and tail: the checkpoints are those of the
  // host, without converting megabytes of file bodies on every attempt. The estimator counts every
  // message whole.
  const light = (message) => {
    if (message.role !== 'toolResult') return message
    // (a command's exit code, or the details' status, says it failed: crates/state result_failure)
    const details = statusOf(message.details)
    return {
      role: 'toolResult',
      toolCallId: message.toolCallId,
      toolName: message.toolName,
      isError: message.isError,
      ...(details ? { details } : {}),
      content: lightContent(message.content),
      timestamp: message.timestamp,
    }
  }
  const pushCtx = (message, idx) => {
    ctx.push(light(message))
    ctxIdx.push(idx)
    estimator?.push(message)
  }

  const writeCheckpoint = (line, turn, trigger, inputTokens, extra) => {
    const input = {
      stateDir,
      sessionKey,
      trigger,
      tokenUsage: { inputTokens, contextWindow: window, utilization: inputTokens / window },
      compactionCount,
      sessionFile: options.file,
      channel: 'replay',
      agentId: 'main',
      messages: ctx,
      ...extra,
    }
    recordMessages(line)
    const res = call(line, 'writeCheckpointSync', () => native.writeCheckpointSync(input))
    if (!res) return null
    if (!res.written) {
      skipped.push({ trigger, turn, line, inputTokens, reason: res.reason ?? 'not written' })
      return null
    }
    const restore = call(line, 'renderCheckpoint', () =>
      native.renderCheckpoint({ stateDir, sessionKey }, { mode: 'post-compaction' }),
    )
    lastRestore = typeof restore === 'string' ? restore : null
    const cp = {
      id: res.checkpointId,
      trigger,
      turn,
      line,
      inputTokens,
      utilization: inputTokens / window,
      restoreTokens: typeof restore === 'string' ? native.countTokens(restore) : null,
      summaryTokens: null,
      path: res.path,
    }
    checkpoints.push(cp)
    // For tools built on the replay (scripts/eval-restore.mjs): the checkpoint file exists now.
    if (options.onCheckpoint) options.onCheckpoint({ ...cp, restore: typeof restore === 'string' ? restore : null })
    return cp
  }

  const recordMessages = (line) => {
    if (!canMessages) return
    // The host hands the whole message array to every context event. What the capture keeps (the
    // topic, the last 8 exchanges, each decision-like pattern once per session) only matters when a
    // checkpoint bundles it, so the replay hands over what is new since the last call (plus the last
    // few messages, for their neighbours) right before each checkpoint attempt: the same capture,
    // without a durable state write per turn.
    const from = Math.max(0, messagesRecordedUpTo - 8)
    call(line, 'recordMessagesSync', () => native.recordMessagesSync({ stateDir, sessionKey, messages: ctx.slice(from) }))
    messagesRecordedUpTo = ctx.length
  }

  // The entries from `kept` up to `end` that make messages (message, custom_message, branch_summary), as
  // pi's buildSessionContext keeps them after a compaction (and OpenClaw after a reset), with their indexes.
  const keptBetween = (kept, end) => {
    const keptMessages = []
    const keptIdx = []
    for (let k = Math.max(kept, 0); kept >= 0 && k < end; k++) {
      const m = entryMessage(entries[k].entry)
      if (m) {
        keptMessages.push(m)
        keptIdx.push(k)
      }
    }
    return { keptMessages, keptIdx }
  }

  let lastProgress = 0
  for (let i = 0; i < total; i++) {
    const { line, entry } = entries[i]
    if (i - lastProgress >= 25) {
      lastProgress = i
      onProgress({ done: i, total, turn: turns.assistant })
    }
    if (entry.type === 'message') {
      const m = entry.message
      const role = m.role
      if (role === 'assistant') {
        turns.assistant++
        const turn = turns.assistant
        const tokens = providerContextTokens(m)
        if (tokens !== null) {
          turns.withUsage++
          const utilization = tokens / window
          if (tokens > peak.tokens) Object.assign(peak, { tokens, utilization, turn, line })
          if (detail) series.push({ turn, line, tokens, utilization })
          if (estimator) {
            const est = call(line, estimator.kind, () => estimator.estimate())
            if (typeof est === 'number') {
              // The first estimate after a compaction has no provider figure to lean on: it is the one
              // the gauge gives while the restore text is judged, reported on its own.
              const afterCompaction = compactionPending !== null && m.stopReason !== 'error' && m.stopReason !== 'aborted'
              estimates.push({
                turn,
                line,
                estimate: est,
                provider: tokens,
                afterCompaction,
                compactionLine: afterCompaction ? compactionPending : null,
                parts: afterCompaction ? { ...estimator.last } : null,
              })
              if (afterCompaction) compactionPending = null
            }
          }
          if (canGauge) {
            const reading = call(line, 'evaluateContextUsage', () =>
              native.evaluateContextUsage({ tokens, contextWindow: window }, { gaugeAt: GAUGE_AT, checkpointAt: CHECKPOINT_AT, checkpointSaved }),
            )
            if (reading) {
              if (reading.action !== 'none' && gaugeFirst.gauge === null) gaugeFirst.gauge = { turn, line, utilization }
              if (reading.action === 'checkpoint') {
                if (gaugeFirst.checkpoint === null) gaugeFirst.checkpoint = { turn, line, utilization }
                if (canCheckpoint) {
                  const cp = writeCheckpoint(line, turn, 'auto-80pct', tokens, timeOf(entries[i].entry))
                  if (cp) checkpointSaved = true
                }
              }
            }
          }
        }
        pushCtx(m, i)
        if (Array.isArray(m.content)) {
          for (const b of m.content) {
            if (!b || b.type !== 'toolCall') continue
            toolCalls.set(b.id, { name: b.name, arguments: b.arguments, turn })
            addFileOps(fileOps, b.name, b.arguments)
            if (isScratchpadTool(b.name)) {
              scratchpad.calls++
              if (canScratchpad) {
                const r = call(line, 'applyScratchpadAction', () =>
                  native.applyScratchpadAction(scratchpadSession, b.arguments ?? {}),
                )
                if (r?.ok) scratchpad.applied++
                else scratchpad.rejected++
                if (r) scratchpad.messages.push({ turn, line, ok: r.ok, message: r.message })
              }
            }
          }
        }
      } else if (role === 'toolResult') {
        turns.toolResults++
        const text = messageText(m)
        const callInfo = toolCalls.get(m.toolCallId)
        const details = statusOf(m.details)
        if (canState && typeof m.toolName === 'string' && m.toolName !== '') {
          call(line, 'recordToolResultSync', () =>
            native.recordToolResultSync({
              stateDir,
              sessionKey,
              toolName: m.toolName,
              params: callInfo?.arguments ?? {},
              // as the plugin hands it (plugin/tools.ts): the flag and the details' status fields (a command's exit
              // code among them), the state decides whether it failed
              isError: m.isError === true,
              ...(details ? { details } : {}),
              // the text's head and tail (where a command's output says what failed and its exit code)
              error: text.length <= 500 ? text : `${text.slice(0, 250)}\n${text.slice(-250)}`,
            }),
          )
        }
        if (canOffload) {
          offload.offered++
          const res = call(line, 'offloadObservationSync', () =>
            native.offloadObservationSync({
              stateDir,
              sessionKey,
              content: text,
              toolName: m.toolName,
              turnId: `turn-${callInfo?.turn ?? turns.assistant}`,
              thresholdBytes,
              metadata: { toolCallId: m.toolCallId },
              // A replay writes a whole session at once: fsync per entry would measure the disk.
              durable: false,
            }),
          )
          if (res?.offloaded) {
            const before = native.countTokens(text)
            const after = native.countTokens(JSON.stringify(res.observation))
            offload.offloaded++
            if (detail) offloaded.push({ turn: callInfo?.turn ?? turns.assistant, line, toolName: m.toolName, tokensBefore: before, tokensAfter: after })
            offload.bytes += Buffer.byteLength(text, 'utf8')
            offload.tokensBefore += before
            offload.tokensAfter += after
            if (!offload.largest || before > offload.largest.tokens) {
              offload.largest = { line, toolName: m.toolName, tokens: before, bytes: Buffer.byteLength(text, 'utf8') }
            }
          }
        }
        pushCtx(m, i)
      } else {
        if (role === 'user') turns.user++
        pushCtx(m, i)
      }
    } else if (entry.type === 'compaction') {
      turns.compactions++
      compactionCount++
      const summary = typeof entry.summary === 'string' ? entry.summary : ''
      const kept = firstKeptIndex(entry, entries)
      // What pi hands the summarizer: the context up to the first kept entry.
      const cut = kept >= 0 ? ctxIdx.findIndex((x) => x >= kept) : -1
      const toSummarize = cut >= 0 ? ctx.slice(0, cut) : ctx
      const tokensBefore = typeof entry.tokensBefore === 'number' ? entry.tokensBefore : (peak.tokens ?? 0)
      // The compacted messages whole (not `light`): what the host's summariser reads, and the history keeps.
      const whole = (x) => (x < 0 ? ctx[0] : entryMessage(entries[x].entry))
      const compacted = ctxIdx.slice(0, cut >= 0 ? cut : ctxIdx.length).map(whole)
      if (options.onCompaction) {
        options.onCompaction({ line, tokensBefore, summary, messages: compacted, firstKept: kept >= 0 ? entryMessage(entries[kept].entry) : null })
      }
      // The compacted conversation kept as the plugin keeps it (issue 49): its next history-<n> entry, from the
      // same messages the checkpoint reads (the compacted ones, or the whole context as in default mode).
      const history = canHistory
        ? call(line, 'writeHistorySync', () =>
            native.writeHistorySync({ stateDir, sessionKey, messages: options.compactionInput === 'context' ? ctxIdx.map(whole) : compacted, compaction: compactionCount, durable: false }),
          )
        : null
      // For tools built on the replay (scripts/eval-restore.mjs): the entry exists now.
      if (history?.written && options.onHistory) options.onHistory({ line, name: history.name, stateDir, sessionKey })
      const record = {
        line,
        turn: turns.assistant,
        tokensBefore,
        summaryTokens: native.countTokens(summary),
        firstKeptLine: kept >= 0 ? entries[kept].line : null,
        checkpoint: null,
        // the history entry written: its name, bytes and messages, and the tokens of the messages it holds
        history: history?.written
          ? { name: history.name, sizeBytes: history.sizeBytes, messages: history.messages, firstIndex: history.firstIndex, lastIndex: history.lastIndex, line: history.summary.line ?? null }
          : null,
      }
      // pi v3 / OpenClaw compactions carry the host's own file lists (`details`): they join the tool calls' ones.
      const details = entry.details && typeof entry.details === 'object' ? entry.details : {}
      for (const p of Array.isArray(details.readFiles) ? details.readFiles : []) if (typeof p === 'string') fileOps.read.add(p)
      for (const p of Array.isArray(details.modifiedFiles) ? details.modifiedFiles : []) if (typeof p === 'string') fileOps.edited.add(p)
      if (canCheckpoint) {
        const saved = ctx
        if (options.compactionInput !== 'context') ctx = toSummarize
        const cp = writeCheckpoint(line, turns.assistant, 'compaction', tokensBefore, {
          ...timeOf(entry),
          fileOps: { read: [...fileOps.read], written: [...fileOps.written], edited: [...fileOps.edited] },
        })
        ctx = saved
        if (cp) {
          cp.summaryTokens = record.summaryTokens
          record.checkpoint = cp.id
        }
        if (detail) record.restore = cp ? lastRestore : null
      }
      if (detail) record.summary = summary
      compactions.push(record)
      // pi's context after compaction: the summary, then the kept messages, then what follows.
      // pi's buildSessionContext: the kept entries that make messages (message, custom_message,
      // branch_summary), from the first kept one up to the compaction.
      const { keptMessages, keptIdx } = keptBetween(kept, i)
      const summaryMessage = { role: 'compactionSummary', summary, tokensBefore, timestamp: Date.parse(entry.timestamp) || 0 }
      ctx = [summaryMessage, ...keptMessages.map(light)]
      ctxIdx = [-1, ...keptIdx]
      messagesRecordedUpTo = ctx.length
      estimator?.compact(summaryMessage, keptMessages)
      compactionPending = line
      fileOps.read.clear()
      fileOps.written.clear()
      fileOps.edited.clear()
      checkpointSaved = false
    } else if (entry.type === 'reset') {
      // OpenClaw's reset (/new, /reset, idle or daily): the model context starts over from the reset,
      // keeping only the messages from `firstKeptEntryId` up to it. No summary, no checkpoint.
      const kept = typeof entry.firstKeptEntryId === 'string' ? entries.findIndex((e) => e.entry.id === entry.firstKeptEntryId) : -1
      const { keptMessages, keptIdx } = keptBetween(kept, i)
      resets.push({ line, reason: typeof entry.reason === 'string' ? entry.reason : null, keptMessages: keptMessages.length })
      ctx = keptMessages.map(light)
      ctxIdx = keptIdx
      messagesRecordedUpTo = ctx.length
      estimator?.restart(keptMessages)
      fileOps.read.clear()
      fileOps.written.clear()
      fileOps.edited.clear()
      checkpointSaved = false
    } else if (entry.type === 'branch_summary' || entry.type === 'custom_message') {
      const m = entryMessage(entry)
      if (m) pushCtx(m, i)
    }
  }
  onProgress({ done: total, total, turn: turns.assistant })

  let scratchpadPrepend = null
  if (canScratchpad && scratchpad.calls > 0) {
    const content = call(0, 'getScratchpadContent', () => native.getScratchpadContent(scratchpadSession))
    scratchpadPrepend = typeof content === 'string' ? { chars: content.length, tokens: native.countTokens(content) } : null
    call(0, 'clearScratchpad', () => native.clearScratchpad(scratchpadSession))
  }

  // The estimator against the provider: the transcript lacks the system prompt and tool definitions, so
  // the error has a roughly constant part; the median error is that offset, and what is left after it
  // is how well the estimator follows the context as it changes.
  let estimator_ = { available: false, reason: notAvailable('gauge estimator', ['ContextEstimator']) }
  if (estimator) {
    const errs = estimates.map((s) => s.estimate - s.provider)
    const offset = median(errs)
    estimator_ = {
      available: true,
      kind: estimator.kind,
      samples: estimates.length,
      meanError: mean(errs),
      meanAbsError: mean(errs.map(Math.abs)),
      meanAbsPercent: mean(estimates.map((s) => Math.abs(s.estimate - s.provider) / s.provider)),
      offset,
      meanAbsErrorAfterOffset: offset === null ? null : mean(errs.map((e) => Math.abs(e - offset))),
      maxAbsError: errs.length ? Math.max(...errs.map(Math.abs)) : null,
      // The first turn after each compaction: the estimate seeded from the summary and the kept messages
      // against the provider's next figure.
      afterCompaction: estimates
        .filter((s) => s.afterCompaction)
        .map((s) => ({
          compactionLine: s.compactionLine,
          turn: s.turn,
          line: s.line,
          estimate: s.estimate,
          provider: s.provider,
          error: s.estimate - s.provider,
          percent: (s.estimate - s.provider) / s.provider,
          overheadTokens: s.parts?.overheadTokens ?? null,
          carriedTokens: s.parts?.carriedTokens ?? 0,
          countedTokens: s.parts?.trailingTokens ?? null,
          correction: s.parts?.correction ?? null,
        })),
    }
  }

  return {
    file: options.file ?? null,
    format: parsed.format,
    family: parsed.family ?? 'pi',
    version: parsed.version,
    sessionId: parsed.header?.id ?? null,
    sessionKey,
    stateDir,
    window,
    lines: parsed.stats.lines,
    entries: entries.length,
    offBranch: parsed.stats.offBranch,
    problems: parsed.problems,
    turns,
    peak,
    ...(detail ? { series } : {}),
    gauge: canGauge
      ? { available: true, gaugeAt: GAUGE_AT, checkpointAt: CHECKPOINT_AT, firstGauge: gaugeFirst.gauge, firstCheckpoint: gaugeFirst.checkpoint }
      : { available: false, reason: notAvailable('gauge', missing('evaluateContextUsage')) },
    checkpoints: canCheckpoint
      ? { available: true, written: checkpoints, skipped }
      : { available: false, reason: notAvailable('checkpoints', missing('writeCheckpointSync', 'renderCheckpoint')), written: [], skipped: [] },
    compactions,
    resets,
    offload: canOffload
      ? { available: true, ...offload, tokensMoved: offload.tokensBefore - offload.tokensAfter, ...(detail ? { results: offloaded } : {}) }
      : { available: false, reason: notAvailable('observation store', missing('offloadObservationSync')) },
    estimator: estimator_,
    state: {
      toolResults: canState ? { available: true } : { available: false, reason: notAvailable('tool_result capture', missing('recordToolResultSync')) },
      messages: canMessages ? { available: true } : { available: false, reason: notAvailable('message capture', missing('recordMessagesSync')) },
    },
    scratchpad: canScratchpad
      ? { available: true, calls: scratchpad.calls, applied: scratchpad.applied, rejected: scratchpad.rejected, prepend: scratchpadPrepend, results: scratchpad.messages }
      : { available: false, calls: scratchpad.calls, reason: notAvailable('scratchpad', missing('applyScratchpadAction', 'getScratchpadContent', 'clearScratchpad')) },
    errors,
  }
}
