/**
 * eth_sendRawTransaction over HTTP on the default ethereum fixture: real signed transactions mined
 * into new blocks that every read method sees, geth's pool errors (each message pinned once),
 * geth's decoding errors for garbage, manual mining, snapshots and forks.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, concatBytes, hexToBytes, toChecksumAddress } from '@ethereumjs/util'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Chain } from '../../src/chain/chain.ts'
import type { ChainSnapshot } from '../../src/chain/snapshot.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { clientFor } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'
import { account, encoded, signed1559, signedLegacy } from '../chain/txSigning.ts'

const method = 'eth_sendRawTransaction'
const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const ETHER = 10n ** 18n
const GWEI = 10n ** 9n
const q = (n: bigint | number) => `0x${n.toString(16)}`
const alice = account('alice').address
const bob = account('bob').address
const carol = account('carol').address
const TOKEN = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'
const REVERTER = '0x7a1ed59eb13421e5838bb1bc284cf07d410cf689'
const REVERT_WITH_REASON = '0x5b2dd100' as const
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
/** A fixed clock before the fixture's timestamps: mined blocks are one second apart. */
const CLOCK = { now: () => 0 }

function transferCall(to: string, amount: bigint): `0x${string}` {
  return `0xa9059cbb${to.slice(2).padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`
}

describe(method, () => {
  let chain: Chain
  let rpc: RpcClient
  let start: ChainSnapshot
  let aliceNonce: bigint
  beforeAll(async () => {
    chain = await loadFixture(FIXTURE, { name: 'ethereum', clock: CLOCK })
    rpc = clientFor(chain)
    start = chain.snapshot()
  })
  beforeEach(async () => {
    await chain.restore(start)
    aliceNonce = BigInt(await result('eth_getTransactionCount', [alice]))
  })

  async function result(m: string, params: unknown[]): Promise<string> {
    const res = await rpc.call(m, params)
    if (res.error) throw new Error(`${m}: ${JSON.stringify(res.error)}`)
    return res.result as string
  }
  async function refusal(raw: unknown): Promise<{ code: number; message: string }> {
    const res = await rpc.call(method, [raw])
    if (!res.error) throw new Error(`accepted: ${JSON.stringify(res.result)}`)
    return res.error
  }
  const send = (raw: string) => result(method, [raw])
  const balance = async (who: string) => BigInt(await result('eth_getBalance', [who, 'latest']))

  describe('a transfer', () => {
    it('is mined into a new block at once, which every read sees', async () => {
      const head = chain.head.number
      const bobBefore = await balance(bob)
      const raw = signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: ETHER })
      const hash = await send(raw)
      expect(hash).toBe(bytesToHex(keccak256(hexToBytes(raw as `0x${string}`))))

      expect(await result('eth_blockNumber', [])).toBe(q(head + 1n))
      const receipt = (await rpc.call('eth_getTransactionReceipt', [hash])).result as Record<string, unknown>
      expect(receipt).toMatchObject({ status: '0x1', blockNumber: q(head + 1n), transactionIndex: '0x0', gasUsed: '0x5208', from: alice, to: bob })
      const block = (await rpc.call('eth_getBlockByNumber', ['latest', true])).result as Record<string, unknown>
      expect(block.hash).toBe(receipt.blockHash)
      expect(block.parentHash).toBe(chain.byNumber(head)!.hash)
      expect((block.transactions as { hash: string }[]).map((t) => t.hash)).toEqual([hash])
      expect(BigInt(block.timestamp as string)).toBe(chain.byNumber(head)!.timestamp + 1n)
      expect(block.baseFeePerGas).toBe(q(chain.byNumber(head)!.block.header.calcNextBaseFee()))
      expect(block).toMatchObject({ withdrawals: [], blobGasUsed: '0x0', parentBeaconBlockRoot: `0x${'0'.repeat(64)}` })
      expect((await rpc.call('eth_getBlockByHash', [block.hash, false])).result).toMatchObject({ number: q(head + 1n) })
      expect((await rpc.call('eth_getTransactionByHash', [hash])).result).toMatchObject({ blockHash: block.hash, nonce: q(aliceNonce) })

      expect(await balance(bob)).toBe(bobBefore + ETHER)
      expect(await result('eth_getTransactionCount', [alice, 'latest'])).toBe(q(aliceNonce + 1n))
      expect(await result('eth_getTransactionCount', [alice, 'pending'])).toBe(q(aliceNonce + 1n))
      // The block before still reads as it was.
      expect(BigInt(await result('eth_getBalance', [bob, q(head)]))).toBe(bobBefore)
    })

    it('a token transfer’s log is found by eth_getLogs in the new block', async () => {
      const hash = await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: TOKEN, gasLimit: 100_000n, data: transferCall(carol, 5n) }))
      const n = q(chain.head.number)
      const logs = (await rpc.call('eth_getLogs', [{ fromBlock: n, toBlock: n, address: TOKEN }])).result as Record<string, unknown>[]
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({ transactionHash: hash, logIndex: '0x0', topics: [TRANSFER_TOPIC, `0x${alice.slice(2).padStart(64, '0')}`, `0x${carol.slice(2).padStart(64, '0')}`] })
    })

    it('a legacy EIP-155 transaction is accepted too', async () => {
      const hash = await send(signedLegacy(chain, 'alice', { nonce: aliceNonce, to: bob, value: 1n }))
      expect((await rpc.call('eth_getTransactionByHash', [hash])).result).toMatchObject({ type: '0x0', chainId: '0x1' })
    })

    it('a call that reverts is mined with status 0x0, its gas charged, as geth mines failing transactions', async () => {
      const before = await balance(alice)
      const hash = await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: REVERTER, gasLimit: 100_000n, data: REVERT_WITH_REASON }))
      const receipt = (await rpc.call('eth_getTransactionReceipt', [hash])).result as Record<string, string>
      expect(receipt.status).toBe('0x0')
      expect(receipt.logs).toEqual([])
      const paid = BigInt(receipt.gasUsed!) * BigInt(receipt.effectiveGasPrice!)
      expect(await balance(alice)).toBe(before - paid)
      expect(await result('eth_getTransactionCount', [alice])).toBe(q(aliceNonce + 1n))
    })

    it('two concurrent sends never build on the same parent', async () => {
      const head = chain.head.number
      const [a, b] = await Promise.all([
        send(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 1n })),
        send(signed1559(chain, 'bob', { nonce: BigInt(await result('eth_getTransactionCount', [bob])), to: alice, value: 1n })),
      ])
      const blocks = await Promise.all([a, b].map(async (h) => ((await rpc.call('eth_getTransactionReceipt', [h])).result as { blockNumber: string }).blockNumber))
      expect(blocks.sort()).toEqual([q(head + 1n), q(head + 2n)])
      expect(chain.byNumber(head + 2n)!.block.header.parentHash).toEqual(chain.byNumber(head + 1n)!.block.hash())
    })

    it('mined blocks verify: the fixture’s chain.rlp extended with them loads through the verifying loader', async () => {
      await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 1n }))
      await send(signed1559(chain, 'alice', { nonce: aliceNonce + 1n, to: TOKEN, gasLimit: 100_000n, data: transferCall(bob, 1n) }))
      const dir = mkdtempSync(join(tmpdir(), 'mined-'))
      writeFileSync(join(dir, 'genesis.json'), readFileSync(join(FIXTURE, 'genesis.json')))
      const mined = [chain.head.number - 1n, chain.head.number].map((n) => chain.byNumber(n)!.block.serialize())
      writeFileSync(join(dir, 'chain.rlp'), concatBytes(readFileSync(join(FIXTURE, 'chain.rlp')), ...mined))
      const replayed = await loadFixture(dir, { name: 'replayed', cache: false })
      expect(replayed.head.hash).toBe(chain.head.hash)
      expect(replayed.head.receipts).toEqual(chain.head.receipts)
    })
  })

  describe('geth’s pool errors (-32000)', () => {
    it('nonce too low', async () => {
      expect(await refusal(signed1559(chain, 'alice', { nonce: aliceNonce - 1n, to: bob }))).toEqual({
        code: -32000,
        message: `nonce too low: next nonce ${aliceNonce}, tx nonce ${aliceNonce - 1n}`,
      })
    })

    it('insufficient funds for gas * price + value', async () => {
      const have = await balance(alice)
      const cost = 21000n * 10n ** 10n + have
      expect((await refusal(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: have }))).message).toBe(
        `insufficient funds for gas * price + value: balance ${have}, tx cost ${cost}, overshot ${cost - have}`,
      )
    })

    it('intrinsic gas too low', async () => {
      expect((await refusal(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, gasLimit: 20_000n }))).message).toBe(
        'intrinsic gas too low: gas 20000, minimum needed 21000',
      )
    })

    it('insufficient gas for floor data gas cost (EIP-7623)', async () => {
      // 100 non-zero bytes: intrinsic 21000 + 1600, floor 21000 + 4000.
      const data = `0x${'ff'.repeat(100)}` as const
      expect((await refusal(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, gasLimit: 23_000n, data }))).message).toBe(
        'insufficient gas for floor data gas cost: gas 23000, minimum needed 25000',
      )
    })

    it('max fee per gas less than block base fee (the double refuses what it cannot mine)', async () => {
      const baseFee = chain.head.block.header.calcNextBaseFee()
      expect((await refusal(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }))).message).toBe(
        `max fee per gas less than block base fee: address ${toChecksumAddress(alice)}, maxFeePerGas: 2, baseFee: ${baseFee}`,
      )
    })

    it('max priority fee per gas higher than max fee per gas', async () => {
      // Refused before the signature is looked at, so r and s need not be a signature.
      const raw = encoded(2, [1, aliceNonce, 2n * GWEI, GWEI, 21000, bob, 0, '0x', [], 0, 1, 1])
      expect((await refusal(raw)).message).toBe('max priority fee per gas higher than max fee per gas')
    })

    it('transaction gas limit too high (Osaka’s 2^24 cap)', async () => {
      const raw = encoded(2, [1, aliceNonce, GWEI, 10n * GWEI, 2 ** 24 + 1, bob, 0, '0x', [], 0, 1, 1])
      expect((await refusal(raw)).message).toBe('transaction gas limit too high (cap: 16777216, tx: 16777217)')
    })

    it('transaction gas price below minimum (a zero tip)', async () => {
      expect((await refusal(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, maxPriorityFeePerGas: 0n }))).message).toBe(
        'transaction gas price below minimum: gas tip cap 0, minimum needed 1',
      )
    })

    it('invalid sender: another chain’s id', async () => {
      const raw = encoded(2, [5, aliceNonce, GWEI, 10n * GWEI, 21000, bob, 0, '0x', [], 0, 1, 1])
      expect((await refusal(raw)).message).toBe('invalid sender: invalid chain id for signer: have 5 want 1')
      // A legacy transaction signed for chain 5 (v = 5 * 2 + 35).
      expect((await refusal(encoded(0, [aliceNonce, 10n * GWEI, 21000, bob, 0, '0x', 45, 1, 1]))).message).toBe(
        'invalid sender: invalid chain id for signer: have 5 want 1',
      )
    })

    it('invalid sender: an unsigned transaction', async () => {
      const raw = encoded(2, [1, aliceNonce, GWEI, 10n * GWEI, 21000, bob, 0, '0x', [], 0, 0, 0])
      expect((await refusal(raw)).message).toBe('invalid sender: invalid transaction v, r, s values')
    })

    it('only replay-protected (EIP-155) transactions allowed over RPC', async () => {
      expect((await refusal(encoded(0, [aliceNonce, 10n * GWEI, 21000, bob, 0, '0x', 27, 1, 1]))).message).toBe(
        'only replay-protected (EIP-155) transactions allowed over RPC',
      )
    })

    it('tx fee exceeds the configured cap (1 ether)', async () => {
      const raw = signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, gasLimit: 1_000_000n, maxFeePerGas: 2000n * GWEI })
      expect((await refusal(raw)).message).toBe('tx fee (2.00 ether) exceeds the configured cap (1.00 ether)')
    })

    it('oversized data', async () => {
      const raw = signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, gasLimit: 16_000_000n, maxFeePerGas: 20n * GWEI, data: new Uint8Array(131072) })
      const size = (raw.length - 2) / 2
      expect((await refusal(raw)).message).toBe(`oversized data: transaction size ${size}, limit 131072`)
    })

    it('max initcode size exceeded', async () => {
      // EthereumJS will not even sign it; geth refuses it before looking at the signature.
      const raw = encoded(2, [1, aliceNonce, GWEI, 20n * GWEI, 16_000_000, '0x', 0, new Uint8Array(49153).fill(1), [], 0, 1, 1])
      expect((await refusal(raw)).message).toBe('max initcode size exceeded: code size 49153, limit 49152')
    })

    it('already known, and replacement transaction underpriced (manual mode, where transactions wait)', async () => {
      chain.setMiningMode('manual')
      const raw = signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 1n })
      await send(raw)
      expect(await refusal(raw)).toEqual({ code: -32000, message: 'already known' })
      const cheaper = signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 2n, maxPriorityFeePerGas: GWEI + GWEI / 20n })
      expect((await refusal(cheaper)).message).toBe('replacement transaction underpriced')
      // 10% more on both fee cap and tip replaces it.
      const bumped = signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 3n, maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: (11n * GWEI) / 10n })
      const hash = await send(bumped)
      expect(chain.pending.map((p) => p.hash)).toEqual([hash])
    })

    it('transaction type not supported', async () => {
      expect((await refusal('0x05c0')).message).toBe('transaction type not supported')
    })
  })

  describe('input geth cannot decode', () => {
    it.each([
      ['0x', 'typed transaction too short'],
      ['0x02', 'typed transaction too short'],
      ['0x1234', 'transaction type not supported'],
      ['0xf8', 'rlp: value size exceeds available input length'],
      ['0x80', 'rlp: expected input list for types.LegacyTx'],
      ['0xc0', 'rlp: too few elements for types.LegacyTx'],
      ['0x02c0', 'rlp: too few elements for types.DynamicFeeTx'],
      ['0x02c3010101', 'rlp: too few elements for types.DynamicFeeTx'],
      ['0x02c401820001', 'rlp: non-canonical integer (leading zero bytes) for uint64, decoding into (types.DynamicFeeTx).Nonce'],
      ['0x02c201c0', 'rlp: expected input string or byte for uint64, decoding into (types.DynamicFeeTx).Nonce'],
    ])('%s: %s', async (raw, message) => {
      expect(await refusal(raw)).toEqual({ code: -32000, message })
    })

    it('trailing bytes after a valid transaction', async () => {
      const raw = signedLegacy(chain, 'alice', { nonce: aliceNonce, to: bob })
      expect((await refusal(`${raw}00`)).message).toBe('rlp: input contains more than one value')
    })

    it('too many fields', async () => {
      expect((await refusal(encoded(0, [0, 1, 21000, bob, 0, '0x', 37, 1, 1, 1]))).message).toBe('rlp: input list has too many elements for types.LegacyTx')
    })

    it('a `to` of the wrong length', async () => {
      expect((await refusal(encoded(0, [0, 1, 21000, '0x1234', 0, '0x', 37, 1, 1]))).message).toBe(
        'rlp: input string too short for common.Address, decoding into (types.LegacyTx).To',
      )
    })

    it.each([
      ['hello', 'hex string without 0x prefix'],
      ['0x123', 'hex string of odd length'],
      ['0xzz', 'invalid hex string'],
      [12, 'non-string'],
    ])('%s is not hex bytes: -32602', async (raw, what) => {
      expect(await refusal(raw)).toEqual({ code: -32602, message: `invalid argument 0: json: cannot unmarshal ${what} into Go value of type hexutil.Bytes` })
    })

    it('missing param: -32602', async () => {
      expect((await rpc.call(method, [])).error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
    })
  })

  describe('manual mining', () => {
    it('transactions wait in the pool, then mine() puts three in one block; a gapped one stays', async () => {
      chain.setMiningMode('manual')
      expect(chain.miningMode).toBe('manual')
      const head = chain.head.number
      const bobNonce = BigInt(await result('eth_getTransactionCount', [bob]))
      const hashes = [
        await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: carol, value: 1n })),
        await send(signed1559(chain, 'alice', { nonce: aliceNonce + 1n, to: carol, value: 2n })),
        await send(signed1559(chain, 'bob', { nonce: bobNonce, to: carol, value: 3n })),
      ]
      const gapped = await send(signed1559(chain, 'alice', { nonce: aliceNonce + 5n, to: carol, value: 4n }))
      expect(await result('eth_blockNumber', [])).toBe(q(head))
      expect((await rpc.call('eth_getTransactionReceipt', [hashes[0]])).result).toBeNull()
      expect(chain.pending).toHaveLength(4)
      expect(await result('eth_getTransactionCount', [alice, 'pending'])).toBe(q(aliceNonce + 2n))
      expect(await result('eth_getTransactionCount', [alice, 'latest'])).toBe(q(aliceNonce))
      // A waiting transaction reads as geth's pending one: no block yet.
      expect(await result('eth_getTransactionByHash', [hashes[2]])).toMatchObject({
        hash: hashes[2], blockHash: null, blockNumber: null, transactionIndex: null, value: '0x3',
      })

      const block = await chain.mine()
      expect(block.number).toBe(head + 1n)
      expect(block.transactions.map((t) => t.hash).sort()).toEqual([...hashes].sort())
      for (const h of hashes) {
        expect((await rpc.call('eth_getTransactionReceipt', [h])).result).toMatchObject({ blockNumber: q(head + 1n), status: '0x1' })
      }
      expect(await result('eth_getTransactionByHash', [hashes[2]])).toMatchObject({ hash: hashes[2], blockNumber: q(head + 1n) })
      expect(chain.pending.map((p) => p.hash)).toEqual([gapped])
      expect(await result('eth_getTransactionCount', [alice, 'pending'])).toBe(q(aliceNonce + 2n))
    })

    it('mine() with nothing executable mines an empty block', async () => {
      chain.setMiningMode('manual')
      const head = chain.head.number
      const block = await chain.mine()
      expect(block.number).toBe(head + 1n)
      expect((await rpc.call('eth_getBlockByNumber', ['latest', false])).result).toMatchObject({ transactions: [], gasUsed: '0x0' })
    })

    it('a transaction filling a nonce gap in auto mode is mined with the ones queued behind it', async () => {
      const later = await send(signed1559(chain, 'alice', { nonce: aliceNonce + 1n, to: bob, value: 1n }))
      expect(chain.pending.map((p) => p.hash)).toEqual([later])
      const first = await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 1n }))
      expect(chain.pending).toEqual([])
      expect(chain.head.transactions.map((t) => t.hash)).toEqual([first, later])
    })
  })

  describe('snapshots and forks', () => {
    it('snapshot, send, restore gives back the earlier answers; mining continues from the snapshot', async () => {
      const snap = chain.snapshot()
      const head = chain.head.number
      const before = await Promise.all([balance(alice), balance(bob), result('eth_getTransactionCount', [alice])])
      const hash = await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: ETHER }))
      const minedHash = chain.head.hash
      await chain.restore(snap)

      expect(await result('eth_blockNumber', [])).toBe(q(head))
      expect(await Promise.all([balance(alice), balance(bob), result('eth_getTransactionCount', [alice])])).toEqual(before)
      expect((await rpc.call('eth_getTransactionReceipt', [hash])).result).toBeNull()
      expect((await rpc.call('eth_getTransactionByHash', [hash])).result).toBeNull()
      expect((await rpc.call('eth_getBlockByNumber', [q(head + 1n), false])).result).toBeNull()
      expect((await rpc.call('eth_getBlockByHash', [minedHash, false])).result).toBeNull()
      expect((await rpc.call('eth_getBalance', [bob, q(head + 1n)])).error?.message).toBe('header not found')

      // The same transaction can be sent again, into a new block at the same height.
      expect(await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: ETHER }))).toBe(hash)
      expect(chain.head.number).toBe(head + 1n)
    })

    it('restore brings back the pool and the mining mode', async () => {
      chain.setMiningMode('manual')
      const hash = await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: bob, value: 1n }))
      const snap = chain.snapshot()
      await chain.mine()
      chain.setMiningMode('auto')
      await chain.restore(snap)
      expect(chain.miningMode).toBe('manual')
      expect(chain.pending.map((p) => p.hash)).toEqual([hash])
    })

    it('a fork is independent: mining on it leaves the original as it was, and the other way round', async () => {
      const head = chain.head.number
      const fork = await chain.fork('ethereum-fork')
      const forkRpc = clientFor(fork)
      expect(fork.name).toBe('ethereum-fork')
      const bobBefore = await balance(bob)
      const onFork = (await forkRpc.call(method, [signed1559(fork, 'alice', { nonce: aliceNonce, to: bob, value: ETHER })])).result as string
      expect((await forkRpc.call('eth_getTransactionReceipt', [onFork])).result).toMatchObject({ status: '0x1' })
      expect(await result('eth_blockNumber', [])).toBe(q(head))
      expect(await balance(bob)).toBe(bobBefore)
      expect((await rpc.call('eth_getTransactionReceipt', [onFork])).result).toBeNull()

      await send(signed1559(chain, 'alice', { nonce: aliceNonce, to: carol, value: 1n }))
      expect((await forkRpc.call('eth_getBalance', [bob, 'latest'])).result).toBe(q(bobBefore + ETHER))
      expect(fork.head.hash).not.toBe(chain.head.hash)
      expect(fork.head.number).toBe(chain.head.number)
    })
  })
})
