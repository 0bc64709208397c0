// A minimal npm registry on 127.0.0.1 serving this package's packed tarballs, so that `npm install` (and
// OpenClaw's `plugins install`, which runs npm) resolves `@openclaw/context-native` and its platform packages
// exactly as from registry.npmjs.org: packuments with each version's manifest (os / cpu / libc included, which
// npm records in the lockfile and OpenClaw's `requiredPlatformPackages` check reads), tarballs with their
// sha512 integrity. Nothing else is served (404), so nothing is fetched from anywhere else.
//
// Used by scripts/lib/install-plugin.mjs (`npm run test:plugin-install`).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { basename } from 'node:path'
import { gunzipSync } from 'node:zlib'

/** `package/package.json` of an npm tarball (ustar, gzip), parsed. */
export function tarballManifest(file) {
  const tar = gunzipSync(readFileSync(file))
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512)
    if (header.every((b) => b === 0)) break
    const field = (from, len) => header.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '')
    const name = `${field(345, 155) ? `${field(345, 155)}/` : ''}${field(0, 100)}`
    const size = parseInt(field(124, 12).trim() || '0', 8)
    if (name === 'package/package.json') return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString('utf8'))
    at += 512 + Math.ceil(size / 512) * 512
  }
  throw new Error(`${file}: no package/package.json in the tarball`)
}

/**
 * Starts the registry. `tarballs`: packed packages to serve; `manifests`: packages known only by their manifest
 * (platform packages of other hosts: npm reads their os/cpu and skips them, never fetching a tarball).
 * Resolves to `{ url, requests, close() }`; `requests` lists what npm asked for (method, path, status).
 */
export async function startLocalRegistry({ tarballs = [], manifests = [] }) {
  const packages = new Map()
  const files = new Map()
  const add = (manifest, file) => {
    const { name, version } = manifest
    const entry = packages.get(name) ?? { versions: {} }
    const dist = {}
    if (file) {
      const bytes = readFileSync(file)
      const id = `${name.replace('/', '__')}-${version}.tgz`
      files.set(id, bytes)
      dist.tarball = `/-/tarballs/${encodeURIComponent(id)}`
      dist.integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`
      dist.shasum = createHash('sha1').update(bytes).digest('hex')
    } else {
      dist.tarball = `/-/missing/${encodeURIComponent(basename(name))}-${version}.tgz`
    }
    entry.versions[version] = { ...manifest, _id: `${name}@${version}`, dist }
    packages.set(name, entry)
  }
  for (const file of tarballs) add(tarballManifest(file), file)
  for (const manifest of manifests) if (!packages.get(manifest.name)?.versions[manifest.version]) add(manifest)

  const requests = []
  let base = ''
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname)
    const send = (status, body, type = 'application/json') => {
      requests.push({ method: req.method, path, status })
      res.writeHead(status, { 'content-type': type })
      res.end(body)
    }
    if (path.startsWith('/-/tarballs/')) {
      const bytes = files.get(path.slice('/-/tarballs/'.length))
      return bytes ? send(200, bytes, 'application/octet-stream') : send(404, '{"error":"not found"}')
    }
    const entry = packages.get(path.slice(1))
    if (!entry) return send(404, '{"error":"not found"}')
    const versions = Object.fromEntries(
      Object.entries(entry.versions).map(([v, m]) => [v, { ...m, dist: { ...m.dist, tarball: `${base}${m.dist.tarball}` } }]),
    )
    const latest = Object.keys(versions).at(-1)
    send(200, JSON.stringify({ name: path.slice(1), 'dist-tags': { latest }, versions }))
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  base = `http://127.0.0.1:${server.address().port}`
  return {
    url: `${base}/`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
