/**
 * The version of an EthereumJS package this code runs with: the run-time changes written against
 * one version (./interpreterPatch.ts, ./commonParams.ts, ./triePath.ts) apply to it only. Read from the package's
 * package.json where Node resolves it (the sources); the package's bundles (scripts/build.mjs),
 * which hold their own copy of EthereumJS, have the copy's versions written in by the build, and
 * resolve nothing at start (resolving a package through its exports was ~15 ms of a cold start,
 * issue 19).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

type Package = '@ethereumjs/common' | '@ethereumjs/evm' | '@ethereumjs/mpt'

export function ethereumjsVersion(name: Package): string {
  const bundled = (globalThis as { GATEWAY_DOUBLE_BUNDLED_ETHEREUMJS?: Partial<Record<Package, string>> }).GATEWAY_DOUBLE_BUNDLED_ETHEREUMJS?.[name]
  if (bundled !== undefined) return bundled
  // The entry is dist/esm/index.js (or dist/cjs/index.js) of the package.
  const main = createRequire(import.meta.url).resolve(name)
  return (JSON.parse(readFileSync(join(dirname(main), '..', '..', 'package.json'), 'utf8')) as { version: string }).version
}
