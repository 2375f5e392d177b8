/**
 * Scripted faults as viem 2 sees them: its own error classes, and its transport's retries counted
 * in the double's request log. viem is used as its docs show (`createPublicClient`, the `http`
 * transport with its documented `retryCount`, `retryDelay` and `timeout` options, `fetchFn` set
 * to gateway-double's `localhostFetch`).
 *
 * What viem's `http` transport does (viem 2.57, utils/buildRequest.ts `shouldRetry`): a non-2xx
 * answer with a JSON-RPC error body becomes an `RpcRequestError` carrying the HTTP `status`
 * (then, by its code, e.g. `InternalRpcError` for -32603); any other non-2xx becomes an
 * `HttpRequestError` with `status`; no answer at all an `HttpRequestError` with the socket error
 * as `cause`; no answer in `timeout` ms a `TimeoutError`. It retries `retryCount` times (default
 * 3) on HTTP 403/408/413/429/500/502/503/504, on JSON-RPC codes 429, -32005 and -32603, on
 * timeouts and network errors, waiting `retry-after` seconds when the answer has that header,
 * else `2^n * retryDelay` ms (default 150). A 402 is not retried.
 *
 * Retry delays are set to 5 ms and timeouts to 200 ms so the file runs in a few seconds; the
 * one exception waits out a real `retry-after: 1`.
 */
import { BaseError, HttpRequestError, InternalRpcError, RpcRequestError, TimeoutError, createPublicClient, http } from 'viem'
import type { HttpTransportConfig, PublicClient } from 'viem'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPrng } from '../../src/gateway/faults.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { addFaultOverHttp, controlRoute, logAfter, logPosition, rejection, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { HEAD, bob } from './support/fixture.ts'

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

/** A public client as viem's docs build one; `retryDelay` short unless a test says otherwise. */
function viemClient(transport: HttpTransportConfig = {}): PublicClient {
  return createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch, retryDelay: 5, ...transport }) })
}

const blockNumber = (client: PublicClient) => client.getBlockNumber({ cacheTime: 0 })

/** The error in viem's cause chain that is an instance of `type` (viem's documented `walk`). */
function found<T>(err: unknown, type: abstract new (...args: never[]) => T): T {
  expect(err).toBeInstanceOf(BaseError)
  const e = (err as BaseError).walk((x) => x instanceof type)
  expect(e).toBeInstanceOf(type)
  return e as T
}

const credits = () => server.control.key(server.devKey).remaining

describe('viem: rateLimit (429)', () => {
  it('RpcRequestError with status 429 after viem’s default 3 retries: 4 requests, none charged', async () => {
    server.control.addFault({ kind: 'rateLimit', method: 'eth_blockNumber' })
    const before = credits()
    const err = await rejection(blockNumber(viemClient()))
    expect(err).toBeInstanceOf(RpcRequestError)
    expect(err).toMatchObject({ status: 429, code: 429, shortMessage: 'RPC Request failed.' })
    expect((err as RpcRequestError).headers?.get('content-type')).toBe('application/json')
    expect(err.details).toBe('Too Many Requests')
    const log = await logAfter(server, since, 4)
    expect(log.map((e) => [e.status, e.fault, e.credits])).toEqual(Array(4).fill([429, 'rateLimit', 0]))
    expect(credits()).toBe(before)
  })

  it('retryCount: 1 gives two requests; retryCount: 0 one', async () => {
    server.control.addFault({ kind: 'rateLimit' })
    expect(await rejection(blockNumber(viemClient({ retryCount: 1 })))).toMatchObject({ status: 429 })
    await logAfter(server, since, 2)
    since = logPosition(server)
    expect(await rejection(blockNumber(viemClient({ retryCount: 0 })))).toMatchObject({ status: 429 })
    await logAfter(server, since, 1)
  })

  it('honours retry-after (seconds) over its own backoff: the retry comes at least 1 s later', async () => {
    server.control.addFault({ kind: 'rateLimit', retryAfter: 1 })
    const err = await rejection(blockNumber(viemClient({ retryCount: 1 })))
    expect((err as RpcRequestError).headers?.get('retry-after')).toBe('1')
    const [first, second] = await logAfter(server, since, 2)
    // The log's times are the gateway's clock (the system's here): a lower bound viem's wait sets.
    expect(Date.parse(second!.time) - Date.parse(first!.time)).toBeGreaterThanOrEqual(1000)
  })
})

describe('viem: dailyLimit (402)', () => {
  it('RpcRequestError with status 402 and code 402, not retried', async () => {
    server.control.addFault({ kind: 'dailyLimit' })
    const err = await rejection(blockNumber(viemClient()))
    expect(err).toBeInstanceOf(RpcRequestError)
    expect(err).toMatchObject({ status: 402, code: 402, details: 'Payment Required' })
    const [entry] = await logAfter(server, since, 1)
    expect(entry).toMatchObject({ status: 402, fault: 'dailyLimit', credits: 0 })
  })
})

describe('viem: serverError', () => {
  it('500 (JSON-RPC -32603): InternalRpcError over an RpcRequestError with status 500, retried', async () => {
    server.control.addFault({ kind: 'serverError', status: 500 })
    const err = await rejection(blockNumber(viemClient({ retryCount: 2 })))
    expect(err).toBeInstanceOf(InternalRpcError)
    expect(err).toMatchObject({ code: -32603, shortMessage: 'An internal error was received.' })
    expect(found(err, RpcRequestError)).toMatchObject({ status: 500, code: -32603 })
    const log = await logAfter(server, since, 3)
    expect(log.map((e) => e.status)).toEqual([500, 500, 500])
  })

  it('503 (the load balancer’s HTML page): HttpRequestError with status 503, retried', async () => {
    server.control.addFault({ kind: 'serverError', status: 503 })
    const err = await rejection(blockNumber(viemClient({ retryCount: 2 })))
    expect(err).toBeInstanceOf(HttpRequestError)
    expect(err).toMatchObject({ status: 503, shortMessage: 'HTTP request failed.' })
    expect(err.details).toContain('<title>503 Service Temporarily Unavailable</title>')
    expect((err as HttpRequestError).headers?.get('server')).toBe('awselb/2.0')
    await logAfter(server, since, 3)
  })
})

describe('viem: latency', () => {
  it('the real answer arrives (charged as usual); the log shows the fault', async () => {
    server.control.addFault({ kind: 'latency', ms: 100, times: 1 })
    const before = credits()
    expect(await blockNumber(viemClient({ retryCount: 0 }))).toBe(HEAD)
    const [entry] = await logAfter(server, since, 1)
    expect(entry).toMatchObject({ status: 200, fault: 'latency', calls: [{ method: 'eth_blockNumber', outcome: 'ok' }] })
    expect(entry!.credits).toBeGreaterThan(0)
    expect(credits()).toBe(before - entry!.credits)
  })
})

describe('viem: timeout', () => {
  it('TimeoutError after the transport’s `timeout`; the held request is let go (logged with no status)', async () => {
    server.control.addFault({ kind: 'timeout' })
    const err = await rejection(blockNumber(viemClient({ timeout: 200, retryCount: 0 })))
    expect(err).toBeInstanceOf(TimeoutError)
    expect(err.shortMessage).toBe('The request took too long to respond.')
    const [entry] = await logAfter(server, since, 1)
    expect(entry).toMatchObject({ status: null, fault: 'timeout', credits: 0 })
    expect(server.control.faults()[0]?.fired).toBe(1)
  })

  it('viem retries a timeout: retryCount: 1 gives two abandoned requests', async () => {
    server.control.addFault({ kind: 'timeout' })
    expect(await rejection(blockNumber(viemClient({ timeout: 200, retryCount: 1 })))).toBeInstanceOf(TimeoutError)
    const log = await logAfter(server, since, 2)
    expect(log.map((e) => e.status)).toEqual([null, null])
  })

  it('with ms, the load balancer’s 504 comes first: HttpRequestError with status 504', async () => {
    server.control.addFault({ kind: 'timeout', ms: 20 })
    const err = await rejection(blockNumber(viemClient({ timeout: 2000, retryCount: 1 })))
    expect(err).toBeInstanceOf(HttpRequestError)
    expect(err).toMatchObject({ status: 504 })
    expect(err.details).toContain('504 Gateway Time-out')
    expect((await logAfter(server, since, 2)).map((e) => e.status)).toEqual([504, 504])
  })
})

describe('viem: drop', () => {
  it('HttpRequestError with no status, the socket error as its cause; retried', async () => {
    server.control.addFault({ kind: 'drop' })
    const err = await rejection(blockNumber(viemClient()))
    expect(err).toBeInstanceOf(HttpRequestError)
    expect(err.status).toBeUndefined()
    expect(err.shortMessage).toBe('HTTP request failed.')
    // localhostFetch goes through node:http: a reset socket (Node's global fetch says "fetch failed").
    expect(err.cause).toMatchObject({ code: 'ECONNRESET' })
    const log = await logAfter(server, since, 4)
    expect(log.map((e) => [e.status, e.fault])).toEqual(Array(4).fill([null, 'drop']))
  })
})

describe('viem: a fault for N requests, then the real answer (viem’s retry succeeds)', () => {
  it('503 twice: the third request answers, the caller sees only the block number', async () => {
    server.control.addFault({ kind: 'serverError', times: 2 })
    expect(await blockNumber(viemClient())).toBe(HEAD)
    const log = await logAfter(server, since, 3)
    expect(log.map((e) => [e.status, e.fault])).toEqual([
      [503, 'serverError'],
      [503, 'serverError'],
      [200, null],
    ])
    expect(server.control.faults()).toEqual([])
  })

  it('429 three times is absorbed by the default 3 retries; four times is not', async () => {
    server.control.addFault({ kind: 'rateLimit', times: 3 })
    expect(await blockNumber(viemClient())).toBe(HEAD)
    expect((await logAfter(server, since, 4)).map((e) => e.status)).toEqual([429, 429, 429, 200])
    since = logPosition(server)
    server.control.addFault({ kind: 'rateLimit', times: 4 })
    expect(await rejection(blockNumber(viemClient()))).toMatchObject({ status: 429 })
    expect((await logAfter(server, since, 4)).map((e) => e.status)).toEqual([429, 429, 429, 429])
    // The fault is used up: the next call answers at once.
    expect(await blockNumber(viemClient())).toBe(HEAD)
  })
})

describe('viem: a share of requests, from a fixed seed', () => {
  const pattern = async (): Promise<boolean[]> => {
    const client = viemClient({ retryCount: 0 })
    const failed: boolean[] = []
    for (let i = 0; i < 12; i++) failed.push(await blockNumber(client).then(() => false, () => true))
    return failed
  }

  it('probability 0.5, seed 7: the requests that fail are those the seeded PRNG picks, run after run', async () => {
    const draws = createPrng(7)
    const expected = Array.from({ length: 12 }, () => draws() < 0.5)
    expect(expected).toContain(true)
    expect(expected).toContain(false)
    const fault = server.control.addFault({ kind: 'serverError', status: 502, probability: 0.5, seed: 7, method: 'eth_blockNumber' })
    expect(await pattern()).toEqual(expected)
    const log = await logAfter(server, since, 12)
    expect(log.map((e) => e.status === 502)).toEqual(expected)
    // The same fault again (same seed): the same requests fail.
    server.control.removeFault(fault.id)
    server.control.addFault({ kind: 'serverError', status: 502, probability: 0.5, seed: 7, method: 'eth_blockNumber' })
    expect(await pattern()).toEqual(expected)
  })
})

describe('viem: faults over the HTTP control route, with filters', () => {
  it('POST /_double/faults for one method: only that method fails; GET lists it, DELETE removes it', async () => {
    const fault = await addFaultOverHttp(server, { kind: 'rateLimit', method: 'eth_getBalance', network: 'ethereum' })
    expect(fault).toMatchObject({ kind: 'rateLimit', methods: ['eth_getBalance'], network: 'ethereum', remaining: null, fired: 0 })
    const client = viemClient({ retryCount: 1 })
    expect(await blockNumber(client)).toBe(HEAD)
    expect(await rejection(client.getBalance({ address: bob.address }))).toMatchObject({ status: 429 })
    const listed = await controlRoute<{ faults: { id: string; fired: number }[] }>(server, 'GET', '/faults')
    expect(listed.faults).toEqual([expect.objectContaining({ id: fault.id, fired: 2 })])
    await controlRoute(server, 'DELETE', `/faults/${fault.id}`, undefined, 204)
    expect(await client.getBalance({ address: bob.address })).toBeGreaterThan(0n)
    const log = await logAfter(server, since, 4)
    expect(log.map((e) => [e.calls[0]?.method, e.status])).toEqual([
      ['eth_blockNumber', 200],
      ['eth_getBalance', 429],
      ['eth_getBalance', 429],
      ['eth_getBalance', 200],
    ])
  })
})
