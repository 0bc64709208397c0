// Loads the addon the way a host does (the package's own `index.js`) and says which exports
// this build has, so a case whose API has not landed yet reports "not available in this build"
// instead of a number.

import { createRequire } from 'node:module'
import { readFileSync, statSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const INDEX_JS = path.join(ROOT, 'index.js')

let native
let loadError
try {
  native = createRequire(import.meta.url)(INDEX_JS)
} catch (e) {
  loadError = e
}

export { native, loadError }

/** True when every named export exists and is a function. */
export function has(...names) {
  return !!native && names.every((n) => typeof native[n] === 'function')
}

/** The line a case prints when its API is missing. */
export function missing(...names) {
  const absent = names.filter((n) => !has(n))
  return `not available in this build (\`${absent.join('`, `')}\` not exported by index.js)`
}

/** Which binary was loaded and whether it looks like a release build. */
export function buildInfo() {
  const files = readdirSync(ROOT).filter((f) => f.endsWith('.node'))
  if (files.length === 0) return { file: null, profile: 'none' }
  const file = files[0]
  const full = path.join(ROOT, file)
  const sections = elfSectionNames(readFileSync(full))
  // `npm run build` (release profile, `strip = "symbols"`) has no symbol table and no DWARF;
  // `npm run build:debug` has both.
  const debug = sections ? sections.includes('.debug_info') || sections.includes('.symtab') : null
  return {
    file,
    bytes: statSync(full).size,
    mtime: statSync(full).mtime.toISOString(),
    profile:
      debug === null
        ? 'profile unknown (not an ELF file)'
        : debug
          ? 'debug or unstripped build (not representative: run `npm run build`)'
          : 'release build (stripped)',
    isRelease: debug === false,
  }
}

/** Section names of a 64-bit little-endian ELF file, or null for anything else. */
function elfSectionNames(buf) {
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2 || buf[5] !== 1) return null
  const shoff = Number(buf.readBigUInt64LE(0x28))
  const shentsize = buf.readUInt16LE(0x3a)
  const shnum = buf.readUInt16LE(0x3c)
  const shstrndx = buf.readUInt16LE(0x3e)
  if (!shoff || shstrndx >= shnum) return []
  const strtab = Number(buf.readBigUInt64LE(shoff + shstrndx * shentsize + 0x18))
  const names = []
  for (let i = 0; i < shnum; i++) {
    const nameOff = buf.readUInt32LE(shoff + i * shentsize)
    let end = strtab + nameOff
    while (buf[end] !== 0) end++
    names.push(buf.toString('latin1', strtab + nameOff, end))
  }
  return names
}
