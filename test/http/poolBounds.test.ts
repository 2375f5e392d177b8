/**
 * The transaction pool is bounded in bytes and count (`POOL_LIMITS`, src/chain/pool/txPool.ts),
 * through a real server: transactions of 128 KiB waiting behind a nonce gap fill its 16 MiB, and
 * the next is refused with geth's `txpool is full`, as geth's own answers when it cannot make room.
 * Unbounded before: a sender with funds could pool 128 KiB after 128 KiB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { POOL_LIMITS } from '../../src/chain/pool/txPool.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { account, signed1559 } from '../chain/txSigning.ts'
import { postRpc } from '../support/wire.ts'

const KEY = 'feedfacefeedfacefeedfacefeedface'
const bob = account('bob').address

describe('the pool bound through a real server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, keys: [{ key: KEY, networks: ['ethereum'], dailyCredits: 1_000_000_000 }] })
  })
  afterAll(() => server?.close())

  const rpc = async (method: string, params: unknown[]) => {
    const res = await postRpc(server.origin, KEY, { jsonrpc: '2.0', id: 1, method, params })
    expect(res.status).toBe(200)
    return JSON.parse(res.text) as { result?: unknown; error?: { code: number; message: string } }
  }

  it('transactions of 128 KiB behind a nonce gap fill 16 MiB; the next: -32000 txpool is full', async () => {
    const chain = server.gateway.networks.get('ethereum')!.chain
    const nonce = BigInt((await rpc('eth_getTransactionCount', [account('alice').address, 'latest'])).result as string)
    // Zero bytes of data: 10 gas each under EIP-7623's floor.
    const big = (i: number) =>
      signed1559(chain, 'alice', { nonce: nonce + 1n + BigInt(i), to: bob, gasLimit: 1_400_000n, data: new Uint8Array(130_900) })
    const size = (big(0).length - 2) / 2
    const fit = Math.floor(POOL_LIMITS.maxBytes / size)
    for (let i = 0; i < fit; i++) expect((await rpc('eth_sendRawTransaction', [big(i)])).result).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await rpc('txpool_status', [])).toMatchObject({ result: { pending: '0x0', queued: `0x${fit.toString(16)}` } })
    expect((await rpc('eth_sendRawTransaction', [big(fit)])).error).toEqual({ code: -32000, message: 'txpool is full' })
    // A replacement takes no more room: it is pooled in place of the one it outbids.
    const bump = signed1559(chain, 'alice', { nonce: nonce + 1n, to: bob, gasLimit: 1_400_000n, maxFeePerGas: 2n * 10n ** 10n, maxPriorityFeePerGas: 2n * 10n ** 9n, data: new Uint8Array(130_900) })
    expect((await rpc('eth_sendRawTransaction', [bump])).result).toMatch(/^0x/)
  })
})
