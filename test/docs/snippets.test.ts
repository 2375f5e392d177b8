/**
 * The TypeScript examples of the pages that have no test of their own, run as a user copies them:
 * each ```ts block followed by a ```text block is run in its own process (tsx, from a folder of
 * its own, so that a path that works only in a clone fails; `gateway-double` as this repository's
 * entry point, `:8545` as the port of a server on the default fixtures) and must print that text.
 * The README's "Your first client", "Reaching a network from Node" and "What your tests spend", docs/controls-and-faults.md,
 * docs/outage.md, docs/sending-and-mining.md, docs/architecture.md's chain events and docs/test-runners.md's
 * library API and three clients (the list: ../support/docSnippets.ts). The files are written under
 * node_modules/.cache, so `viem`, `ethers` and `web3` resolve as in a project. test/e2e/package.test.ts
 * runs them again from the packed package installed in a fresh project.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { SNIPPET_PAGES, snippetFile, snippetsOf } from '../support/docSnippets.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ENTRY = join(ROOT, 'src', 'index.ts')
const FIXTURES = join(ROOT, 'src', 'fixtures', 'index.ts')
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx')

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

  const cases = SNIPPET_PAGES.flatMap((page) => {
    const found = snippetsOf(page)
    it(`${page.path}${'section' in page ? ` (${page.section})` : ''} has its ${page.count} example(s)`, () => expect(found).toHaveLength(page.count))
    return found.map((e) => [e.name, e] as const)
  })

  it.each(cases)('%s prints what the page shows', async (_name, snippet) => {
    const { code, output } = snippet
    const file = join(dir, snippetFile(snippet))
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
