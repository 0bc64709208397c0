// How long a call keeps the main thread from the event loop: the synchronous part of the call, and the longest gap
// between two turns of a 1 ms interval timer while its Promise is pending (with Node's own event-loop delay monitor
// beside it). Shared by `npm run bench` (reported figures) and the reliability suite (only "it completed and the loop
// kept turning" is asserted there).
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'

/**
 * Runs `fn` (returning a value or a Promise) and measures the event loop meanwhile.
 * @returns {Promise<{ value?: unknown, error?: unknown, callMs: number, totalMs: number, maxGapMs: number, ticks: number, delayMaxMs: number }>}
 */
export async function measureLoop(fn) {
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  let ticks = 0
  let last = performance.now()
  let maxGapMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    maxGapMs = Math.max(maxGapMs, now - last)
    last = now
    ticks++
  }, 1)
  const t0 = performance.now()
  let value
  let error
  let callMs = 0
  try {
    const p = fn()
    callMs = performance.now() - t0
    value = await p
  } catch (e) {
    error = e
  }
  const totalMs = performance.now() - t0
  maxGapMs = Math.max(maxGapMs, performance.now() - last)
  clearInterval(timer)
  h.disable()
  return { value, error, callMs, totalMs, maxGapMs, ticks, delayMaxMs: h.max / 1e6 }
}

/** A flat string of `bytes` ASCII log lines (as a tool's output arrives: decoded from a Buffer, not a rope). */
export function bigLog(bytes) {
  const line = 'INFO 2026-02-24T15:30:00.123Z worker-3 processed request id=7f3a9c latency=12ms status=200 ok\n'
  const buf = Buffer.alloc(bytes, line)
  return buf.toString('latin1')
}

/** `n` pi agent messages: user / assistant / toolResult turns with a few hundred characters each. */
export function manyMessages(n) {
  const out = []
  for (let i = 0; i < n; i++) {
    const k = i % 3
    if (k === 0) out.push({ role: 'user', content: [{ type: 'text', text: `Step ${i}: please check the build of module ${i % 97} and fix what fails.` }], timestamp: 1_771_947_000_000 + i })
    else if (k === 1)
      out.push({
        role: 'assistant',
        content: [
          { type: 'text', text: `Looking at module ${i % 97}. ${'The test suite reports a failure in the parser; '.repeat(4)}` },
          { type: 'toolCall', id: `call_${i}`, name: 'bash', arguments: { command: `npm test -- module${i % 97}` } },
        ],
        timestamp: 1_771_947_000_000 + i,
      })
    else out.push({ role: 'toolResult', toolCallId: `call_${i - 1}`, toolName: 'bash', content: [{ type: 'text', text: `PASS module${i % 97}\n${'ok '.repeat(40)}` }], isError: false, timestamp: 1_771_947_000_000 + i })
  }
  return out
}
