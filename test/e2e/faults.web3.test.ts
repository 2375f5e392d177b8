/**
 * Scripted faults as web3.js v4 sees them. The provider is web3's own `HttpProvider` with its
 * documented `providerOptions` (the fetch options: here node-fetch's `agent`, gateway-double's
 * `localhostAgent`, and node-fetch's `timeout` in ms).
 *
 * What web3 4.9 does: no retries over HTTP. A non-2xx answer with a JSON-RPC body is a
 * `ResponseError` (code 100) carrying the HTTP status as `statusCode` and the body's error as
 * `cause`; a non-JSON body (the load balancer's HTML page) is node-fetch's `FetchError` of type
 * `invalid-json`; a dropped connection its `FetchError` of type `system` (`ECONNRESET`); no answer
 * in `timeout` ms its `FetchError` of type `request-timeout`.
 */
import { HttpProvider, ResponseError, Web3 } from 'web3'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localhostAgent } from '../../src/http/client.ts'
import { logAfter, logPosition, rejection, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { HEAD } from './support/fixture.ts'

let server: ControlServer
let since: number

beforeAll(async () => {
  server = await startControlServer()
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.control.clearFaults()
  since = logPosition(server)
})

function web3Client(timeout?: number): Web3 {
  // `agent` and `timeout` are node-fetch's options; the RequestInit type (DOM's) does not list them.
  const providerOptions = { agent: localhostAgent, ...(timeout === undefined ? {} : { timeout }) } as RequestInit
  return new Web3(new HttpProvider(server.url, { providerOptions }))
}

describe('web3.js: each fault kind, one request each (no retries)', () => {
  it('rateLimit and dailyLimit: ResponseError with statusCode 429 / 402 and the body’s error as cause', async () => {
    const web3 = web3Client()
    for (const [kind, status, event] of [['rateLimit', 429, -33200], ['dailyLimit', 402, -33000]] as const) {
      server.control.addFault({ kind, times: 1 })
      const err = await rejection(web3.eth.getBlockNumber())
      expect(err).toBeInstanceOf(ResponseError)
      expect(err).toMatchObject({ code: 100, statusCode: status, cause: { code: status, event } })
    }
    expect((await logAfter(server, since, 2)).map((e) => [e.status, e.fault])).toEqual([
      [429, 'rateLimit'],
      [402, 'dailyLimit'],
    ])
  })

  it('serverError 500: ResponseError with statusCode 500 and cause -32603; 503: FetchError invalid-json', async () => {
    const web3 = web3Client()
    server.control.addFault({ kind: 'serverError', status: 500, times: 1 })
    expect(await rejection(web3.eth.getBlockNumber())).toMatchObject({ code: 100, statusCode: 500, cause: { code: -32603, message: 'internal error' } })
    server.control.addFault({ kind: 'serverError', status: 503, times: 1 })
    const err = await rejection(web3.eth.getBlockNumber())
    expect(err).toMatchObject({ name: 'FetchError', type: 'invalid-json' })
    expect((await logAfter(server, since, 2)).map((e) => e.status)).toEqual([500, 503])
    expect(await web3.eth.getBlockNumber()).toBe(HEAD)
  })

  it('latency: the answer arrives; timeout: FetchError request-timeout; drop: FetchError ECONNRESET', async () => {
    server.control.addFault({ kind: 'latency', ms: 50, times: 1 })
    expect(await web3Client().eth.getBlockNumber()).toBe(HEAD)
    server.control.addFault({ kind: 'timeout', times: 1 })
    expect(await rejection(web3Client(200).eth.getBlockNumber())).toMatchObject({ name: 'FetchError', type: 'request-timeout' })
    // node-fetch closes the socket on its timeout: the double lets the request go at once.
    await logAfter(server, since, 2)
    server.control.addFault({ kind: 'drop', times: 1 })
    expect(await rejection(web3Client().eth.getBlockNumber())).toMatchObject({ name: 'FetchError', type: 'system', code: 'ECONNRESET' })
    const log = await logAfter(server, since, 3)
    expect(log.map((e) => [e.status, e.fault])).toEqual([
      [200, 'latency'],
      [null, 'timeout'],
      [null, 'drop'],
    ])
  })
})
