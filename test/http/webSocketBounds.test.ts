/**
 * A WebSocket connection's bounds through a real server and a real `ws` client: a message over
 * the size limit (1009), a client that does not read (terminated, its buffer freed), a peer that
 * does not answer pings (terminated), an idle connection (1000), many messages in flight, many bytes
 * in flight, subscriptions' criteria past their bytes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer, StartServerOptions } from '../../src/http/server.ts'
import type { RpcBackend } from '../../src/gateway/gateway.ts'
import { CHAINS, call, fakeRpc, keys } from '../gateway/helpers.ts'
import { openSocket, until } from '../support/socket.ts'

const servers: RunningServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(opts: Partial<StartServerOptions> = {}) {
  const server = await startServer({ port: 0, chains: CHAINS, keys: keys(), rpc: fakeRpc(), control: true, ...opts })
  servers.push(server)
  return server
}

/** Answers `eth_big` with a string of 256 KiB, anything else as the fake backend does. */
function bigRpc(): RpcBackend {
  const base = fakeRpc()
  const big = 'x'.repeat(256 * 1024)
  return {
    isSupportedMethod: (m) => m === 'eth_big' || base.isSupportedMethod(m),
    execute: async (ctx, request) => (request.method === 'eth_big' ? { jsonrpc: '2.0', id: request.id, result: big } : base.execute(ctx, request)),
  }
}

/** Answers `eth_text` [n, char] with `char` n times. */
function textRpc(): RpcBackend {
  const base = fakeRpc()
  return {
    isSupportedMethod: (m) => m === 'eth_text' || base.isSupportedMethod(m),
    execute: async (ctx, request) => {
      if (request.method !== 'eth_text') return base.execute(ctx, request)
      const [n, char] = request.params as [number, string]
      return { jsonrpc: '2.0', id: request.id, result: char.repeat(n) }
    },
  }
}

describe('WebSocket bounds', () => {
  it('frames of every length its header can say (7 bits, 16, 64) arrive whole, multi-byte text included', async () => {
    const server = await serve({ rpc: textRpc() })
    const socket = await openSocket(server.wsUrls.ethereum!)
    // {"jsonrpc":"2.0","id":1,"result":""} is 36 bytes: answers of 125, 126, 65,535 and 65,536 bytes, then 2-byte characters across the same bounds.
    for (const [n, char] of [[89, 'x'], [90, 'x'], [65_499, 'x'], [65_500, 'x'], [44, 'é'], [45, 'é'], [32_749, 'é'], [32_750, 'é'], [100_000, '€']] as const) {
      socket.send(call('eth_text', [n, char], 1))
      const text = await socket.nextText()
      expect(text.length).toBe(36 + n)
      expect(text).toBe(JSON.stringify({ jsonrpc: '2.0', id: 1, result: char.repeat(n) }))
    }
    // A refusal's frame (made as text by the gateway) too.
    socket.send({ jsonrpc: '2.0', id: 2, method: 'eth_nope' })
    expect(JSON.parse(await socket.nextText())).toMatchObject({ id: 2, error: { code: -32601 } })
  })

  it('a message over maxMessageBytes closes the connection with 1009', async () => {
    const server = await serve({ sockets: { maxMessageBytes: 1024 } })
    const socket = await openSocket(server.wsUrls.ethereum!)
    expect(await socket.call(call('eth_chainId'))).toMatchObject({ result: '0x1' })
    socket.send(JSON.stringify(call('eth_chainId', ['x'.repeat(2000)])))
    expect((await socket.closed).code).toBe(1009)
    await until(() => server.gateway.sockets.length === 0)
  })

  it('a client that does not read is terminated once its unsent frames pass maxBufferedBytes', async () => {
    const server = await serve({ rpc: bigRpc(), sockets: { maxBufferedBytes: 1024 * 1024 } })
    const socket = await openSocket(server.wsUrls.ethereum!)
    socket.ws.pause()
    // 64 answers of 256 KiB: 16 MiB, more than the kernel's buffers and the 1 MiB bound.
    for (let i = 0; i < 64; i++) socket.send(call('eth_big', [], i))
    await until(() => server.gateway.sockets.length === 0, 10_000, 'the session to end')
    socket.ws.resume()
    expect((await socket.closed).code).toBe(1006)
    const answered = server.control.requestLog().filter((e) => e.socket?.stage === 'message')
    expect(answered.length).toBeGreaterThan(0)
  })

  it('a peer that does not answer pings is terminated; one that does stays', async () => {
    const server = await serve({ sockets: { pingIntervalMs: 50 } })
    const mute = await openSocket(server.wsUrls.ethereum!, { autoPong: false })
    const live = await openSocket(server.wsUrls.ethereum!)
    expect((await mute.closed).code).toBe(1006)
    await new Promise((r) => setTimeout(r, 200))
    expect(await live.call(call('eth_chainId'))).toMatchObject({ result: '0x1' })
  })

  it('an idle connection is closed 1000 idle timeout; one that talks is not', async () => {
    const server = await serve({ sockets: { idleMs: 400 } })
    const idle = await openSocket(server.wsUrls.ethereum!)
    const busy = await openSocket(server.wsUrls.ethereum!)
    const closed = idle.closed
    let open = true
    void closed.then(() => (open = false))
    while (open) expect(await busy.call(call('eth_chainId'))).toMatchObject({ result: '0x1' })
    expect(await closed).toEqual({ code: 1000, reason: 'idle timeout' })
    expect(await busy.call(call('eth_chainId'))).toMatchObject({ result: '0x1' })
  })

  it('answers every message of a burst past maxInFlight (reading pauses, nothing is lost)', async () => {
    const server = await serve({ sockets: { maxInFlight: 2 } })
    const socket = await openSocket(server.wsUrls.ethereum!)
    for (let i = 0; i < 50; i++) socket.send(call('eth_chainId', [], i))
    const ids = new Set<unknown>()
    for (let i = 0; i < 50; i++) ids.add(((await socket.next()) as { id: unknown }).id)
    expect(ids.size).toBe(50)
  })

  it('stops reading past maxInFlightBytes until answers go out (nothing lost)', async () => {
    // eth_hold's answers wait until released: what the backend has received is what was read.
    const base = fakeRpc()
    const received: number[] = []
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const rpc: RpcBackend = {
      isSupportedMethod: (m) => m === 'eth_hold' || base.isSupportedMethod(m),
      execute: async (ctx, request) => {
        if (request.method !== 'eth_hold') return base.execute(ctx, request)
        received.push(request.id as number)
        await released
        return { jsonrpc: '2.0', id: request.id, result: null }
      },
    }
    const server = await serve({ rpc, sockets: { maxInFlightBytes: 1024 * 1024 } })
    const socket = await openSocket(server.wsUrls.ethereum!)
    // Ten messages of 300 KiB: four are read (1.2 MiB in flight), then reading waits.
    const padding = 'x'.repeat(300 * 1024)
    for (let i = 0; i < 10; i++) socket.send({ ...call('eth_hold', [padding], i) })
    await until(() => received.length >= 4)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(received).toEqual([0, 1, 2, 3])
    release()
    const ids = new Set<unknown>()
    for (let i = 0; i < 10; i++) ids.add(((await socket.next()) as { id: unknown }).id)
    expect(ids.size).toBe(10)
    expect(received).toHaveLength(10)
  })
})

describe('WebSocket subscription bytes, on the default fixture', () => {
  it('eth_subscribe past maxSubscriptionBytes (16 MiB of criteria a connection) is refused with -32005', async () => {
    const server = await serve({ chains: undefined, keys: undefined, rpc: undefined, control: false })
    const socket = await openSocket(server.wsUrls.ethereum!)
    // The largest criteria eth_subscribe takes: 1,000 addresses, 4 positions of 1,000 topics.
    const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`
    const topic = (i: number) => `0x${i.toString(16).padStart(64, '0')}`
    const criteria = {
      address: Array.from({ length: 1000 }, (_, i) => address(i)),
      topics: Array.from({ length: 4 }, (_, p) => Array.from({ length: 1000 }, (_, i) => topic(p * 1000 + i))),
    }
    const answers: { result?: string; error?: { code: number; message: string } }[] = []
    for (let i = 0; i < 45; i++) {
      socket.send(call('eth_subscribe', ['logs', criteria], i))
      answers.push((await socket.next()) as (typeof answers)[number])
    }
    const taken = answers.filter((a) => a.result !== undefined).length
    // 256 + 64 x 1,000 + 88 x 4,000 bytes each: 40 fit in 16 MiB.
    expect(taken).toBe(40)
    expect(answers[40]!.error).toEqual({ code: -32005, message: 'subscriptions on this connection too large (limit 16777216 bytes of criteria)' })
    // Unsubscribing gives the room back.
    socket.send(call('eth_unsubscribe', [answers[0]!.result], 100))
    expect(await socket.next()).toMatchObject({ id: 100, result: true })
    socket.send(call('eth_subscribe', ['logs', criteria], 101))
    expect(await socket.next()).toMatchObject({ id: 101, result: expect.stringMatching(/^0x/) })
  })
})
