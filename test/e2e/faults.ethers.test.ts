/**
 * Scripted faults as ethers v6 sees them: its error codes (`isError(e, code)`), and its
 * `FetchRequest` throttle retries counted in the double's request log. The provider is built as
 * ethers' docs show (`new JsonRpcProvider(request, network, { staticNetwork: true })`) from a
 * `FetchRequest` whose documented knobs are set short: `timeout`, and `setThrottleParams`
 * (`maxAttempts`, `slotInterval`), and the provider's `cacheTimeout`; `getUrlFunc` is ethers' own `createGetUrlFunc` with
 * gateway-double's `localhostAgent`.
 *
 * What ethers does (6.17, utils/fetch.ts `#send`, providers/provider-jsonrpc.ts `_send`): only a
 * 429 is retried, up to `maxAttempts` requests in all (default 12), after
 * `slotInterval * trunc(random * 2^attempt)` ms (default slot 250) or after a `retry-after`
 * header's value, which it reads as milliseconds; then `SERVER_ERROR` "exceeded maximum retry
 * limit" with a made-up status 599. Any other non-2xx is `SERVER_ERROR` at once, JSON body or
 * not. No answer in `timeout` ms is `TIMEOUT`; a dropped connection is Node's own socket error
 * (`ECONNRESET`), not an ethers error. The provider gathers calls made within 10 ms into one
 * JSON-RPC batch and sends a lone call as a single request (as here); a fault matches a batch by
 * any of its methods. It also shares one call's result, failed or not, with the same call made
 * within `cacheTimeout` ms (default 250), which these tests turn off (-1).
 */
import { FetchRequest, JsonRpcProvider, isError } from 'ethers'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localhostAgent } from '../../src/http/client.ts'
import { logAfter, logPosition, rejection, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { HEAD } from './support/fixture.ts'

let server: ControlServer
let since: number
const providers: JsonRpcProvider[] = []

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
afterEach(() => {
  for (const p of providers.splice(0)) p.destroy()
})

/** A provider as ethers' docs build one; throttle slots of 5 ms unless a test says otherwise. */
function ethersProvider(opts: { timeout?: number; maxAttempts?: number; slotInterval?: number } = {}): JsonRpcProvider {
  const req = new FetchRequest(server.url)
  req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: localhostAgent })
  if (opts.timeout !== undefined) req.timeout = opts.timeout
  req.setThrottleParams({ slotInterval: opts.slotInterval ?? 5, ...(opts.maxAttempts === undefined ? {} : { maxAttempts: opts.maxAttempts }) })
  // cacheTimeout -1: no sharing of one call's (failed) result with the same call made within
  // the default 250 ms, so each call in a test is its own request.
  const provider = new JsonRpcProvider(req, 'mainnet', { staticNetwork: true, cacheTimeout: -1 })
  providers.push(provider)
  return provider
}

const credits = () => server.control.key(server.devKey).remaining

describe('ethers: rateLimit (429)', () => {
  it('retried up to maxAttempts, then SERVER_ERROR "exceeded maximum retry limit" (status 599); none charged', async () => {
    server.control.addFault({ kind: 'rateLimit', method: 'eth_blockNumber' })
    const before = credits()
    const err = await rejection(ethersProvider({ maxAttempts: 3 }).getBlockNumber())
    expect(isError(err, 'SERVER_ERROR')).toBe(true)
    expect(err.shortMessage).toBe('exceeded maximum retry limit')
    expect(err.info.responseStatus).toBe('599 CLIENT ESCALATED SERVER ERROR (429 Too Many Requests; exceeded maximum retry limit)')
    expect(JSON.parse(err.info.responseBody)).toMatchObject({ error: { code: 429, event: -33200, message: 'Too Many Requests' } })
    const log = await logAfter(server, since, 3)
    expect(log.map((e) => [e.status, e.fault, e.credits])).toEqual(Array(3).fill([429, 'rateLimit', 0]))
    expect(credits()).toBe(before)
  })

  it('reads retry-after as milliseconds: with retry-after: 1 and the default 12 attempts, 12 requests at once', async () => {
    server.control.addFault({ kind: 'rateLimit', retryAfter: 1 })
    // slotInterval as large as the default: only the header (1 ms) can make this quick.
    const err = await rejection(ethersProvider({ slotInterval: 250 }).getBlockNumber())
    expect(isError(err, 'SERVER_ERROR')).toBe(true)
    expect(err.shortMessage).toBe('exceeded maximum retry limit')
    const log = await logAfter(server, since, 12)
    expect(new Set(log.map((e) => e.status))).toEqual(new Set([429]))
  })
})

describe('ethers: dailyLimit (402)', () => {
  it('SERVER_ERROR with the 402 status and the real body, not retried', async () => {
    server.control.addFault({ kind: 'dailyLimit' })
    const err = await rejection(ethersProvider().getBlockNumber())
    expect(isError(err, 'SERVER_ERROR')).toBe(true)
    expect(err.info.responseStatus).toBe('402 Payment Required')
    expect(JSON.parse(err.info.responseBody)).toMatchObject({ error: { code: 402, event: -33000 } })
    const [entry] = await logAfter(server, since, 1)
    expect(entry).toMatchObject({ status: 402, fault: 'dailyLimit', credits: 0 })
  })
})

describe('ethers: serverError', () => {
  it('500 (JSON-RPC -32603): SERVER_ERROR, the body kept in info, not retried', async () => {
    server.control.addFault({ kind: 'serverError', status: 500 })
    const err = await rejection(ethersProvider().getBlockNumber())
    expect(isError(err, 'SERVER_ERROR')).toBe(true)
    expect(err.info.responseStatus).toBe('500 Internal Server Error')
    expect(JSON.parse(err.info.responseBody)).toMatchObject({ error: { code: -32603, message: 'internal error' } })
    await logAfter(server, since, 1)
  })

  it('503 (the load balancer’s HTML page): SERVER_ERROR with the page as the body, not retried', async () => {
    server.control.addFault({ kind: 'serverError', status: 503 })
    const err = await rejection(ethersProvider().getBlockNumber())
    expect(isError(err, 'SERVER_ERROR')).toBe(true)
    expect(err.info.responseStatus).toBe('503 Service Unavailable')
    expect(err.info.responseBody).toContain('<title>503 Service Temporarily Unavailable</title>')
    await logAfter(server, since, 1)
  })
})

describe('ethers: latency', () => {
  it('the real answer arrives (charged as usual); the log shows the fault', async () => {
    server.control.addFault({ kind: 'latency', ms: 100, times: 1 })
    const before = credits()
    expect(await ethersProvider().getBlockNumber()).toBe(Number(HEAD))
    const [entry] = await logAfter(server, since, 1)
    expect(entry).toMatchObject({ status: 200, fault: 'latency', calls: [{ method: 'eth_blockNumber', outcome: 'ok' }] })
    expect(credits()).toBe(before - entry!.credits)
  })
})

describe('ethers: timeout', () => {
  it('TIMEOUT after the FetchRequest’s timeout; ethers leaves its socket open, so the double still holds the request', async () => {
    server.control.addFault({ kind: 'timeout', times: 1 })
    const provider = ethersProvider({ timeout: 200 })
    const err = await rejection(provider.getBlockNumber())
    expect(isError(err, 'TIMEOUT')).toBe(true)
    expect(server.control.faults()).toEqual([])
    // The next call answers on a new socket; the held one is released only when the server closes.
    expect(await provider.getBlockNumber()).toBe(Number(HEAD))
    const log = await logAfter(server, since, 1)
    expect(log.map((e) => [e.status, e.fault])).toEqual([[200, null]])
  })

  it('with ms, the load balancer’s 504 comes first: SERVER_ERROR 504, not retried', async () => {
    server.control.addFault({ kind: 'timeout', ms: 20 })
    const err = await rejection(ethersProvider({ timeout: 2000 }).getBlockNumber())
    expect(isError(err, 'SERVER_ERROR')).toBe(true)
    expect(err.info.responseStatus).toBe('504 Gateway Timeout')
    expect((await logAfter(server, since, 1))[0]).toMatchObject({ status: 504, fault: 'timeout' })
  })
})

describe('ethers: drop', () => {
  it('Node’s socket error (ECONNRESET, "socket hang up"), not an ethers error code; not retried', async () => {
    server.control.addFault({ kind: 'drop' })
    const err = await rejection(ethersProvider().getBlockNumber())
    expect(err).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' })
    expect(isError(err, 'SERVER_ERROR')).toBe(false)
    expect((await logAfter(server, since, 1))[0]).toMatchObject({ status: null, fault: 'drop' })
  })
})

describe('ethers: a fault for N requests, then the real answer', () => {
  it('429 twice: ethers’ throttle retry gets the answer on the third request', async () => {
    server.control.addFault({ kind: 'rateLimit', times: 2 })
    expect(await ethersProvider({ maxAttempts: 3 }).getBlockNumber()).toBe(Number(HEAD))
    expect((await logAfter(server, since, 3)).map((e) => [e.status, e.fault])).toEqual([
      [429, 'rateLimit'],
      [429, 'rateLimit'],
      [200, null],
    ])
  })

  it('a 5xx once is not retried: the call fails, the next one answers', async () => {
    server.control.addFault({ kind: 'serverError', status: 502, times: 1 })
    const provider = ethersProvider()
    expect(isError(await rejection(provider.getBlockNumber()), 'SERVER_ERROR')).toBe(true)
    expect(await provider.getBlockNumber()).toBe(Number(HEAD))
    expect((await logAfter(server, since, 2)).map((e) => e.status)).toEqual([502, 200])
  })
})
