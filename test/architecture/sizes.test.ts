/**
 * The house's sizes, kept by a test: source files of about 300 lines at most, functions of about
 * 80 (the house style's "about": the bounds below leave a margin, and a file or function that
 * outgrows them is split by concern, as docs/architecture.md describes). Functions are found by
 * TypeScript's own parser: declarations, methods, accessors, arrow functions and function
 * expressions, each measured from its first line to its last.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const SRC = new URL('../../src', import.meta.url).pathname
const MAX_FILE_LINES = 330
const MAX_FUNCTION_LINES = 100

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** Every function-like node of a file with its name (or where it is) and its length in lines. */
function functionsOf(file: string, text: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: { name: string; lines: number }[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line
      const last = source.getLineAndCharacterOfPosition(node.end).line
      const named = (node as { name?: ts.Node }).name
      found.push({ name: named ? named.getText() : `(function at line ${first + 1})`, lines: last - first + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('sizes under src/', () => {
  const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }))

  it(`no source file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.map((f) => `${f.path}: ${f.text.split('\n').length}`).filter((line) => Number(line.split(': ')[1]) > MAX_FILE_LINES)
    expect(files.length).toBeGreaterThan(100)
    expect(long).toEqual([])
  })

  it(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((f) => functionsOf(f.path, f.text).filter((fn) => fn.lines > MAX_FUNCTION_LINES).map((fn) => `${f.path} ${fn.name}: ${fn.lines}`))
    expect(long).toEqual([])
  })

  it('measures what it claims: a 101-line function and its file are found', () => {
    const text = `export function long(): number {\n${'  void 0\n'.repeat(99)}}\n`
    expect(functionsOf('long.ts', text)).toEqual([{ name: 'long', lines: 101 }])
  })
})
