/**
 * docs/events.md's examples, run as a user copies them: each TypeScript block followed by a `text`
 * block is run in its own process (tsx, `gateway-double` as this repository's entry point) and
 * must print that text.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/** Each ```ts block that is followed by a ```text block of its expected output (other blocks are sketches). */
function examples(page: string): { code: string; output: string }[] {
  return [...page.matchAll(/```ts\n((?:(?!```)[\s\S])*)```\n\n```text\n([\s\S]*?)```/g)].map((m) => ({ code: m[1]!, output: m[2]! }))
}

const PAGE = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8')
const ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url))
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url))

describe('docs/events.md', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gd-events-docs-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('has examples', () => {
    expect(examples(PAGE).length).toBeGreaterThan(0)
  })

  it.each(examples(PAGE).map((e, i) => [i + 1, e] as const))('example %i prints what the page shows', async (i, { code, output }) => {
    const file = join(dir, `example-${i}.mts`)
    writeFileSync(file, code.replaceAll("from 'gateway-double'", `from ${JSON.stringify(ENTRY)}`))
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(TSX, [file], { timeout: 120_000 }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out))),
    )
    expect(stdout).toBe(output)
  })
})
