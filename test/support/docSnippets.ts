/**
 * The TypeScript examples of the shipped README and docs pages: each ```ts block followed by a
 * ```text block of what it prints. `gateway-double` and `gateway-double/fixtures` are the
 * package's entry points and `:8545` the port of a server on the default fixtures; the tests run
 * them as a user copies them, from the repository (test/docs/snippets.test.ts) and from the packed
 * package installed in a fresh project (test/e2e/package.test.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The pages (or `## ` sections) that show examples, and how many each shows. */
export const SNIPPET_PAGES = [
  { path: 'README.md', section: 'Your first client: the plain URL', count: 2 },
  { path: 'README.md', section: 'Reaching a network from Node', count: 2 },
  { path: 'README.md', section: 'What your tests spend: usage, budgets and the dashboard', count: 1 },
  { path: 'docs/controls-and-faults.md', count: 1 },
  { path: 'docs/outage.md', count: 1 },
  { path: 'docs/providers.md', count: 1 },
  { path: 'docs/sending-and-mining.md', count: 1 },
  { path: 'docs/architecture.md', section: 'Following a chain: its events', count: 1 },
  { path: 'docs/test-runners.md', section: 'Library API (for test runners)', count: 1 },
  { path: 'docs/test-runners.md', section: 'Using it in a test suite (vitest / jest)', count: 1 },
] as const

/** The text of a page, or of one of its `## ` sections. */
function text(path: string, section?: string): string {
  const page = readFileSync(join(ROOT, path), 'utf8')
  if (section === undefined) return page
  const start = page.indexOf(`\n## ${section}\n`)
  expect(start, `${path}: ## ${section}`).toBeGreaterThan(0)
  const end = page.indexOf('\n## ', start + 1)
  return page.slice(start, end < 0 ? undefined : end)
}

export interface Snippet {
  /** `<page> (<section>) example <n>`. */
  name: string
  code: string
  output: string
}

/** Each page's examples, in order. */
export function snippetsOf(page: { path: string; section?: string }): Snippet[] {
  const where = `${page.path}${page.section ? ` (${page.section})` : ''}`
  return [...text(page.path, page.section).matchAll(/```ts\n((?:(?!```)[\s\S])*)```\n\n```text\n([\s\S]*?)```/g)].map((m, i) => ({
    name: `${where} example ${i + 1}`,
    code: m[1]!,
    output: m[2]!,
  }))
}

/** A file name for a snippet. */
export function snippetFile(snippet: Snippet): string {
  return `${snippet.name.replace(/[^\w]+/g, '-')}.mts`
}
