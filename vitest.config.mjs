import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// The host runs vitest 4 with the `forks` pool; so do we, so native-addon behaviour
// (process-wide registries, worker_threads) is tested the way OpenClaw loads it.
export default defineConfig({
  // plugin/*.ts import the package by its name, as they do once installed.
  resolve: { alias: { '@openclaw/context-native': fileURLToPath(new URL('./index.js', import.meta.url)) } },
  test: {
    include: ['__test__/**/*.test.{ts,mjs}'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
