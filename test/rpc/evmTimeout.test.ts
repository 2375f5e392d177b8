/**
 * Execution that cannot starve the server, through a real server on the default fixtures:
 * eth_call and eth_estimateGas stop at the time limit with geth's error (`--rpc.evmtimeout`), the
 * block's VM is as it was after a stopped execution, and reads are answered while executions run.
 */
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { goDuration } from '../../src/chain/vm/executionGuard.ts'
import { parseCliArgs, UsageError } from '../../src/cli.ts'
import { ConfigError, parseConfig, parseDuration } from '../../src/gateway/config.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { postRpc } from '../support/wire.ts'

const REVERTER = '0x7a1ed59eb13421e5838bb1bc284cf07d410cf689'
const BURN = Buffer.from(keccak256(Buffer.from('burn(uint256)'))).toString('hex').slice(0, 8)
/** `burn(rounds)`: 2^24 gas buys about 73,000 rounds; a billion runs out of gas, after about 0.6 s here. */
const burn = (rounds: bigint) => `0x${BURN}${rounds.toString(16).padStart(64, '0')}`
const HEAVY = burn(10n ** 9n)
/** Init code: SSTORE(0, 1) and TSTORE(0, 1), then a loop that never ends. */
const WRITE_THEN_LOOP = '0x6001600055600160005d5b600a56'
/** Init code: returns TLOAD(0) and SLOAD(0) as the created code. */
const RETURN_SLOT_0 = '0x60005c60005260005460205260406000f3'

function rpc(method: string, params: unknown[], id: number | string = 1) {
  return { jsonrpc: '2.0', id, method, params }
}

describe('the time limit', () => {
  let server: RunningServer
  const post = async (body: unknown) => JSON.parse((await postRpc(server.origin, server.devKey!, body as object)).text)
  beforeAll(async () => {
    server = await startServer({ port: 0, evmTimeoutMs: 300 })
  })
  afterAll(() => server?.close())

  it('eth_call: -32000 with geth words, charged as any call', async () => {
    const balance = server.gateway.balance(server.devKey!)!
    expect(await post(rpc('eth_call', [{ to: REVERTER, data: HEAVY }]))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'execution aborted (timeout = 300ms)' },
    })
    expect(balance - server.gateway.balance(server.devKey!)!).toBe(80)
    expect(server.control.requestLog().at(-1)!.calls).toEqual([{ method: 'eth_call', credits: 80, outcome: -32000, to: REVERTER.toLowerCase() }])
  })

  it('eth_estimateGas: the limit is for the whole estimate', async () => {
    expect(await post(rpc('eth_estimateGas', [{ to: REVERTER, data: HEAVY }]))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'execution aborted (timeout = 300ms)' },
    })
    // Not kept as the answer: the same estimate runs again (and stops again).
    expect((await post(rpc('eth_estimateGas', [{ to: REVERTER, data: HEAVY }]))).error.message).toBe('execution aborted (timeout = 300ms)')
  })

  it("a stopped execution leaves the block's state as it was", async () => {
    const before = await post(rpc('eth_call', [{ to: REVERTER, data: burn(100n) }]))
    expect(before.result).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await post(rpc('eth_call', [{ data: WRITE_THEN_LOOP }]))).error.message).toBe('execution aborted (timeout = 300ms)')
    // The same sender creates at the same address: the stopped creation's writes are gone (storage and
    // transient storage, whose frames the timeout skipped), no collision.
    expect(await post(rpc('eth_call', [{ data: RETURN_SLOT_0 }]))).toEqual({ jsonrpc: '2.0', id: 1, result: `0x${'0'.repeat(128)}` })
    expect(await post(rpc('eth_call', [{ to: REVERTER, data: burn(100n) }]))).toEqual(before)
    expect((await post(rpc('eth_estimateGas', [{ to: REVERTER, data: burn(100n) }]))).result).toMatch(/^0x[0-9a-f]+$/)
  })

  it('each call of a batch has its own limit', async () => {
    const answers = await post([rpc('eth_call', [{ to: REVERTER, data: HEAVY }], 1), rpc('eth_call', [{ to: REVERTER, data: burn(10n) }], 2), rpc('eth_call', [{ to: REVERTER, data: HEAVY }], 3)])
    expect(answers.map((a: { id: number; error?: { message: string } }) => [a.id, a.error?.message ?? 'ok'])).toEqual([
      [1, 'execution aborted (timeout = 300ms)'],
      [2, 'ok'],
      [3, 'execution aborted (timeout = 300ms)'],
    ])
  })
})

describe('the time limit of a simulation', () => {
  let server: RunningServer
  const post = async (body: unknown) => JSON.parse((await postRpc(server.origin, server.devKey!, body as object)).text)
  beforeAll(async () => {
    // 50 ms: the simulation's calls may burn 50M gas in all (about 2 s here), far past it on any machine.
    server = await startServer({ port: 0, evmTimeoutMs: 50 })
  })
  afterAll(() => server?.close())

  it('eth_simulateV1: one limit for the whole simulation, -32603 as geth’s simulator answers; reads go on', async () => {
    const heavyCall = { to: REVERTER, data: HEAVY }
    const light = { to: REVERTER, data: burn(10n) }
    const simulation = post(rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [light, heavyCall] }, { calls: [heavyCall] }] }]))
    const read = await post(rpc('eth_blockNumber', []))
    expect(read.result).toBe('0x6')
    expect(await simulation).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'execution aborted (timeout = 50ms)' } })
    // Its light call, simulated alone within the limit, runs to its end.
    const ok = await post(rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [light] }] }]))
    expect(ok.result[0].calls[0].status).toBe('0x1')
  })
})

describe('reads while executions run', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, evmTimeoutMs: 0 })
  })
  afterAll(() => server?.close())

  it('eth_blockNumber is answered before heavy calls in flight finish', async () => {
    const order: string[] = []
    const heavy = postRpc(server.origin, server.devKey!, [1, 2, 3].map((id) => rpc('eth_call', [{ to: REVERTER, data: HEAVY }], id))).then((res) => {
      order.push('heavy')
      return JSON.parse(res.text) as { error: { message: string } }[]
    })
    // The server (in this process) must give the event loop turns for this timer to fire.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const read = await postRpc(server.origin, server.devKey!, rpc('eth_blockNumber', []))
    order.push('read')
    expect(JSON.parse(read.text).result).toBe('0x6')
    const answers = await heavy
    expect(order).toEqual(['read', 'heavy'])
    // With no limit, the calls ran to their end: out of gas.
    expect(answers.map((a) => a.error.message)).toEqual(['out of gas', 'out of gas', 'out of gas'])
  })
})

describe('configuring it', () => {
  it("prints durations as Go's %v", () => {
    expect([0, 1, 300, 999, 1000, 1500, 5000, 60_000, 90_000, 3_600_000, 3_725_500].map(goDuration)).toEqual([
      '0s',
      '1ms',
      '300ms',
      '999ms',
      '1s',
      '1.5s',
      '5s',
      '1m0s',
      '1m30s',
      '1h0m0s',
      '1h2m5.5s',
    ])
  })

  it('reads durations as geth flags take them', () => {
    expect(['5s', '500ms', '1.5s', '1m30s', '0', '0s', '2h'].map((d) => parseDuration(d, 'evmTimeout'))).toEqual([5000, 500, 1500, 90_000, 0, 0, 7_200_000])
    for (const bad of ['5', '', 's', '-1s', '1.0005s', '25h', 5000, '5 s']) {
      expect(() => parseDuration(bad, 'evmTimeout'), String(bad)).toThrow(ConfigError)
    }
  })

  it('from the config file and the command line', () => {
    expect(parseConfig({ networks: {}, keys: [], evmTimeout: '1.5s' }, '/').evmTimeoutMs).toBe(1500)
    expect(() => parseConfig({ networks: {}, keys: [], evmTimeout: 5 }, '/')).toThrow('evmTimeout: must be a duration like "5s", "1500ms" or "0" (none), got 5')
    expect(parseCliArgs(['--evm-timeout', '250ms']).evmTimeoutMs).toBe(250)
    expect(() => parseCliArgs(['--evm-timeout', 'soon'])).toThrow(UsageError)
  })
})
