/**
 * eth_createAccessList on the default ethereum fixture, through the wire: the list a token transfer
 * needs (the token's two balance slots, never the sender or recipient), which, sent back, comes
 * back the same; the gas is what a transaction carrying the list uses when mined; a reverting call
 * keeps its list and says why; geth's refusals in its words.
 */
import { bytesToHex } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { signed1559 } from '../chain/txSigning.ts'
import { fixtureBook } from '../support/fixtureBook.ts'
import { clientFor } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const book = fixtureBook('ethereum')
const TOKEN = book.address('token')
const alice = book.address('alice')
const bob = book.address('bob')
const dave = book.address('dave')
const word = (n: bigint) => n.toString(16).padStart(64, '0')
const balanceSlot = (holder: string) => bytesToHex(keccak256(Uint8Array.from(Buffer.from(`${holder.slice(2).padStart(64, '0')}${'00'.repeat(32)}`, 'hex'))))
const transfer = (to: string, amount: bigint) => `0xa9059cbb${word(BigInt(to))}${word(amount)}` as const

interface Answer {
  accessList: { address: `0x${string}`; storageKeys: `0x${string}`[] }[]
  gasUsed: string
  error?: string
}

describe('eth_createAccessList', () => {
  let chain: Chain
  let rpc: RpcClient
  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: { now: () => 0 } })
    rpc = clientFor(chain)
  })
  const answer = async (params: unknown[]): Promise<Answer> => {
    const res = await rpc.call('eth_createAccessList', params)
    if (res.error) throw new Error(JSON.stringify(res.error))
    return res.result as Answer
  }

  it('lists the token’s two balance slots of a transfer, never the sender or the recipient', async () => {
    const call = { from: alice, to: TOKEN, data: transfer(bob, 10n ** 18n) }
    const first = await answer([call])
    expect(first.accessList).toEqual([{ address: TOKEN, storageKeys: [balanceSlot(alice), balanceSlot(bob)].sort() }])
    expect(first.error).toBeUndefined()
    // Sent back, the list settles: the same list and gas.
    expect(await answer([{ ...call, accessList: first.accessList }])).toEqual(first)
  })

  it('answers the gas a transaction carrying the list uses once mined', async () => {
    const fork = await chain.fork('al')
    const forkRpc = clientFor(fork)
    const call = { from: alice, to: TOKEN, data: transfer(dave, 3n * 10n ** 18n) }
    const { accessList, gasUsed } = (await forkRpc.call('eth_createAccessList', [call])).result as Answer
    const nonce = BigInt((await forkRpc.call('eth_getTransactionCount', [alice])).result as string)
    const raw = signed1559(fork, 'alice', { nonce, to: TOKEN, data: call.data, gasLimit: 100_000n, accessList })
    const hash = (await forkRpc.call('eth_sendRawTransaction', [raw])).result as string
    const receipt = (await forkRpc.call('eth_getTransactionReceipt', [hash])).result as { gasUsed: string; status: string }
    expect(receipt).toMatchObject({ status: '0x1', gasUsed })
  })

  it('keeps the list of a call that reverts, and says why', async () => {
    const overdraft = { from: dave, to: TOKEN, data: transfer(bob, 10n ** 30n) }
    const result = await answer([overdraft, 'latest'])
    expect(result.error).toBe('execution reverted')
    expect(result.accessList).toEqual([{ address: TOKEN, storageKeys: [balanceSlot(dave)] }])
    expect(BigInt(result.gasUsed)).toBeGreaterThan(21_000n)
  })

  it('answers an empty list for a plain transfer and a call to a precompile', async () => {
    expect(await answer([{ from: alice, to: bob, value: '0x1' }])).toEqual({ accessList: [], gasUsed: '0x5208' })
    expect((await answer([{ from: alice, to: '0x0000000000000000000000000000000000000002', data: '0x1234' }])).accessList).toEqual([])
  })

  it('refuses as geth does', async () => {
    const error = async (params: unknown[]) => (await rpc.call('eth_createAccessList', params)).error
    const broke = await error([{ from: dave, to: bob, value: `0x${(10n ** 30n).toString(16)}` }])
    expect(broke?.code).toBe(-32000)
    expect(broke?.message).toMatch(/^failed to apply transaction: 0x[0-9a-f]{64} err: insufficient funds for gas \* price \+ value: address 0x[0-9a-fA-F]{40} have \d+ want \d+$/)
    expect(await error([{ from: alice, to: bob, gasPrice: '0x1', maxFeePerGas: '0x2' }])).toEqual({ code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' })
    expect(await error([{ from: alice, to: bob, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }])).toEqual({ code: -32000, message: 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)' })
    expect(await error([{ from: alice, to: bob }, '0xffff'])).toEqual({ code: -32000, message: 'header not found' })
  })

  it('takes state overrides, as eth_call does', async () => {
    // Dave's balance of the token overridden to 10^30: the overdraft now succeeds.
    const overdraft = { from: dave, to: TOKEN, data: transfer(bob, 10n ** 30n) }
    const state = { [TOKEN]: { stateDiff: { [balanceSlot(dave)]: `0x${word(10n ** 30n)}` } } }
    const result = await answer([overdraft, 'latest', state])
    expect(result.error).toBeUndefined()
    expect(result.accessList[0]!.storageKeys).toEqual([balanceSlot(bob), balanceSlot(dave)].sort())
  })
})
