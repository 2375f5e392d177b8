/**
 * Every package the shipped code imports is declared: a module loaded at run time (a static or
 * dynamic import) is a dependency or a peer dependency, and a type-only import is one too or has
 * its `@types/` package among the dependencies (a consumer's `tsc` reads the declarations, which
 * keep those imports). An undeclared import works in this repository, where something else
 * installed it, and breaks in a user's project when npm hoists another version there (ethers 6's
 * `@noble/hashes@1.3.2` did that to `@noble/hashes/sha2.js`). Dependencies are pinned to the
 * version this repository's lock installs, so what the tests ran is what users get.
 * test/e2e/package.test.ts checks the same of the installed build, from the user's project.
 */
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { importsOf, sourceFiles } from './importGraph.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const SRC = join(ROOT, 'src')

interface Manifest {
  name: string
  dependencies: Record<string, string>
  peerDependencies?: Record<string, string>
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest

/** The package a bare specifier names (`@scope/name` or `name`), or undefined for relative and Node's own modules. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined
  const parts = specifier.split('/')
  const name = specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!
  return builtinModules.includes(name) ? undefined : name
}

/** `@types/<name>` for `name` (`@types/scope__name` for `@scope/name`). */
const typesOf = (name: string) => `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`

describe('the dependencies of src/', () => {
  const declared = { ...pkg.dependencies, ...pkg.peerDependencies }
  const uses = sourceFiles(SRC).flatMap((file) =>
    importsOf(file, readFileSync(join(SRC, file), 'utf8'), true).flatMap((edge) => {
      const name = packageOf(edge.specifier)
      return name === undefined || name === pkg.name ? [] : [{ ...edge, name }]
    }),
  )

  it('finds the packages the sources import', () => {
    expect(uses.map((u) => u.name)).toEqual(expect.arrayContaining(['@ethereumjs/vm', 'express', 'ws', 'vitest']))
  })

  it('declares every package loaded at run time, and the types of every package only typed', () => {
    const undeclared = uses
      .filter((u) => declared[u.name] === undefined && (u.kind !== 'type' || pkg.dependencies[typesOf(u.name)] === undefined))
      .map((u) => `${u.from}:${u.line} ${u.specifier}`)
    expect(undeclared).toEqual([])
  })

  it('gives every package the shipped declarations import its types: its own, or an @types/ dependency', () => {
    // Resolved as a consumer's tsc resolves them (NodeNext): a package without declarations of its
    // own (`ws`) needs its @types package as a dependency, or a consumer's tsc without skipLibCheck
    // fails on gateway-double's .d.ts files.
    const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
    const untyped = uses.flatMap((u) => {
      const resolved = ts.resolveModuleName(u.specifier, join(SRC, u.from), options, ts.sys).resolvedModule
      if (resolved === undefined || !/\.d\.[mc]?ts$/.test(resolved.resolvedFileName)) return [`${u.from}:${u.line} ${u.specifier}: no declarations`]
      const typesPackage = /\/node_modules\/(@types\/[^/]+)\//.exec(resolved.resolvedFileName)?.[1]
      return typesPackage === undefined || pkg.dependencies[typesPackage] !== undefined ? [] : [`${u.from}:${u.line} ${u.specifier}: types from ${typesPackage}, not a dependency`]
    })
    expect(untyped).toEqual([])
  })

  it('pins each dependency to the version installed here', () => {
    const off = Object.entries(pkg.dependencies).flatMap(([name, range]) => {
      const installed = (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
      return range === installed ? [] : [`${name}: declared ${range}, installed ${installed}`]
    })
    expect(off).toEqual([])
  })
})
