#!/usr/bin/env node
// `node scripts/plugin-manifest.mjs`: writes openclaw.plugin.json's `contracts.tools` and `toolMetadata` (from
// plugin/tool-profiles.ts), its `configSchema` and `uiHints`, the settings table of docs/configuration.md (between
// its `settings-table` markers) and the pi extension's examples/pi-extension/settings.schema.json, from the settings table in
// plugin/settings.ts (compiled by build:plugin), so neither can drift from what resolveSettings checks;
// __test__/plugin-settings.test.ts fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildPlugin, pluginOut } from './build-plugin.mjs'
import { root } from './host.mjs'

buildPlugin({ quiet: true })
const { configSchema, piExtensionSchema, settingsTable, uiHints } = await import(pathToFileURL(join(pluginOut, 'settings.js')).href)
const { PLUGIN_TOOLS, toolMetadata } = await import(pathToFileURL(join(pluginOut, 'tool-profiles.js')).href)
const file = join(root, 'openclaw.plugin.json')
const manifest = JSON.parse(readFileSync(file, 'utf8'))
// The tools and the profiles that send them, from plugin/tool-profiles.ts.
manifest.contracts = { ...manifest.contracts, tools: [...PLUGIN_TOOLS] }
manifest.toolMetadata = toolMetadata()
manifest.configSchema = configSchema()
manifest.uiHints = uiHints()
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
const doc = join(root, 'docs/configuration.md')
const text = readFileSync(doc, 'utf8')
const open = '<!-- settings-table: written by scripts/plugin-manifest.mjs from plugin/settings.ts -->'
const close = '<!-- /settings-table -->'
const a = text.indexOf(open)
const b = text.indexOf(close)
if (a < 0 || b < a) throw new Error(`docs/configuration.md lacks the markers ${open} ... ${close}`)
writeFileSync(doc, `${text.slice(0, a + open.length)}\n${settingsTable()}\n${text.slice(b)}`)
writeFileSync(join(root, 'examples/pi-extension/settings.schema.json'), `${JSON.stringify(piExtensionSchema(), null, 2)}\n`)
console.log(
  'openclaw.plugin.json (contracts.tools, toolMetadata, configSchema, uiHints), docs/configuration.md (settings table) and examples/pi-extension/settings.schema.json written from plugin/settings.ts and plugin/tool-profiles.ts',
)
