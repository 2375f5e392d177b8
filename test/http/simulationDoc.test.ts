/**
 * docs/simulation.md stays true: every `rpc '<request>'` example, sent to a real server on the
 * default fixtures, returns the output the page shows.
 *
 * After a deliberate fixture change, `UPDATE_DOCS=1 npx vitest run test/http/simulationDoc.test.ts`
 * rewrites the outputs in the page (compact up to 300 characters, else indented).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

const PAGE = new URL('../../docs/simulation.md', import.meta.url)
const TEXT = readFileSync(PAGE, 'utf8')
const UPDATE = process.env.UPDATE_DOCS === '1'

function examples(): { request: string; expected: string }[] {
  const re = /```sh\nrpc '([^']+)'\n```\n\n```json\n([\s\S]*?)```/g
  return [...TEXT.matchAll(re)].map((m) => ({ request: m[1]!, expected: m[2]! }))
}

describe('docs/simulation.md', () => {
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
    expect(TEXT).toContain('KEY=deadbeefdeadbeefdeadbeefdeadbeef')
    expect(examples().length).toBeGreaterThanOrEqual(5)
  })

  it.runIf(UPDATE)('rewrite the example outputs (UPDATE_DOCS=1)', async () => {
    let text = TEXT
    for (const { request, expected } of examples()) {
      const body = await send(request)
      const shown = body.length <= 300 ? body : JSON.stringify(JSON.parse(body), null, 2)
      text = text.replace(`rpc '${request}'\n\`\`\`\n\n\`\`\`json\n${expected}`, `rpc '${request}'\n\`\`\`\n\n\`\`\`json\n${shown}\n`)
    }
    writeFileSync(PAGE, text)
  })

  it.skipIf(UPDATE).each(examples().map((e, i) => [i + 1, (JSON.parse(e.request) as { method: string }).method, e] as const))(
    'example %i (%s) returns what the page shows',
    async (_i, _method, { request, expected }) => {
      expect(JSON.parse(await send(request))).toEqual(JSON.parse(expected))
    },
  )
})
