#!/usr/bin/env node
// `npm run build:plugin` (pack:local and prepublishOnly run it; .ci/run after `npm run build`): the OpenClaw plugin compiled to what the package ships.
// OpenClaw 2026.9.6 refuses a TypeScript entry for an npm install ("requires compiled runtime output"), so
// plugin/*.ts is compiled by tsc (plugin/tsconfig.build.json, typed against the pinned openclaw SDK that
// scripts/host.mjs installs into .cache/openclaw-host) into dist/plugin/*.js, ES modules: dist/plugin/ gets a
// package.json `{"type": "module"}` of its own because the package root is CommonJS (loader.cjs, index.js).
// package.json `openclaw.extensions` names dist/plugin/index.js and `files` ships dist/plugin/.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureOpenClaw, root } from './host.mjs'

export const pluginOut = join(root, 'dist/plugin')

/** Compiles plugin/ into dist/plugin/; throws with tsc's output when it fails. */
export function buildPlugin({ quiet = false } = {}) {
  ensureOpenClaw({ quiet })
  rmSync(pluginOut, { recursive: true, force: true })
  const tsc = join(root, 'node_modules/typescript/bin/tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'plugin/tsconfig.build.json')], { cwd: root, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`tsc -p plugin/tsconfig.build.json failed (exit ${r.status}):\n${r.stdout}${r.stderr}`)
  mkdirSync(pluginOut, { recursive: true })
  writeFileSync(join(pluginOut, 'package.json'), `${JSON.stringify({ type: 'module' }, null, 2)}\n`)
  if (!existsSync(join(pluginOut, 'index.js'))) throw new Error('tsc wrote no dist/plugin/index.js')
  return pluginOut
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    buildPlugin()
    console.log('build:plugin: plugin/*.ts -> dist/plugin/')
  } catch (e) {
    console.error(e.message)
    process.exit(1)
  }
}
