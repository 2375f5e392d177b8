/**
 * The house's layout, kept by a test (docs/architecture.md draws it): the layers
 * encoding <- chain <- rpc <- gateway <- http, the tools beside them, the rooms of the chain layer in
 * their order, and no import circle anywhere under src/. Every import counts: static, type-only,
 * dynamic `import()` and `typeof import()`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findCircles, importsOf, layerViolations, readImportGraph, unresolved } from './importGraph.ts'
import type { ImportEdge, LayerRules } from './importGraph.ts'

const SRC = new URL('../../src', import.meta.url).pathname

const LOWER = ['encoding']
/**
 * The layers (folders of src/) and what each may import. The builder and capture are tools over
 * the chain layer, beside rpc; the entry points (the CLI, the package's index, the test-runner
 * module) sit on top, and nothing imports them.
 */
export const LAYERS: LayerRules = {
  depth: 1,
  within: '',
  mayImport: {
    encoding: [],
    chain: [...LOWER],
    rpc: ['chain', ...LOWER],
    gateway: ['rpc', 'chain', ...LOWER],
    // builder: startServer builds a network's source file (imported only when one is served).
    http: ['gateway', 'rpc', 'chain', 'builder', ...LOWER],
    builder: ['chain', ...LOWER],
    capture: ['builder', 'chain', ...LOWER],
    testing: ['http', 'gateway', 'rpc', 'chain', ...LOWER],
    // gateway-double/fixtures: the default fixtures as data (accounts, addresses, ABIs).
    fixtures: [],
    'cli.ts': ['http', 'gateway', 'rpc', 'chain', 'builder', 'capture', ...LOWER],
    'index.ts': ['http', 'gateway', 'rpc', 'chain', ...LOWER],
  },
}

/**
 * The rooms of src/chain/ (each a folder with a README.md saying what it holds), lowest first. The
 * records' types and the `ChainReader` the rooms read a chain through live in blocks/, so no room
 * imports the chain; loading/ makes chains, so it sits above chain.ts.
 */
export const CHAIN_ROOMS: LayerRules = {
  depth: 2,
  within: 'chain/',
  mayImport: {
    'chain/clock.ts': [],
    'chain/blocks': [],
    'chain/vm': [],
    'chain/store': ['chain/blocks', 'chain/vm'],
    'chain/pool': ['chain/blocks', 'chain/vm'],
    'chain/execution': ['chain/blocks', 'chain/vm'],
    'chain/simulate': ['chain/blocks', 'chain/vm', 'chain/execution'],
    'chain/fees': ['chain/blocks'],
    'chain/tracing': ['chain/blocks', 'chain/vm', 'chain/execution'],
    'chain/events': ['chain/blocks', 'chain/pool'],
    'chain/filters': ['chain/clock.ts', 'chain/blocks', 'chain/pool', 'chain/events'],
    'chain/mining': ['chain/clock.ts', 'chain/blocks', 'chain/vm', 'chain/store', 'chain/pool', 'chain/events'],
    'chain/snapshot.ts': ['chain/store', 'chain/pool', 'chain/mining'],
    // chain.ts's own parts: what a chain is made from, its reads, what admission reads of it.
    'chain/chainOptions.ts': ['chain/clock.ts', 'chain/blocks', 'chain/vm', 'chain/store', 'chain/pool', 'chain/mining'],
    'chain/chainReads.ts': ['chain/blocks', 'chain/vm', 'chain/store', 'chain/pool', 'chain/chainOptions.ts'],
    'chain/chainAdmission.ts': ['chain/store', 'chain/pool', 'chain/mining'],
    'chain/chain.ts': [
      'chain/clock.ts',
      'chain/blocks',
      'chain/vm',
      'chain/store',
      'chain/pool',
      'chain/mining',
      'chain/events',
      // The chain holds its replay points (tracing/replayPoints.ts): a trace's state before each transaction.
      'chain/tracing',
      'chain/snapshot.ts',
      'chain/chainOptions.ts',
      'chain/chainReads.ts',
      'chain/chainAdmission.ts',
    ],
    'chain/loading': ['chain/chain.ts', 'chain/clock.ts', 'chain/blocks', 'chain/vm', 'chain/mining', 'chain/pool'],
  },
}

const show = (edges: readonly ImportEdge[]): string[] => edges.map((e) => `${e.from}:${e.line} imports ${e.to} (${e.kind})`)

describe('the import graph of src/', () => {
  const { files, edges } = readImportGraph(SRC)

  it('is read whole: static, type-only and dynamic imports', () => {
    expect(files.length).toBeGreaterThan(100)
    const kinds = new Set(edges.map((e) => e.kind))
    expect([...kinds].sort()).toEqual(['dynamic', 'static', 'type'])
    // The lazy lanes are edges too: the server loads the fixture loader on first need.
    expect(edges).toContainEqual(expect.objectContaining({ from: 'http/server.ts', to: 'chain/loading/loadFixture.ts', kind: 'dynamic' }))
  })

  it('has every relative import resolve to a module of src/', () => {
    expect(show(unresolved(SRC, edges))).toEqual([])
  })

  it('has no import circle', () => {
    expect(findCircles(edges).map((c) => c.join(' -> '))).toEqual([])
  })

  it('imports only downward: encoding <- chain <- rpc <- gateway <- http, the tools and entry points as declared', () => {
    const { edges: bad, unknownParts } = layerViolations(edges, files, LAYERS)
    expect(unknownParts, 'a new folder of src/: place it in LAYERS (and docs/architecture.md)').toEqual([])
    expect(show(bad)).toEqual([])
  })

  it('keeps the chain layer in its rooms, each importing only the rooms below it', () => {
    const { edges: bad, unknownParts } = layerViolations(edges, files, CHAIN_ROOMS)
    expect(unknownParts, 'a new room of src/chain/: place it in CHAIN_ROOMS (and docs/architecture.md)').toEqual([])
    expect(show(bad)).toEqual([])
  })

  it('gives every folder of src/ a README.md saying what it holds', () => {
    const folders: string[] = []
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) {
          folders.push(path.slice(SRC.length + 1))
          walk(path)
        }
      }
    }
    walk(SRC)
    expect(folders.filter((f) => !existsSync(join(SRC, f, 'README.md')))).toEqual([])
  })
})

describe('the checks themselves', () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to, kind: 'static', line: 1, specifier: to })

  it('finds a circle, a long one, and a module importing itself', () => {
    expect(findCircles([edge('a.ts', 'b.ts'), edge('b.ts', 'a.ts'), edge('b.ts', 'c.ts')])).toEqual([['a.ts', 'b.ts', 'a.ts']])
    expect(findCircles([edge('x/1.ts', 'x/2.ts'), edge('x/2.ts', 'y/3.ts'), edge('y/3.ts', 'x/1.ts')])).toEqual([['x/1.ts', 'x/2.ts', 'y/3.ts', 'x/1.ts']])
    expect(findCircles([edge('s.ts', 's.ts')])).toEqual([['s.ts', 's.ts']])
    expect(findCircles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')])).toEqual([])
  })

  it('refuses an upward import and names an undeclared part', () => {
    const files = ['chain/chain.ts', 'rpc/blocks.ts', 'newthing/x.ts']
    const { edges, unknownParts } = layerViolations([edge('chain/chain.ts', 'rpc/blocks.ts'), edge('rpc/blocks.ts', 'chain/chain.ts')], files, LAYERS)
    expect(edges).toEqual([edge('chain/chain.ts', 'rpc/blocks.ts')])
    expect(unknownParts).toEqual(['newthing'])
    const rooms = layerViolations([edge('chain/blocks/logs.ts', 'chain/chain.ts')], ['chain/blocks/logs.ts', 'chain/chain.ts'], CHAIN_ROOMS)
    expect(rooms.edges).toHaveLength(1)
  })

  it('reads dynamic imports, type imports and computed specifiers', () => {
    const text = [
      "import type { A } from './a.ts'",
      "import { B } from '../b.ts'",
      "export { C } from './c.ts'",
      "import x from 'some-package'",
      "type L = typeof import('./lazy.ts')",
      'const m = await import("./dynamic.ts")',
      'const n = await import(name)',
    ].join('\n')
    expect(importsOf('dir/f.ts', text).map((e) => [e.specifier, e.kind, e.line])).toEqual([
      ['./a.ts', 'type', 1],
      ['../b.ts', 'static', 2],
      ['./c.ts', 'static', 3],
      ['./lazy.ts', 'type', 5],
      ['./dynamic.ts', 'dynamic', 6],
      ['./<computed import()>', 'dynamic', 7],
    ])
  })
})
