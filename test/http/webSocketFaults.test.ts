/**
 * Scripted faults on WebSocket connections, through a real server and a real `ws` client: an
 * upgrade refused as the POST would be (a status and body), and on a message the socket's form
 * of each kind (error frames under the call's id, a severed socket, a close with a code, a
 * terminated connection, no answer, a delay); `transport` keeping HTTP and WebSocket apart.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { CHAINS, DEV_KEY, call, fakeRpc, keys } from '../gateway/helpers.ts'
import { openSocket, refusedUpgrade } from '../support/socket.ts'
import { postRpc } from '../support/wire.ts'

const servers: RunningServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve() {
  const server = await startServer({ port: 0, chains: CHAINS, keys: keys(), rpc: fakeRpc(), control: true })
  servers.push(server)
  return server
}

const ELB_503 = '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n</body>\r\n</html>\r\n'

describe('faults on the upgrade', () => {
  it('serverError, rateLimit, dailyLimit refuse the upgrade as they answer a POST; transport ws leaves HTTP alone', async () => {
    const server = await serve()
    server.control.addFault({ kind: 'serverError', transport: 'ws', times: 1 })
    expect(await postRpc(server.origin, DEV_KEY, call('eth_chainId'))).toMatchObject({ status: 200 })
    const refused = await refusedUpgrade(server.wsUrls.ethereum!)
    expect([refused.status, refused.headers['content-type'], refused.headers.server, refused.body]).toEqual([503, 'text/html', 'awselb/2.0', ELB_503])
    server.control.addFault({ kind: 'rateLimit', transport: 'ws', times: 1, retryAfter: 3 })
    const limited = await refusedUpgrade(server.wsUrls.ethereum!)
    expect([limited.status, limited.headers['retry-after'], JSON.parse(limited.body).error.event]).toEqual([429, '3', -33200])
    server.control.addFault({ kind: 'dailyLimit', transport: 'ws', times: 1 })
    expect((await refusedUpgrade(server.wsUrls.ethereum!)).status).toBe(402)
    // Spent: the next upgrade goes through, and nothing was charged.
    await (await openSocket(server.wsUrls.ethereum!)).close()
    expect(server.gateway.balance(DEV_KEY)).toBe(3_000_000 - 5)
    expect(server.control.requestLog().filter((e) => e.transport === 'ws').map((e) => [e.status, e.fault])).toEqual([
      [503, 'serverError'],
      [429, 'rateLimit'],
      [402, 'dailyLimit'],
      [101, null],
    ])
  })

  it('drop destroys the upgrade\'s connection with no answer', async () => {
    const server = await serve()
    server.control.addFault({ kind: 'drop', transport: 'ws', times: 1 })
    await expect(openSocket(server.wsUrls.ethereum!)).rejects.toThrow(/socket hang up|ECONNRESET/)
    expect(server.control.requestLog().map((e) => [e.transport, e.status, e.fault])).toEqual([['ws', null, 'drop']])
  })

  it('a method filter never matches an upgrade: the fault waits for a message', async () => {
    const server = await serve()
    server.control.addFault({ kind: 'rateLimit', method: 'eth_blockNumber', times: 1 })
    const socket = await openSocket(server.wsUrls.ethereum!)
    expect(await socket.call(call('eth_chainId', [], 1))).toMatchObject({ result: '0x1' })
    expect(await socket.call(call('eth_blockNumber', [], 2))).toMatchObject({ id: 2, error: { code: 429 } })
    expect(await socket.call(call('eth_blockNumber', [], 3))).toMatchObject({ id: 3, result: '0x15' })
  })
})

describe('faults on messages', () => {
  async function faultedSocket(fault: Parameters<RunningServer['control']['addFault']>[0]) {
    const server = await serve()
    const socket = await openSocket(server.wsUrls.ethereum!)
    server.control.addFault({ transport: 'ws', method: 'eth_blockNumber', times: 1, ...fault })
    return { server, socket }
  }

  it('rateLimit and serverError: error frames under each id, nothing charged, the socket open', async () => {
    const { server, socket } = await faultedSocket({ kind: 'rateLimit' })
    expect(await socket.call([call('eth_blockNumber', [], 1), call('eth_chainId', [], 2)])).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: 429, event: -33200 }) },
      { jsonrpc: '2.0', id: 2, error: expect.objectContaining({ code: 429, event: -33200 }) },
    ])
    server.control.addFault({ kind: 'serverError', status: 502, transport: 'ws', times: 1 })
    expect(await socket.call(call('eth_blockNumber', [], 3))).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'internal error' } })
    expect(await socket.call(call('eth_blockNumber', [], 4))).toMatchObject({ result: '0x15' })
    expect(server.gateway.balance(DEV_KEY)).toBe(3_000_000 - 80)
    expect(server.control.requestLog().filter((e) => e.socket?.stage === 'message').map((e) => [e.status, e.fault])).toEqual([
      [429, 'rateLimit'],
      [502, 'serverError'],
      [200, null],
    ])
  })

  it('dailyLimit severs this socket (final 402 frame, 1008); the ledger is untouched and the key reconnects', async () => {
    const { server, socket } = await faultedSocket({ kind: 'dailyLimit' })
    expect(await socket.call(call('eth_blockNumber', [], 7))).toMatchObject({ id: 7, error: { code: 402, event: -33000 } })
    expect(await socket.closed).toEqual({ code: 1008, reason: 'daily credit limit reached' })
    expect(server.gateway.balance(DEV_KEY)).toBe(3_000_000)
    await (await openSocket(server.wsUrls.ethereum!)).close()
  })

  it('close: the socket closed with the fault\'s code and reason (default 1001)', async () => {
    const { server, socket } = await faultedSocket({ kind: 'close', code: 4000, reason: 'node restarted' })
    socket.send(call('eth_blockNumber'))
    expect(await socket.closed).toEqual({ code: 4000, reason: 'node restarted' })
    server.control.addFault({ kind: 'close' })
    const second = await openSocket(server.wsUrls.ethereum!)
    second.send(call('eth_chainId'))
    expect(await second.closed).toEqual({ code: 1001, reason: '' })
    expect(server.control.requestLog().filter((e) => e.socket?.stage === 'message').map((e) => [e.status, e.fault])).toEqual([
      [null, 'close'],
      [null, 'close'],
    ])
  })

  it('drop: the connection terminated (the client sees 1006)', async () => {
    const { socket } = await faultedSocket({ kind: 'drop' })
    socket.send(call('eth_blockNumber'))
    expect((await socket.closed).code).toBe(1006)
  })

  it('timeout leaves the message unanswered; latency answers it late; later messages are not held', async () => {
    const { server, socket } = await faultedSocket({ kind: 'timeout' })
    socket.send(call('eth_blockNumber', [], 1))
    expect(await socket.call(call('eth_chainId', [], 2))).toMatchObject({ id: 2 })
    server.control.addFault({ kind: 'latency', ms: 300, transport: 'ws', times: 1, method: 'eth_blockNumber' })
    socket.send(call('eth_blockNumber', [], 3))
    expect(await socket.call(call('eth_chainId', [], 4))).toMatchObject({ id: 4 })
    expect(await socket.next()).toMatchObject({ id: 3, result: '0x15' })
    expect(socket.pending).toEqual([])
  })

  it('close and stall exist on sockets only: refused with transport http', async () => {
    const server = await serve()
    expect(() => server.control.addFault({ kind: 'close', transport: 'http' })).toThrow('transport: close faults apply to WebSocket connections only (transport ws), not http')
    expect(() => server.control.addFault({ kind: 'stall', ms: 10, transport: 'http' })).toThrow('transport: stall faults apply')
    expect(() => server.control.addFault({ kind: 'stall' })).toThrow('ms: a stall fault needs ms')
    expect(() => server.control.addFault({ kind: 'close', code: 1006 })).toThrow('code: must be a close code a server may send')
    expect(() => server.control.addFault({ kind: 'close', reason: 'é'.repeat(62) })).toThrow('reason: must be a string of at most 123 bytes')
    expect(() => server.control.addFault({ kind: 'drop', transport: 'tcp' as 'ws' })).toThrow('transport: must be one of http, ws')
    // A close fault without transport never fires on HTTP.
    server.control.addFault({ kind: 'close' })
    expect(await postRpc(server.origin, DEV_KEY, call('eth_chainId'))).toMatchObject({ status: 200 })
    expect(server.control.faults()[0]!.fired).toBe(0)
  })
})
