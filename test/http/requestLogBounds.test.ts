/**
 * The request log through a real server: a stream of maximal requests (5 MiB method names) keeps
 * the heap flat, each logged with its method cut; and the requests the transport refuses before
 * the core reads them (a body over 5 MiB, malformed HTTP) have their entry too, as the log promises
 * one per request.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOGGED_TEXT_MAX } from '../../src/gateway/requestLog.ts'
import { MAX_BODY_BYTES } from '../../src/http/nodeHandler.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { gc } from '../support/heap.ts'
import { postRpc, send } from '../support/wire.ts'

/** Writes raw bytes on a fresh connection and reads until the server closes it. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let text = ''
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
  })
}

describe('the request log through a real server', () => {
  let server: RunningServer
  const log = () => server.control.requestLog()
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server?.close())

  it('a stream of 5 MiB method names: each answered and logged cut, the heap flat', async () => {
    const method = (i: number) => `eth_${String(i).padStart(4, '0')}${'x'.repeat(MAX_BODY_BYTES - 100)}`
    const body = (i: number) => `{"jsonrpc":"2.0","id":1,"method":"${method(i)}","params":[]}`
    const first = await postRpc(server.origin, server.devKey!, body(0))
    expect(first.status).toBe(400)
    expect(JSON.parse(first.text).error.code).toBe(-32601)
    gc()
    const before = process.memoryUsage().heapUsed
    const balance = server.gateway.balance(server.devKey!)!
    for (let i = 1; i <= 60; i++) expect((await postRpc(server.origin, server.devKey!, body(i))).status).toBe(400)
    gc()
    gc()
    // 60 requests of 5 MiB; what the log keeps of them is 60 short strings.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(32 * 1024 * 1024)
    expect(balance - server.gateway.balance(server.devKey!)!).toBe(60 * 160)
    const last = log().at(-1)!
    expect(last.calls).toEqual([{ method: `${method(60).slice(0, LOGGED_TEXT_MAX)}…(${method(60).length} characters)`, credits: 160, outcome: -32601 }])
    expect(last.status).toBe(400)
  })

  it('a body over 5 MiB: 413, logged with its key and network, nothing charged', async () => {
    const balance = server.gateway.balance(server.devKey!)
    const res = await postRpc(server.origin, server.devKey!, Buffer.alloc(MAX_BODY_BYTES + 1, 0x20))
    expect(res.status).toBe(413)
    expect(log().at(-1)).toMatchObject({ key: server.devKey, network: 'ethereum', batch: false, calls: [], credits: 0, status: 413, fault: null })
    expect(server.gateway.balance(server.devKey!)).toBe(balance)
    const elsewhere = await send(server.origin, '/v3/some-key', Buffer.alloc(MAX_BODY_BYTES + 1, 0x20), { host: 'optimism-mainnet.localhost' })
    expect(elsewhere.status).toBe(413)
    expect(log().at(-1)).toMatchObject({ key: 'some-key', network: null, status: 413 })
  })

  it('malformed HTTP: Node answers 400 (431 for oversized headers), and the log has the entry', async () => {
    const seq = server.control.requestLog().at(-1)?.seq ?? 0
    const bad = await rawExchange(server.port, 'POST /v3/k HTTP/1.1\r\nHost: ethereum-mainnet.localhost\r\nthis is no header\r\n\r\n')
    expect(bad).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
    const big = await rawExchange(server.port, `POST /v3/k HTTP/1.1\r\nHost: ethereum-mainnet.localhost\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`)
    expect(big).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n')
    const entries = server.control.requestLog({ since: seq })
    expect(entries.map((e) => [e.key, e.network, e.status, e.calls.length, e.credits])).toEqual([
      [null, null, 400, 0, 0],
      [null, null, 431, 0, 0],
    ])
    // The server serves on.
    expect((await postRpc(server.origin, server.devKey!, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).status).toBe(200)
  })
})
