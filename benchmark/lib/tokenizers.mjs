// The tokenizers compared, each loaded the way its README says and each counting o200k_base
// tokens of ordinary text (special-token strings count as plain text, like `encode_ordinary`).
//
// `load()` is async and imports lazily, so a cold-start child only pays for the one it measures.

import { createRequire } from 'node:module'
import { INDEX_JS } from './native.mjs'

export const TOKENIZERS = {
  native: {
    label: '@openclaw/context-native `countTokens`',
    async load() {
      const native = createRequire(import.meta.url)(INDEX_JS)
      return (text) => native.countTokens(text, 'o200k_base')
    },
  },
  'gpt-tokenizer': {
    label: 'gpt-tokenizer 4 (pure JS)',
    async load() {
      const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base')
      const opts = { disallowedSpecial: new Set() }
      return (text) => countTokens(text, opts)
    },
  },
  'gpt-tokenizer-cold': {
    label: 'gpt-tokenizer 4, merge cache cleared before each count',
    async load() {
      const { countTokens, clearMergeCache } = await import('gpt-tokenizer/encoding/o200k_base')
      const opts = { disallowedSpecial: new Set() }
      return (text) => {
        clearMergeCache()
        return countTokens(text, opts)
      }
    },
  },
  tiktoken: {
    label: 'tiktoken 1 (WASM)',
    async load() {
      const { get_encoding } = await import('tiktoken')
      const enc = get_encoding('o200k_base')
      return (text) => enc.encode_ordinary(text).length
    },
  },
  'js-tiktoken': {
    label: 'js-tiktoken 1 (pure JS)',
    async load() {
      const { getEncoding } = await import('js-tiktoken')
      const enc = getEncoding('o200k_base')
      return (text) => enc.encode(text, [], []).length
    },
  },
}

export const JS_TOKENIZERS = ['gpt-tokenizer', 'tiktoken', 'js-tiktoken']
