/**
 * The user's manual is what the package ships (README.md, docs/ but the pages package.json's
 * `files` leaves out, fixtures/README.md), read from node_modules: it names no repository-only
 * path (a test, a source file, the bench, the build scripts: those go to CONTRIBUTING.md) and links
 * no page the package leaves out. Paths a user's own project has (`test/head.spec.ts` in a
 * recipe) are not the repository's and pass.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files
const left = new Set(files.filter((f) => f.startsWith('!')).map((f) => f.slice(1)))
const shipped = ['README.md', 'fixtures/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter(
  (page) => !left.has(page),
)

/** Mentions of the repository's own folders that name something there (`{a,b}`: its prefix). */
function repositoryPaths(text: string): string[] {
  const found = [...text.matchAll(/(?<![\w./-])((?:test|src|bench|scripts|patches)\/[\w./{},-]*)/g)].map((m) => m[1]!.replace(/[.,]$/, ''))
  return found.filter((path) => existsSync(join(ROOT, path.split('{')[0]!)))
}

describe('the shipped manual', () => {
  it('leaves out only pages that exist, and ships the rest', () => {
    for (const page of left) expect(existsSync(join(ROOT, page)), page).toBe(true)
    expect(shipped.length).toBeGreaterThan(10)
  })

  it.each(shipped)('%s names no repository-only path (they belong in CONTRIBUTING.md)', (page) => {
    expect(repositoryPaths(readFileSync(join(ROOT, page), 'utf8'))).toEqual([])
  })

  it.each(shipped)('%s links only pages the package ships', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8')
    const targets = [...text.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t))
    const unshipped = targets.map((t) => normalize(join(dirname(page), t))).filter((t) => !shipped.includes(t))
    expect(unshipped).toEqual([])
  })

  it.each(shipped)('%s links no repository-only file (a test, a source: `../test/...` escapes the name check above)', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8')
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t))
    const repositoryOnly = targets.map((t) => normalize(join(dirname(page), t))).filter((t) => /^(test|src|bench|scripts|patches)\//.test(t))
    expect(repositoryOnly).toEqual([])
  })
})
