// Runs a benchmark step in a fresh Node process with a hard time limit.
//
// Used for cold start (a process that has loaded nothing yet), for inputs that may take
// super-linear time in a JS tokenizer (the child is killed when its time is up, and the report
// says "> N s" instead of hanging the run), and for memory figures (RSS of a process that only
// does the one thing being measured).
//
// Protocol: the child prints one line `@@RESULT <json>` on stdout; everything else is passed
// through to the log.

import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'

export const RESULT_MARK = '@@RESULT '

/** In a child: reports the result to the parent. */
export function report(value) {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(value)}\n`)
}

/**
 * @param {string} script absolute path of an .mjs file
 * @param {string[]} args
 * @param {{ timeoutMs: number, nodeArgs?: string[], env?: Record<string,string>, cwd?: string }} o
 * @returns {Promise<{ ok: boolean, timedOut: boolean, code: number|null, signal: string|null,
 *   wallMs: number, result: any, stderr: string }>}
 */
export function runChild(script, args, o) {
  return new Promise((resolve) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), script, ...args], {
      cwd: o.cwd,
      env: { ...process.env, ...(o.env ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let done = false
    let grace
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
      // a process stuck in uninterruptible I/O dies only when the I/O ends: do not wait for it
      grace = setTimeout(() => finish(null, 'SIGKILL'), 5000)
    }, o.timeoutMs)
    child.on('close', (code, signal) => finish(code, signal))
    function finish(code, signal) {
      if (done) return
      done = true
      clearTimeout(timer)
      clearTimeout(grace)
      const wallMs = performance.now() - t0
      let result
      for (const line of stdout.split('\n')) {
        if (line.startsWith(RESULT_MARK)) result = JSON.parse(line.slice(RESULT_MARK.length))
      }
      resolve({
        ok: !timedOut && code === 0 && result !== undefined,
        timedOut,
        code,
        signal,
        wallMs,
        result,
        stderr: stderr.trim().split('\n').slice(-5).join('\n'),
        // the first line naming an error, for a one-line report
        error: (stderr.split('\n').find((l) => /\b\w*Error\b/.test(l)) ?? stderr.trim().split('\n')[0] ?? '').trim(),
      })
    }
  })
}
