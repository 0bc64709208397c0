// The plugin's scratchpad across processes (issue 28), through dist/plugin/tools.js (`npm run build:plugin`):
// two processes appending to one session lose no append; the schema's maxima persist and come back whole after a
// restart (a new process).
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { assert, native, root, tempDir } from '../lib.mjs'

const child = join(root, 'reliability/children/plugin-scratchpad.mjs')

/** dist/plugin/ in a folder of its own, with the package (this checkout's build) as its @openclaw/context-native. */
function pluginCopy() {
  const built = process.env.STORE_PLUGIN_DIST ?? join(root, 'dist/plugin')
  if (!existsSync(join(built, 'tools.js'))) throw new Error('no dist/plugin/tools.js: run `npm run build:plugin` first')
  const dir = join(tempDir('plugin-copy'), 'plugin')
  mkdirSync(join(dir, 'node_modules/@openclaw'), { recursive: true })
  for (const f of readdirSync(built)) cpSync(join(built, f), join(dir, f))
  symlinkSync(root, join(dir, 'node_modules/@openclaw/context-native'), 'dir')
  return dir
}

function run(args, { go = false } = {}) {
  const p = spawn(process.execPath, [child, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  p.stdout.on('data', (d) => (out += d))
  p.stderr.on('data', (d) => (err += d))
  const done = new Promise((resolve, reject) =>
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`${args[0]} exit ${code}: ${err.slice(-600)}`)))),
  )
  if (!go) p.stdin.end()
  return { p, done }
}

export default function pluginStoreCases() {
  return [
    {
      group: 'store',
      name: "2 processes x 200 append_notes on one session through the plugin's tool: no append lost",
      async run() {
        const dir = pluginCopy()
        const stateDir = tempDir('plugin-append')
        const key = 'agent:main:two-processes'
        const kids = [0, 1].map((i) => run(['append', dir, stateDir, key, String(i), '200'], { go: true }))
        // Both load the plugin and the addon first, then start together.
        setTimeout(() => kids.forEach((k) => k.p.stdin.end('go\n')), 500)
        const outs = await Promise.all(kids.map((k) => k.done))
        for (const [i, o] of outs.entries()) assert(o.ok === 200, `process ${i}: ${o.ok} of 200 appends accepted: ${o.failed.join(' | ')}`)
        const notes = native.readPersistedScratchpadSync({ stateDir, sessionKey: key })['openclaw:scratchpad:notes'] ?? ''
        const lines = new Set(notes.split('\n'))
        const lost = []
        for (const p of [0, 1]) for (let i = 0; i < 200; i++) if (!lines.has(`p${p} append ${i}`)) lost.push(`p${p}#${i}`)
        assert(lost.length === 0, `${lost.length} of 400 appends lost, e.g. ${lost.slice(0, 5).join(', ')}`)
        // A third process resumes the session: all 400 in the block the model gets.
        const resumed = await run(['resume', dir, stateDir, key, '2']).done
        const missing = [...Array(400).keys()].filter((n) => !resumed.block.includes(`p${n % 2} append ${Math.floor(n / 2)}\n`))
        assert(missing.length === 0, `${missing.length} appends missing from the resumed block`)
        return `400 of 400 appends persisted and resumed (version ${resumed.usage.version})`
      },
    },
    {
      group: 'store',
      name: 'the schema maxima (notesMaxChars and planMaxChars 100,000, maxTokens 50,000) persist and survive a restart whole',
      async run() {
        const dir = pluginCopy()
        const stateDir = tempDir('plugin-maxima')
        const key = 'agent:main:maxima'
        const set = await run(['maxima', dir, stateDir, key, '0']).done
        assert(set.plan.ok && !set.plan.truncated && set.plan.chars === 100_000, `set_plan: ${JSON.stringify(set.plan)}`)
        assert(set.notes.ok && set.notes.chars === 100_000, `set_notes: ${JSON.stringify(set.notes)}`)
        const resumed = await run(['resume', dir, stateDir, key, '1']).done
        assert(resumed.usage.planChars === 100_000 && resumed.usage.notesChars === 100_000, `after the restart: ${JSON.stringify(resumed.usage)}`)
        assert(resumed.block.includes(set.planText) && resumed.block.includes(set.notesText.trimEnd()), 'the resumed block holds the whole plan and notes')
        return `plan and notes 100,000 chars each (${set.tokens} tokens) whole after a restart`
      },
    },
  ]
}
