// The host call-site blocks of docs/api.md (once in the README) run as written: each ```ts block is
// type-checked against the package's index.d.ts, compiled, and run in order with node against the built
// addon, imported by its package name, with the state dir in a temp directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const readme = readFileSync(join(root, 'docs', 'api.md'), 'utf8')

interface Block {
  heading: string
  code: string
}

function blocks(): Block[] {
  const out: Block[] = []
  let heading = ''
  const re = /^(#{2,4} .*)$|^```ts\n([\s\S]*?)^```$/gm
  for (const m of readme.matchAll(re)) {
    if (m[1]) heading = m[1].replace(/^#+ /, '')
    else out.push({ heading, code: m[2] })
  }
  return out
}

let dir: string
let stateDir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'readme-blocks-'))
  stateDir = join(dir, 'state')
  mkdirSync(stateDir)
  // The blocks import '@openclaw/context-native' by name, as the host does.
  mkdirSync(join(dir, 'node_modules', '@openclaw'), { recursive: true })
  symlinkSync(root, join(dir, 'node_modules', '@openclaw', 'context-native'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const found = blocks()

describe('docs/api.md call-site blocks', () => {
  it('has a block for each host call site', () => {
    expect(found.map((b) => b.heading)).toEqual([
      "The prompt: prepend the scratchpad (pi's `context` event; `create-session.ts` in the Claude SDK runner fork)",
      '`agent-hooks/compaction-safeguard.ts`: checkpoint before the summary',
      '`agent-runner-result-complete.ts`: restore after compaction',
      '`tool_result` capture: incremental state and offload',
    ])
  })

  it('every block type-checks against index.d.ts', () => {
    const files = found.map((b, i) => {
      const f = join(dir, `block${i}.mts`)
      writeFileSync(f, b.code)
      return f
    })
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
    })
    const diags = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${d.file.fileName.replace(/^.*\//, '')}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : ''
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
    })
    expect(diags).toEqual([])
  })

  const outputs: string[] = []
  const expectations: Array<(out: string) => void> = [
    (out) => {
      expect(out).toMatch(/persist openclaw:scratchpad:plan/)
      expect(out).toContain('[Session Scratchpad - your persistent working memory]')
      expect(out).toContain('1. Fix auth bug')
      expect(out.trimEnd().endsWith('continue with step 2')).toBe(true)
    },
    (out) => expect(out).toMatch(/^checkpoint cp_001 at .*cp_001\.yaml$/m),
    (out) => {
      expect(out).toContain('[system event for agent:main:telegram:direct:123456]')
      expect(out).toMatch(/Japan/)
    },
    (out) => {
      const observation = JSON.parse(out)
      expect(observation.scratchpad_id).toMatch(/^[0-9a-f]{16}$/)
      expect(observation.metadata).toMatchObject({ path: '/tmp/big_log.txt' })
      expect(observation.summary).toContain('INFO event number 0')
      expect(observation.summary).toContain('INFO event number 1999')
    },
  ]

  found.forEach((b, i) => {
    it(`runs as written: ${b.heading}`, () => {
      const js = ts.transpileModule(b.code, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      }).outputText
      const file = join(dir, `block${i}.mjs`)
      writeFileSync(file, js)
      const r = spawnSync(process.execPath, [file], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, OPENCLAW_STATE_DIR: stateDir },
      })
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      outputs[i] = r.stdout
      expectations[i]?.(r.stdout)
    })
  })
})
