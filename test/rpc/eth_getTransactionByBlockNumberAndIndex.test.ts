import { keccak256, parseTransaction, recoverTransactionAddress, serializeTransaction } from 'viem'
import type { TransactionSerializable } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const method = 'eth_getTransactionByBlockNumberAndIndex'
const book = fixtureBook('ethereum')
type Tx = Record<string, string | null | unknown[]>

/** Rebuilds the signed transaction from the RPC object with viem: its hash must be the RPC hash. */
function reserialize(tx: Tx): `0x${string}` {
  const n = (k: string) => BigInt(tx[k] as string)
  const base = { to: tx.to as `0x${string}` | null, nonce: Number(n('nonce')), gas: n('gas'), value: n('value'), data: tx.input as `0x${string}` }
  const fields: TransactionSerializable =
    tx.type === '0x0'
      ? { ...base, type: 'legacy', gasPrice: n('gasPrice'), chainId: tx.chainId ? Number(n('chainId')) : undefined }
      : tx.type === '0x1'
        ? { ...base, type: 'eip2930', gasPrice: n('gasPrice'), chainId: Number(n('chainId')), accessList: tx.accessList as never }
        : { ...base, type: 'eip1559', maxFeePerGas: n('maxFeePerGas'), maxPriorityFeePerGas: n('maxPriorityFeePerGas'), chainId: Number(n('chainId')), accessList: tx.accessList as never }
  const signature =
    tx.type === '0x0' ? { r: tx.r as `0x${string}`, s: tx.s as `0x${string}`, v: n('v') } : { r: tx.r as `0x${string}`, s: tx.s as `0x${string}`, yParity: Number(n('yParity')) }
  return serializeTransaction(fields, signature)
}

describe(method, () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })

  it('returns types 0, 1 and 2 of one block with the fields each type has', async () => {
    const txs = await Promise.all([0, 1, 2].map(async (i) => (await rpc.call(method, ['0x2', `0x${i}`])).result as Tx))
    expect(txs.map((t) => t.type)).toStrictEqual(['0x0', '0x1', '0x2'])
    const common = ['blockHash', 'blockNumber', 'blockTimestamp', 'from', 'gas', 'gasPrice', 'hash', 'input', 'nonce', 'to', 'transactionIndex', 'value', 'type', 'v', 'r', 's']
    expect(Object.keys(txs[0]!).sort()).toStrictEqual([...common, 'chainId'].sort())
    expect(Object.keys(txs[1]!).sort()).toStrictEqual([...common, 'accessList', 'chainId', 'yParity'].sort())
    expect(Object.keys(txs[2]!).sort()).toStrictEqual([...common, 'accessList', 'chainId', 'yParity', 'maxFeePerGas', 'maxPriorityFeePerGas'].sort())
  })

  it('returns, for every transaction of the fixture, a signed transaction that hashes and recovers to itself', async () => {
    for (const t of book.transactions) {
      const tx = (await rpc.call(method, [`0x${t.block.toString(16)}`, `0x${t.index.toString(16)}`])).result as Tx
      expect(tx.hash).toBe(t.hash)
      const serialized = reserialize(tx)
      expect(keccak256(serialized)).toBe(t.hash)
      expect((await recoverTransactionAddress({ serializedTransaction: serialized as never })).toLowerCase()).toBe(tx.from)
      expect(parseTransaction(serialized).nonce).toBe(Number(tx.nonce))
    }
  })

  it('gives the effective gas price of a dynamic-fee transaction in its block', async () => {
    const tx = (await rpc.call(method, ['0x2', '0x2'])).result as Tx
    const baseFee = rpc.chain.byNumber(2n)!.block.header.baseFeePerGas!
    const tip = BigInt(tx.maxPriorityFeePerGas as string)
    const cap = BigInt(tx.maxFeePerGas as string)
    expect(BigInt(tx.gasPrice as string)).toBe(baseFee + tip < cap ? baseFee + tip : cap)
  })

  it('answers null past the last index or block, -32602 for a hash or a malformed index', async () => {
    expect((await rpc.call(method, ['0x2', '0x4'])).result).toBeNull()
    expect((await rpc.call(method, ['0x7', '0x0'])).result).toBeNull()
    expect((await rpc.call(method, ['latest', '0x0'])).result).toMatchObject({ blockNumber: '0x6' })
    expect((await rpc.call(method, ['earliest', '0x0'])).result).toBeNull()
    expect((await rpc.call(method, [rpc.chain.head.hash, '0x0'])).error?.code).toBe(-32602)
    expect((await rpc.call(method, ['0x2', '0x01'])).error?.code).toBe(-32602)
    expect((await rpc.call(method, ['0x2'])).error?.code).toBe(-32602)
  })
})
