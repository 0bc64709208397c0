import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The host runs vitest 4 with the `forks` pool; so do we, so native-addon behaviour
// (process-wide registries, worker_threads) is tested the way OpenClaw loads it.
export default defineConfig({
  // plugin/*.ts import the package by its name, as they do once installed; the pi extension also imports the
  // plugin's settings table from the package's dist/plugin/ (here: its source).
  resolve: {
    alias: [
      { find: '@openclaw/context-native/dist/plugin/settings.js', replacement: fileURLToPath(new URL('./plugin/settings.ts', import.meta.url)) },
      { find: '@openclaw/context-native/dist/plugin/history-line.js', replacement: fileURLToPath(new URL('./plugin/history-line.ts', import.meta.url)) },
      { find: '@openclaw/context-native/bin/lib/transcript.mjs', replacement: fileURLToPath(new URL('./bin/lib/transcript.mjs', import.meta.url)) },
      { find: /^@openclaw\/context-native$/, replacement: fileURLToPath(new URL('./index.js', import.meta.url)) },
    ],
  },
  test: {
    include: ['__test__/**/*.test.{ts,mjs}'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
