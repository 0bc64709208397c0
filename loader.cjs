'use strict'
// The package's entry point (package.json `main`). It loads `index.js`, the loader napi-rs generates
// on every build, and re-exports it unchanged (Node's CJS-to-ESM detection follows the
// `module.exports = require('./index.js')` below, so `import { countTokens } from ...` works).
// It exists for one reason: when no native binary can be loaded, the generated loader says
// "npm has a bug related to optional dependencies", which is rarely the cause. This file replaces
// that message with one that names the platform package this machine needs, how to install it,
// why it is probably missing, and the targets that exist. Every other error passes through as is.
// A hand-written file, not a patch of index.js, so it survives every `napi build`.

try {
  module.exports = require('./index.js')
} catch (err) {
  throw explainLoadFailure(err)
}

/** The error to throw for `err`, the generated loader's: a clearer one when no binary loaded, else `err`. */
function explainLoadFailure(err) {
  const message = (err && err.message) || ''
  if (!/^(Cannot find native binding|Failed to load native binding)/.test(message)) return err
  let pkg = {}
  try {
    pkg = require('./package.json')
  } catch {
    // the message below still names what it can without it
  }
  const name = pkg.name || '@openclaw/context-native'
  const version = pkg.version || ''
  const targets = supportedSuffixes(pkg)
  const suffix = hostSuffix()
  const needed = `${name}-${suffix}`
  const spec = version ? `${needed}@${version}` : needed
  const lines = []

  if (!targets.includes(suffix)) {
    lines.push(
      `${name}: no prebuilt binary exists for this platform (${describeHost()}; its package would be ${needed}).`,
      `Prebuilt targets: ${targets.map((t) => `${name}-${t}`).join(', ')}.`,
      'On another platform, build from source: clone the repository, then `npm ci && npm run build` (needs Rust).',
    )
  } else if (isResolvable(needed)) {
    // Installed, yet it did not load: the binary itself is the problem (wrong libc, damaged file, ...).
    lines.push(
      `${name}: the platform package ${needed} is installed but its binary failed to load (${describeHost()}).`,
      `Reason: ${innermostMessage(err, needed)}`,
      `Reinstall it (\`npm install ${spec}\`); if that does not help, report the reason above.`,
    )
  } else {
    const declared = pkg.optionalDependencies && Object.prototype.hasOwnProperty.call(pkg.optionalDependencies, needed)
    lines.push(
      `${name}: the native binary for this platform is missing (${describeHost()}).`,
      `This platform needs the package ${needed}, which is not installed. Install it next to ${name}:`,
      `  npm install ${spec}        (pnpm add / yarn add work the same)`,
    )
    if (declared) {
      lines.push(
        `${name} lists it in optionalDependencies, so the package manager skipped it: an install with`,
        '--omit=optional / --no-optional (or omit=optional in .npmrc), or a package-lock.json written on another',
        'platform (npm bug https://github.com/npm/cli/issues/4828: then remove node_modules and package-lock.json',
        'and install again).',
      )
    } else {
      lines.push(
        `This copy of ${name} declares no platform packages in optionalDependencies (a plain \`npm pack\` of the`,
        'repository ships none; `npm run pack:local` writes them and packs each built platform package into dist/).',
      )
    }
    if (hasSource()) {
      lines.push(`In a clone of the repository, \`npm run build\` puts the binary for this platform next to index.js.`)
    }
    lines.push(`Prebuilt targets: ${targets.join(', ')}.`)
  }

  const error = new Error(lines.join('\n'))
  error.code = 'NativeBindingMissing'
  error.packageName = needed
  // what the generated loader tried and why each failed (its own message, with its npm-bug advice, is dropped)
  error.cause = err.cause || err
  return error
}

/** The npm suffix of the platform package for this process, e.g. `linux-x64-gnu`. */
function hostSuffix() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}${arch === 'arm' ? 'eabihf' : ''}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function describeHost() {
  const libc = process.platform === 'linux' ? (isMusl() ? ', musl libc' : ', glibc') : ''
  return `${process.platform} ${process.arch}${libc}, Node ${process.versions.node}`
}

/** The same musl test the generated loader makes first, then Node's own report. */
function isMusl() {
  try {
    if (require('fs').readFileSync('/usr/bin/ldd', 'utf8').includes('musl')) return true
  } catch {
    // no ldd: ask Node
  }
  try {
    const report = process.report && process.report.getReport()
    if (report && report.header && report.header.glibcVersionRuntime) return false
    if (report && Array.isArray(report.sharedObjects)) {
      return report.sharedObjects.some((f) => f.includes('libc.musl-') || f.includes('ld-musl-'))
    }
  } catch {
    // fall through
  }
  return false
}

/** npm suffixes of the targets in package.json `napi.targets` (`x86_64-unknown-linux-gnu` -> `linux-x64-gnu`). */
function supportedSuffixes(pkg) {
  const triples = (pkg.napi && pkg.napi.targets) || []
  return triples.map(tripleSuffix).filter(Boolean)
}

function tripleSuffix(triple) {
  const parts = triple.split('-')
  const archs = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm', riscv64gc: 'riscv64', powerpc64le: 'ppc64', s390x: 's390x' }
  const arch = archs[parts[0]] || parts[0]
  if (triple.includes('-linux-')) return `linux-${arch}-${parts[parts.length - 1]}`
  if (triple.includes('-apple-darwin')) return `darwin-${arch}`
  if (triple.includes('-windows-')) return `win32-${arch}-${parts[parts.length - 1]}`
  if (triple.includes('-freebsd')) return `freebsd-${arch}`
  return null
}

function isResolvable(id) {
  try {
    require.resolve(id)
    return true
  } catch {
    return false
  }
}

function hasSource() {
  try {
    return require('fs').existsSync(require('path').join(__dirname, 'Cargo.toml'))
  } catch {
    return false
  }
}

/** The load error that mentions the platform package, else the generated loader's message. */
function innermostMessage(err, needed) {
  for (let e = err.cause; e; e = e.cause) {
    if (e.message && e.message.includes(needed) && !/Cannot find module/.test(e.message)) return e.message
  }
  for (let e = err.cause; e; e = e.cause) {
    if (e.message && !/Cannot find module/.test(e.message)) return e.message
  }
  return err.message
}
