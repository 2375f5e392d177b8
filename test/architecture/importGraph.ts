/**
 * The import graph of src/, read with TypeScript's own parser: every static import and export-from,
 * every `import type`, every dynamic `import()` and every `typeof import()` type. A type-only
 * import is an edge like any other: it ties the two modules' designs together even when nothing
 * loads at run time. Used by layers.test.ts, which holds the rules.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

export type ImportKind = 'static' | 'type' | 'dynamic'

export interface ImportEdge {
  /** Paths relative to the root read, e.g. `chain/chain.ts`. */
  from: string
  to: string
  kind: ImportKind
  line: number
  specifier: string
}

/** Every .ts file under `root`, relative to it, sorted. */
export function sourceFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts')) out.push(relative(root, path))
    }
  }
  walk(root)
  return out
}

/**
 * The relative imports of one module's text (packages are not edges of this graph); with
 * `packages`, every import, packages' included (dependencies.test.ts).
 */
export function importsOf(file: string, text: string, packages = false): Omit<ImportEdge, 'to'>[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: Omit<ImportEdge, 'to'>[] = []
  const add = (node: ts.Node, specifier: string, kind: ImportKind): void => {
    if (!packages && !specifier.startsWith('.')) return
    found.push({ from: file, specifier, kind, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 })
  }
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly
      add(node, node.moduleSpecifier.text, typeOnly ? 'type' : 'static')
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0]
      // A computed specifier cannot be checked: refuse it, so every edge stays visible.
      add(node, arg !== undefined && ts.isStringLiteralLike(arg) ? arg.text : './<computed import()>', 'dynamic')
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, 'type')
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The graph of every module under `root`. `to` is relative to the root (it may not exist: see `unresolved`). */
export function readImportGraph(root: string): { files: string[]; edges: ImportEdge[] } {
  const files = sourceFiles(root)
  const edges = files.flatMap((file) =>
    importsOf(file, readFileSync(join(root, file), 'utf8')).map((e) => ({ ...e, to: relative(root, resolve(root, dirname(file), e.specifier)) })),
  )
  return { files, edges }
}

export function unresolved(root: string, edges: readonly ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => !existsSync(join(root, e.to)) || !e.to.endsWith('.ts'))
}

/** The import circles: each strongly connected set of two or more modules (or one importing itself), as a path round it. */
export function findCircles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  const connect = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const set: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      set.push(w)
    } while (w !== v)
    if (set.length > 1 || (next.get(v) ?? []).includes(v)) circles.push(pathRound(set, next))
  }
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v)
  return circles
}

/** The shortest circle through the set's first module, for the message: a -> b -> ... -> a. */
function pathRound(set: readonly string[], next: ReadonlyMap<string, string[]>): string[] {
  const members = new Set(set)
  const start = [...set].sort()[0]!
  const cameFrom = new Map<string, string>()
  const queue = [start]
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!
    for (const w of next.get(v) ?? []) {
      if (w === start) {
        const path = [start]
        for (let at: string | undefined = v; at !== undefined && at !== start; at = cameFrom.get(at)) path.splice(1, 0, at)
        return [...path, start]
      }
      if (members.has(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v)
        queue.push(w)
      }
    }
  }
  return [...set, start]
}

/**
 * Which part of the tree a module is in, `depth` folders down from the root: `chain/pool/txPool.ts`
 * is in `chain` at depth 1 and `chain/pool` at depth 2; a file directly in a folder is its own part
 * (`cli.ts`, `chain/chain.ts`).
 */
export function partOf(path: string, depth: number): string {
  const segments = path.split('/')
  return segments.slice(0, Math.min(depth, segments.length)).join('/')
}

export interface LayerRules {
  /** The depth parts are named at (see `partOf`). */
  depth: number
  /** Only edges whose both ends start with this are judged (e.g. `chain/`); '' judges all. */
  within: string
  /** Per part, the other parts it may import. A module may always import its own part. */
  mayImport: Readonly<Record<string, readonly string[]>>
}

/** The edges that go where the rules do not allow, and the parts the rules do not name. */
export function layerViolations(edges: readonly ImportEdge[], files: readonly string[], rules: LayerRules): { edges: ImportEdge[]; unknownParts: string[] } {
  const judged = (path: string): boolean => path.startsWith(rules.within)
  const unknownParts = [...new Set(files.filter(judged).map((f) => partOf(f, rules.depth)))].filter((p) => !(p in rules.mayImport)).sort()
  const bad = edges.filter((e) => {
    if (!judged(e.from) || !judged(e.to)) return false
    const from = partOf(e.from, rules.depth)
    const to = partOf(e.to, rules.depth)
    return from !== to && !(rules.mayImport[from] ?? []).includes(to)
  })
  return { edges: bad, unknownParts }
}
