/**
 * docs/websocket.md's examples, run as a user copies them: each TypeScript block followed by a
 * `text` block is run in its own process (tsx) against a server on the default fixtures (its port
 * in place of 8545, the networks' own ports in place of 9545-9547, `gateway-double` as this
 * repository's entry point) and must print that text.
 * The files are written under node_modules/.cache, so `viem` and `ethers` resolve as in a project.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

const PAGE = readFileSync(new URL('../../docs/websocket.md', import.meta.url), 'utf8')
const ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url))
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url))

/** Each ```ts block that is followed by a ```text block of its expected output. */
export function examples(page: string): { code: string; output: string }[] {
  return [...page.matchAll(/```ts\n([\s\S]*?)```\n\n```text\n([\s\S]*?)```/g)].map((m) => ({ code: m[1]!, output: m[2]! }))
}

describe('docs/websocket.md', () => {
  let server: RunningServer
  let dir: string
  beforeAll(async () => {
    // The page's own ports (9545-9547) are the networks' ports here, chosen free.
    server = await startServer({ port: 0, networkPorts: 0 })
    const cache = fileURLToPath(new URL('../../node_modules/.cache', import.meta.url))
    mkdirSync(cache, { recursive: true })
    dir = mkdtempSync(join(cache, 'gd-ws-docs-'))
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('has examples', () => {
    expect(examples(PAGE).length).toBeGreaterThan(0)
  })

  it.each(examples(PAGE).map((e, i) => [i + 1, e] as const))('example %i prints what the page shows', async (i, { code, output }) => {
    const file = join(dir, `example-${i}.mts`)
    let text = code.replaceAll(':8545', `:${server.port}`).replaceAll("from 'gateway-double'", `from ${JSON.stringify(ENTRY)}`)
    server.networks.forEach((n, j) => (text = text.replaceAll(`:${9545 + j}/`, `:${n.port}/`)))
    writeFileSync(file, text)
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(TSX, [file], { timeout: 60_000 }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out))),
    )
    expect(stdout).toBe(output)
  })
})
