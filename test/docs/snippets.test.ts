/**
 * The TypeScript examples of the pages that have no test of their own, run as a user copies them:
 * each ```ts block followed by a ```text block is run in its own process (tsx, from a folder of
 * its own, so that a path that works only in a clone fails; `gateway-double` as this repository's
 * entry point, `:8545` as the port of a server on the default fixtures) and must print that text.
 * The README's "Your first client" and "Reaching a network from Node", docs/controls-and-faults.md,
 * docs/outage.md, docs/sending-and-mining.md, docs/architecture.md's chain events and docs/test-runners.md's
 * library API and three clients. The files are written under node_modules/.cache, so `viem`,
 * `ethers` and `web3` resolve as in a project.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ENTRY = join(ROOT, 'src', 'index.ts')
const FIXTURES = join(ROOT, 'src', 'fixtures', 'index.ts')
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')

/** The text of a page, or of one of its `## ` sections. */
function text(path: string, section?: string): string {
  const page = readFileSync(join(ROOT, path), 'utf8')
  if (section === undefined) return page
  const start = page.indexOf(`\n## ${section}\n`)
  expect(start, `${path}: ## ${section}`).toBeGreaterThan(0)
  const end = page.indexOf('\n## ', start + 1)
  return page.slice(start, end < 0 ? undefined : end)
}

/** Each ```ts block that is followed by a ```text block of its expected output. */
function examples(body: string): { code: string; output: string }[] {
  return [...body.matchAll(/```ts\n((?:(?!```)[\s\S])*)```\n\n```text\n([\s\S]*?)```/g)].map((m) => ({ code: m[1]!, output: m[2]! }))
}

const PAGES = [
  { path: 'README.md', section: 'Your first client: the plain URL', count: 2 },
  { path: 'README.md', section: 'Reaching a network from Node', count: 2 },
  { path: 'docs/controls-and-faults.md', count: 1 },
  { path: 'docs/outage.md', count: 1 },
  { path: 'docs/sending-and-mining.md', count: 1 },
  { path: 'docs/architecture.md', section: 'Following a chain: its events', count: 1 },
  { path: 'docs/test-runners.md', section: 'Library API (for test runners)', count: 1 },
  { path: 'docs/test-runners.md', section: 'Using it in a test suite (vitest / jest)', count: 1 },
]

describe('TypeScript examples of the README and docs pages', () => {
  let server: RunningServer
  let dir: string
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    const cache = join(ROOT, 'node_modules', '.cache')
    mkdirSync(cache, { recursive: true })
    dir = mkdtempSync(join(cache, 'gd-snippets-'))
  })
  afterAll(async () => {
    await server?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const cases = PAGES.flatMap(({ path, section, count }) => {
    const found = examples(text(path, section))
    it(`${path}${section ? ` (${section})` : ''} has its ${count} example(s)`, () => expect(found).toHaveLength(count))
    return found.map((e, i) => [`${path}${section ? ` (${section})` : ''} example ${i + 1}`, e] as const)
  })

  it.each(cases)('%s prints what the page shows', async (name, { code, output }) => {
    const file = join(dir, `${name.replace(/[^\w]+/g, '-')}.mts`)
    const source = code
      .replaceAll(':8545/', `:${server.port}/`)
      .replaceAll("from 'gateway-double'", `from ${JSON.stringify(ENTRY)}`)
      .replaceAll("from 'gateway-double/fixtures'", `from ${JSON.stringify(FIXTURES)}`)
    writeFileSync(file, source)
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(TSX, [file], { cwd: dir, timeout: 120_000 }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out))),
    )
    expect(stdout).toBe(output)
  })
})
