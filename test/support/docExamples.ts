/**
 * The `rpc '<request>'` examples of a docs page, each followed by a ```json block of the output:
 * checked against a real server on the default fixtures, or (with UPDATE_DOCS=1) rewritten from
 * it (compact up to 300 characters, else indented).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

export interface DocExample {
  request: string
  expected: string
}

export function docExamples(text: string): DocExample[] {
  const re = /```sh\nrpc '([^']+)'\n```\n\n```json\n([\s\S]*?)```/g
  return [...text.matchAll(re)].map((m) => ({ request: m[1]!, expected: m[2]! }))
}

/** Declares the page's tests (inside a `describe`): at least `min` examples, each answering what it shows. */
export function checkDocExamples(page: URL, min: number): void {
  const text = readFileSync(page, 'utf8')
  const update = process.env.UPDATE_DOCS === '1'
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(async () => {
    await server?.close()
  })
  const send = async (request: string) => {
    const res = await localhostFetch(server.urls.ethereum!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request })
    return res.text()
  }

  it('uses the README’s key and helper', () => {
    expect(text).toContain('KEY=deadbeefdeadbeefdeadbeefdeadbeef')
    expect(docExamples(text).length).toBeGreaterThanOrEqual(min)
    // Every `rpc '...'` line is an example checked here: none left out by a block shaped otherwise.
    expect(docExamples(text)).toHaveLength(text.match(/^rpc '/gm)?.length ?? 0)
  })

  it.runIf(update)('rewrite the example outputs (UPDATE_DOCS=1)', async () => {
    let out = text
    for (const { request, expected } of docExamples(text)) {
      const body = await send(request)
      const shown = body.length <= 300 ? body : JSON.stringify(JSON.parse(body), null, 2)
      out = out.replace(`rpc '${request}'\n\`\`\`\n\n\`\`\`json\n${expected}`, `rpc '${request}'\n\`\`\`\n\n\`\`\`json\n${shown}\n`)
    }
    writeFileSync(page, out)
  })

  it.skipIf(update).each(docExamples(text).map((e, i) => [i + 1, (JSON.parse(e.request) as { method: string }).method, e] as const))(
    'example %i (%s) returns what the page shows',
    async (_i, _method, { request, expected }) => {
      expect(JSON.parse(await send(request))).toEqual(JSON.parse(expected))
    },
  )
}
