/**
 * Ids come back as the client wrote them, as geth echoes an id's raw JSON: integers past 2^53,
 * fractions, exponents, `-0`, strings with escapes; in results, errors, batches, and the
 * gateway's own 402 and 5xx bodies. Through a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { postRpc } from '../support/wire.ts'

const IDS = [
  '18446744073709551615',
  '-18446744073709551615',
  '123456789012345678901234567890.5e-3',
  '1.0',
  '0.1000',
  '1e3',
  '1E+400',
  '-0',
  '"\\u0041"',
  '"a\\/b"',
  '"tab\\there"',
  '7',
  '"plain"',
  'null',
]

describe('ids echoed exactly', () => {
  let server: RunningServer
  const post = (body: string) => postRpc(server.origin, server.devKey!, body)
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server?.close())

  it.each(IDS)('%s: in a result, an error, an invalid request and a batch', async (id) => {
    expect((await post(`{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber","params":[]}`)).text).toBe(`{"jsonrpc":"2.0","id":${id},"result":"0x6"}`)
    // Whitespace around it, keys in another order.
    const unknown = await post(`{"method":"eth_nope", "id" :  ${id} , "jsonrpc":"2.0"}`)
    expect(unknown.status).toBe(400)
    expect(unknown.text).toBe(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"The method eth_nope does not exist/is not available"}}`)
    expect((await post(`{"jsonrpc":"1.0","id":${id},"method":"eth_blockNumber"}`)).text).toBe(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"invalid request"}}`)
    const batch = await post(`[{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":[{"id":1}]},{"jsonrpc":"2.0","method":"eth_chainId","id":${id}}]`)
    expect(batch.text).toBe(
      `[{"jsonrpc":"2.0","id":${id},"error":{"code":-32602,"message":"too many arguments, want at most 0"}},{"jsonrpc":"2.0","id":${id},"result":"0x1"}]`,
    )
  })

  it('a nested "id" does not stand for the top-level one', async () => {
    const res = await post(`{"jsonrpc":"2.0","method":"eth_chainId","params":[{"id":1}],"id":1.0}`)
    expect(res.text).toBe('{"jsonrpc":"2.0","id":1.0,"error":{"code":-32602,"message":"too many arguments, want at most 0"}}')
    const escaped = await post(`{"jsonrpc":"2.0","method":"eth_chainId","params":[{"id":1}],"\\u0069d":1.50}`)
    expect(escaped.text).toBe('{"jsonrpc":"2.0","id":1.50,"error":{"code":-32602,"message":"too many arguments, want at most 0"}}')
  })

  it("in the gateway's own bodies: 402 and a scripted 500", async () => {
    const key = server.devKey!
    const id = '18446744073709551615'
    server.control.setCredits(key, 0)
    const refused = await post(`{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber","params":[]}`)
    expect(refused.status).toBe(402)
    expect(refused.text.startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":402,`)).toBe(true)
    server.control.setCredits(key, 3_000_000)
    server.control.addFault({ kind: 'serverError', status: 500, times: 1 })
    const faulted = await post(`{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber","params":[]}`)
    expect(faulted.status).toBe(500)
    expect(faulted.text).toBe(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"internal error"}}`)
  })
})
