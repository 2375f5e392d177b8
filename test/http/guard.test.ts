/**
 * The guard around everything a transport runs, through a real server: an exception anywhere
 * answers the documented 500 `-32603 internal error` and a log line, and the server serves on;
 * control inputs that would break it later (a clock past what a `Date` holds) are refused with a
 * 400 that changes nothing; control routes never answer 500 for a client's bad path.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Gateway } from '../../src/gateway/gateway.ts'
import { createNodeHandler } from '../../src/http/nodeHandler.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { postRpc, send } from '../support/wire.ts'

const BLOCK_NUMBER = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }
const INTERNAL_500 = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}'

describe('control inputs that would break the server later', () => {
  let server: RunningServer
  const ctl = (method: string, path: string, body?: unknown) =>
    send(server.origin, `/_double${path}`, body === undefined ? undefined : JSON.stringify(body), { method })
  beforeAll(async () => {
    server = await startServer({ port: 0, control: true })
  })
  afterAll(() => server?.close())

  it('a time past a Date is refused, the clock unchanged, and the next call answered', async () => {
    const before = JSON.parse((await ctl('GET', '/clock')).text)
    const res = await ctl('POST', '/clock', { time: 8.64e15 })
    expect(res.status).toBe(400)
    expect(JSON.parse(res.text)).toEqual({
      error: { message: 'time: must be from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, got 8640000000000000' },
    })
    expect(JSON.parse((await ctl('GET', '/clock')).text).offsetMs).toBe(before.offsetMs)
    const answer = await postRpc(server.origin, server.devKey!, BLOCK_NUMBER)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).result).toBe('0x6')
  })

  it('advanceSeconds out of range is refused and moves nothing', async () => {
    await ctl('POST', '/clock', { time: '2030-01-01T00:00:00Z' })
    for (const advanceSeconds of [1e300, -1e300, 1e15]) {
      const res = await ctl('POST', '/clock', { advanceSeconds })
      expect(res.status, String(advanceSeconds)).toBe(400)
      expect(JSON.parse(res.text).error.message).toMatch(/^advanceSeconds: would move the clock outside 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z/)
    }
    // With both, neither applies when the sum is out of range.
    expect((await ctl('POST', '/clock', { time: '2030-01-01T00:00:00Z', advanceSeconds: -1e11 })).status).toBe(400)
    const now = JSON.parse((await ctl('GET', '/clock')).text).now as string
    expect(now.startsWith('2030-01-01T00:00:0')).toBe(true)
    expect((await postRpc(server.origin, server.devKey!, BLOCK_NUMBER)).status).toBe(200)
    await ctl('DELETE', '/clock')
  })

  it('times are ISO 8601 with a zone, or integer ms, from the epoch on', async () => {
    const cases: [unknown, RegExp][] = [
      ['2030-01-01T00:00:00', /^time: must be an ISO 8601 time or ms since the epoch, got "2030-01-01T00:00:00"$/],
      ['March 7, 2030', /^time: must be an ISO 8601 time/],
      [-1, /^time: must be from 1970-01-01T00:00:00.000Z/],
      ['1969-12-31T23:59:59Z', /^time: must be from 1970-01-01T00:00:00.000Z/],
      [1.5, /^time: must be an ISO 8601 time/],
      [JSON.parse('[[[[[1]]]]]'), /^time: must be an ISO 8601 time or ms since the epoch, got \[\[\[\[\[1\]\]\]\]\]$/],
    ]
    for (const [time, message] of cases) {
      const res = await ctl('POST', '/clock', { time })
      expect(res.status, JSON.stringify(time)).toBe(400)
      expect(JSON.parse(res.text).error.message).toMatch(message)
    }
    expect(JSON.parse((await ctl('POST', '/clock', { time: '2030-01-01' })).text).now).toMatch(/^2030-01-01T00:00:00/)
    expect(JSON.parse((await ctl('POST', '/clock', { time: '2030-01-01T02:00:00+02:00' })).text).now).toMatch(/^2030-01-01T00:00:00/)
    await ctl('DELETE', '/clock')
  })

  it('a value nested 10,000 deep is quoted cut short, not overflowing the stack', async () => {
    const deep = `{"time":${'['.repeat(10_000)}${']'.repeat(10_000)}}`
    const res = await send(server.origin, '/_double/clock', deep)
    expect(res.status).toBe(400)
    expect(JSON.parse(res.text).error.message).toMatch(/^time: must be an ISO 8601 time or ms since the epoch, got \[{200}…$/)
  })

  it('a fault delay past what a timer holds is refused', async () => {
    const res = await ctl('POST', '/faults', { kind: 'latency', ms: 2 ** 31 })
    expect(res.status).toBe(400)
    expect(JSON.parse(res.text).error.message).toBe("ms: must be at most 2147483647 (a timer's limit), got 2147483648")
  })

  it('bad percent-encoding in a control path is a 400 in the control shape', async () => {
    for (const [method, path] of [
      ['GET', '/keys/%E0%A4%A'],
      ['PUT', '/keys/%ZZ/networks/ethereum'],
      ['POST', '/snapshots/%/restore'],
      ['DELETE', '/faults/%E0'],
      ['GET', '/networks/%C0%AF'],
    ]) {
      const res = await ctl(method!, path!)
      expect(res.status, path).toBe(400)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(JSON.parse(res.text).error.message, path).toMatch(/^path: bad percent-encoding in "\/_double\//)
    }
  })
})

describe('an exception anywhere', () => {
  it('in the core: a logged 500 -32603 without a stack, and the server serves on', async () => {
    let boom = false
    const logged: string[] = []
    const server = await startServer({
      port: 0,
      clock: {
        now: () => {
          if (boom) throw new RangeError('the clock broke')
          return Date.parse('2030-01-01T00:00:00Z')
        },
      },
      logger: { error: (message, err) => logged.push(`${message}: ${String(err)}`) },
    })
    try {
      boom = true
      const res = await postRpc(server.origin, server.devKey!, BLOCK_NUMBER)
      expect(res.status).toBe(500)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.text).toBe(INTERNAL_500)
      expect(logged).toEqual(['gateway failure: RangeError: the clock broke'])
      boom = false
      const next = await postRpc(server.origin, server.devKey!, BLOCK_NUMBER)
      expect(next.status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('in the transport writing the answer: a logged 500, and the listener serves on', async () => {
    const logged: string[] = []
    let bad = true
    // The listener takes the core's answer from `respond` (at once, or a promise of it).
    const gateway = {
      logger: { error: (message: string, err: unknown) => logged.push(`${message}: ${(err as Error).name}`) },
      respond: () =>
        bad ? { status: 200, headers: { 'x-answer': 'line\nbreak' }, body: 'x' } : { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' },
    } as unknown as Gateway
    const server = createServer(createNodeHandler(gateway))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const res = await send(origin, '/v3/k', '{}')
      expect(res.status).toBe(500)
      expect(res.text).toBe(INTERNAL_500)
      expect(logged).toEqual(['transport failure: TypeError'])
      bad = false
      expect((await send(origin, '/v3/k', '{}')).text).toBe('ok')
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
