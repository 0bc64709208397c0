// Loads the addon the package ships (loader.cjs, the package's main, over the generated index.js) and says which of its exports exist,
// so a command whose API is missing from this build can say so instead of guessing.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** The addon's exports. */
export const native = require('../../loader.cjs')

/** Names of the exports `names` this build lacks. */
export function missing(...names) {
  return names.filter((n) => typeof native[n] !== 'function')
}

/** True when every export in `names` is a function in this build. */
export function has(...names) {
  return missing(...names).length === 0
}

export const ENCODINGS = ['o200k_base', 'cl100k_base']

/** The message printed, and put in --json, when a part of a command needs exports this build lacks. */
export function notAvailable(what, names) {
  return `${what}: not available in this build (the addon lacks ${names.join(', ')})`
}
