/**
 * The Chain's mining controls from the library side: the clock, safe/finalized as blocks are
 * mined, snapshots (restoring an earlier one, then a later one again), BLOCKHASH after a restore,
 * and misuse.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import type { ChainSnapshot } from '../../src/chain/snapshot.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { clientFor } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'
import { account, signed1559 } from './txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const bob = account('bob').address
/** Init code returning BLOCKHASH(NUMBER - 1): NUMBER PUSH1 1 SWAP1 SUB BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const PARENT_HASH_CODE = '0x43600190034060005260206000f3'

describe('Chain mining controls', () => {
  let chain: Chain
  let rpc: RpcClient
  let start: ChainSnapshot
  let nowMs = 0
  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => nowMs }, miningMode: 'manual' })
    rpc = clientFor(chain)
    start = chain.snapshot()
  })
  beforeEach(async () => {
    nowMs = 0
    await chain.restore(start)
  })

  it('takes the loader’s mining mode and clock: the timestamp is the clock’s second once it is past the parent’s', async () => {
    expect(chain.miningMode).toBe('manual')
    const parent = chain.head.timestamp
    expect((await chain.mine()).timestamp).toBe(parent + 1n)
    nowMs = Number(parent + 100n) * 1000 + 999
    expect((await chain.mine()).timestamp).toBe(parent + 100n)
    chain.setClock({ now: () => Number(parent + 500n) * 1000 })
    expect((await chain.mine()).timestamp).toBe(parent + 500n)
    chain.setClock({ now: () => nowMs })
  })

  it('safe and finalized keep the fixture’s distance behind the head as blocks are mined', async () => {
    const lagSafe = chain.head.number - chain.safeNumber
    const lagFinalized = chain.head.number - chain.finalizedNumber
    await chain.mine()
    await chain.mine()
    expect(chain.head.number - chain.safeNumber).toBe(lagSafe)
    expect(chain.head.number - chain.finalizedNumber).toBe(lagFinalized)
    await chain.restore(start)
    expect(chain.head.number - chain.safeNumber).toBe(lagSafe)
  })

  it('a snapshot stays valid: restore an earlier one, then the later one again', async () => {
    await chain.mine()
    const later = chain.snapshot()
    const laterHead = chain.head.hash
    await chain.restore(start)
    // The same empty block again would be the same block (mining is deterministic): move the clock.
    nowMs = Number(chain.head.timestamp + 10n) * 1000
    await chain.mine()
    expect(chain.head.hash).not.toBe(laterHead)
    await chain.restore(later)
    expect(chain.head.hash).toBe(laterHead)
    expect(chain.byHash(laterHead)).toBe(chain.head)
    expect(later.headNumber).toBe(chain.head.number)
  })

  it('BLOCKHASH reads the blocks mined after a restore, not the discarded ones', async () => {
    const parentHash = async () => (await rpc.call('eth_call', [{ data: PARENT_HASH_CODE }, 'latest'])).result
    await chain.mine()
    const discarded = chain.head.hash
    await chain.mine()
    expect(await parentHash()).toBe(discarded)
    await chain.restore(start)
    nowMs = Number(chain.head.timestamp + 50n) * 1000
    await chain.mine()
    const kept = chain.head.hash
    await chain.mine()
    expect(kept).not.toBe(discarded)
    expect(await parentHash()).toBe(kept)
  })

  it('a pooled transaction is mined by mine() with the clock’s timestamp', async () => {
    const nonce = BigInt((await rpc.call('eth_getTransactionCount', [account('alice').address])).result as string)
    const hash = (await rpc.call('eth_sendRawTransaction', [signed1559(chain, 'alice', { nonce, to: bob, value: 1n })])).result
    expect(chain.pending.map((p) => p.hash)).toEqual([hash])
    expect(chain.pending[0]!.json).toMatchObject({ hash, blockHash: null, blockNumber: null, transactionIndex: null })
    const block = await chain.mine()
    expect(block.transactions.map((t) => t.hash)).toEqual([hash])
    expect(chain.pending).toEqual([])
  })

  it('refuses a snapshot of another chain and an unknown mining mode', async () => {
    const other = await chain.fork('other')
    await expect(chain.restore(other.snapshot())).rejects.toThrow('snapshot was taken of chain other, not ethereum')
    expect(() => chain.setMiningMode('instant' as 'auto')).toThrow("mining mode must be 'auto' or 'manual', got instant")
  })
})
