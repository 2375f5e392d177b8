/**
 * A fresh dApp project that installs gateway-double from its packed tarball, without the network.
 *
 * npm's cache holds what `npm ci` of this repository fetched, and nothing else: an `npm install`
 * of names would ask the registry for their metadata. So the project's package-lock.json is cut
 * from this repository's: the tarball (by its own integrity), then every package it and the
 * project's other devDependencies reach, at the path and version this repository's lock has them
 * (Node's resolution walked over the lock's paths, peers included), each with its tarball's URL
 * and integrity, so that npm finds the tarball in its cache by integrity without the package's
 * metadata. `npm ci --offline` then installs exactly that from the cache, as CI's `npm ci`
 * filled it.
 */
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'

interface LockEntry {
  version?: string
  resolved?: string
  integrity?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  dev?: boolean
  optional?: boolean
  devOptional?: boolean
  peer?: boolean
  [field: string]: unknown
}

interface PackageJson {
  name: string
  version: string
  license?: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  bin?: Record<string, string>
  engines?: Record<string, string>
}

/** The lock path a package `name` required from the package at `from` resolves to ('' is the root). */
function resolveIn(lock: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let at = from; ; ) {
    const candidate = `${at === '' ? '' : `${at}/`}node_modules/${name}`
    if (lock[candidate] !== undefined) return candidate
    if (at === '') return undefined
    const parent = at.lastIndexOf('/node_modules/')
    at = parent < 0 ? '' : at.slice(0, parent)
  }
}

/**
 * Writes package.json and package-lock.json into `dir` (which holds `tarball`): devDependencies
 * on gateway-double (the tarball) and on `others`, at the versions this repository's lock has.
 */
export function writeConsumerProject(dir: string, tarball: string, repoRoot: string, others: readonly string[], registry = 'https://registry.npmjs.org/'): void {
  const repoLock = (JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as PackageJson
  const spec = `file:${basename(tarball)}`
  const devDependencies: Record<string, string> = { [pkg.name]: spec }
  for (const name of others) {
    const version = repoLock[`node_modules/${name}`]?.version
    if (version === undefined) throw new Error(`${name} is not in this repository's package-lock.json`)
    devDependencies[name] = version
  }
  const packages: Record<string, LockEntry> = {
    '': { name: 'dapp', version: '1.0.0', devDependencies },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(join(dir, basename(tarball)))).digest('base64')}`,
      ...(pkg.license ? { license: pkg.license } : {}),
      ...(pkg.dependencies ? { dependencies: pkg.dependencies } : {}),
      ...(pkg.bin ? { bin: pkg.bin } : {}),
      ...(pkg.engines ? { engines: pkg.engines } : {}),
      ...(pkg.peerDependencies ? { peerDependencies: pkg.peerDependencies } : {}),
      ...(pkg.peerDependenciesMeta ? { peerDependenciesMeta: pkg.peerDependenciesMeta } : {}),
    },
  }
  const queue: string[] = []
  const add = (from: string, name: string, optional: boolean) => {
    const at = resolveIn(repoLock, from, name)
    if (at === undefined) {
      if (optional) return
      throw new Error(`${from || 'the project'} needs ${name}, which this repository's package-lock.json does not have`)
    }
    if (packages[at] !== undefined) return
    // npm recomputes the dev/optional/peer flags for this project's tree.
    const { dev: _d, optional: _o, devOptional: _do, peer: _p, ...entry } = repoLock[at]!
    const fullName = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const tarballName = `${fullName.split('/').pop()}-${entry.version}.tgz`
    packages[at] = { ...entry, resolved: entry.resolved ?? `${registry.replace(/\/?$/, '/')}${fullName}/-/${tarballName}` }
    queue.push(at)
  }
  for (const name of Object.keys(pkg.dependencies ?? {})) add('', name, false)
  for (const name of others) add('', name, false)
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    const entry = packages[at]!
    for (const name of Object.keys(entry.dependencies ?? {})) add(at, name, false)
    for (const name of Object.keys(entry.optionalDependencies ?? {})) add(at, name, true)
    for (const name of Object.keys(entry.peerDependencies ?? {})) add(at, name, entry.peerDependenciesMeta?.[name]?.optional === true)
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'dapp', version: '1.0.0', private: true, devDependencies }, null, 2)}\n`)
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify({ name: 'dapp', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`)
}
