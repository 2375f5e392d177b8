/**
 * The block, transaction and state reads on the hive chain, checked against what the chain's own
 * files say (chain.rlp for block sizes and transaction order, headstate.json for every account at
 * the head), against each other, and for geth's params and errors.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { beforeAll, describe, expect, it } from 'vitest'
import { renderBlock } from '../../src/chain/blocks/renderBlock.ts'
import { CLIENT_VERSION } from '../../src/rpc/methods/web3_clientVersion.ts'
import { EXECUTION_APIS, hasSharedFixtures, HIVE_TESTS } from '../support/hive.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

type Json = Record<string, unknown>
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'
const q = (n: bigint | number) => `0x${n.toString(16)}`

describe.skipIf(!hasSharedFixtures)('reads on the hive chain', () => {
  let rpc: RpcClient
  let head: bigint
  beforeAll(async () => {
    rpc = await hiveClient()
    head = rpc.chain.head.number
  })
  const result = (method: string, params: unknown[] = []) => rpc.result(method, params)

  describe('blocks', () => {
    it('size is the length of the block’s RLP as chain.rlp holds it, uncles included', async () => {
      let rest: Uint8Array = readFileSync(join(HIVE_TESTS, 'chain.rlp'))
      let withUncles = 0
      for (let n = 1n; rest.length > 0; n++) {
        const decoded = RLP.decode(rest, true)
        const length = rest.length - decoded.remainder.length
        rest = decoded.remainder
        const block = (await result('eth_getBlockByNumber', [q(n), false])) as Json
        expect(block.size, `block ${n}`).toBe(q(length))
        const uncles = (decoded.data as unknown as unknown[][])[2]!
        expect((block.uncles as string[]).length).toBe(uncles.length)
        if (uncles.length > 0) {
          withUncles++
          expect(block.sha3Uncles).not.toBe(EMPTY_UNCLES)
        }
      }
      expect(withUncles).toBeGreaterThan(0)
    })

    it('by number and by hash agree, hashes and full forms differ only in transactions', async () => {
      for (let n = 0n; n <= head; n++) {
        const hashes = (await result('eth_getBlockByNumber', [q(n), false])) as Json
        const full = (await result('eth_getBlockByNumber', [q(n), true])) as Json
        expect(await result('eth_getBlockByHash', [hashes.hash, true])).toEqual(full)
        expect({ ...full, transactions: (full.transactions as Json[]).map((tx) => tx.hash) }).toEqual(hashes)
        const txs = full.transactions as Json[]
        for (const [i, tx] of txs.entries()) {
          expect(await result('eth_getTransactionByBlockNumberAndIndex', [q(n), q(i)])).toEqual(tx)
          expect(await result('eth_getTransactionByBlockHashAndIndex', [hashes.hash, q(i)])).toEqual(tx)
          expect(await result('eth_getTransactionByHash', [tx.hash])).toEqual(tx)
        }
        expect(await result('eth_getBlockTransactionCountByNumber', [q(n)])).toBe(q(txs.length))
        expect(await result('eth_getBlockTransactionCountByHash', [hashes.hash])).toBe(q(txs.length))
      }
    })

    it('fork fields appear from their fork on, and totalDifficulty never', async () => {
      const fields = async (n: number) => Object.keys((await result('eth_getBlockByNumber', [q(n), false])) as Json)
      expect(await fields(0)).not.toContain('baseFeePerGas')
      expect(await fields(0x1b)).toContain('baseFeePerGas')
      expect(await fields(0x1b)).not.toContain('withdrawals')
      expect(await fields(0x27)).toEqual(expect.arrayContaining(['withdrawals', 'withdrawalsRoot']))
      expect(await fields(0x27)).not.toContain('blobGasUsed')
      expect(await fields(0x2a)).toEqual(expect.arrayContaining(['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot']))
      expect(await fields(0x2a)).not.toContain('requestsHash')
      expect(await fields(0x2d)).toContain('requestsHash')
      for (const n of [0, 0x1b, 0x36]) expect(await fields(n)).not.toContain('totalDifficulty')
    })

    it('tags: earliest is genesis, latest and pending the head, safe and finalized the head here', async () => {
      const at = async (tag: string) => ((await result('eth_getBlockByNumber', [tag, false])) as Json).number
      expect(await at('earliest')).toBe('0x0')
      for (const tag of ['latest', 'pending', 'safe', 'finalized']) expect(await at(tag)).toBe(q(head))
    })

    it('what does not exist is null', async () => {
      expect(await result('eth_getBlockByNumber', [q(head + 1n), false])).toBeNull()
      expect(await result('eth_getBlockByHash', [`0x${'22'.repeat(32)}`, false])).toBeNull()
      expect(await result('eth_getBlockTransactionCountByNumber', [q(head + 1n)])).toBeNull()
      expect(await result('eth_getBlockTransactionCountByHash', [`0x${'22'.repeat(32)}`])).toBeNull()
      const block1 = rpc.chain.byNumber(1n)!
      expect(await result('eth_getTransactionByBlockHashAndIndex', [block1.hash, q(block1.transactions.length)])).toBeNull()
      expect(await result('eth_getTransactionByBlockHashAndIndex', [`0x${'22'.repeat(32)}`, '0x0'])).toBeNull()
      expect(await result('eth_getTransactionByHash', [`0x${'22'.repeat(32)}`])).toBeNull()
      expect(await result('eth_getTransactionReceipt', [`0x${'22'.repeat(32)}`])).toBeNull()
    })

    it('is answered from the text its store kept, the same as rendered anew', async () => {
      const record = rpc.chain.byNumber(1n)!
      for (const full of [true, false]) {
        const first = await result('eth_getBlockByNumber', [q(1n), full])
        expect(rpc.chain.renderedJson(record, full ? 'fullBlock' : 'block', () => { throw new Error('rendered again') }).toJSON()).toEqual(first)
        expect(await result('eth_getBlockByHash', [record.hash, full])).toEqual(first)
        expect(JSON.parse(JSON.stringify(renderBlock(record, full)))).toEqual(first)
      }
    })
  })

  describe('receipts', () => {
    it('by transaction hash, the same as the block’s receipts, for all 249 transactions', async () => {
      let count = 0
      for (let n = 0n; n <= head; n++) {
        const receipts = (await result('eth_getBlockReceipts', [q(n)])) as Json[]
        for (const receipt of receipts) {
          expect(await result('eth_getTransactionReceipt', [receipt.transactionHash])).toEqual(receipt)
          count++
        }
      }
      expect(count).toBe(249)
    })
  })

  describe('state', () => {
    it('every account of headstate.json: balance, nonce and code at latest', async () => {
      const dump = JSON.parse(readFileSync(join(EXECUTION_APIS, 'tools/chain/headstate.json'), 'utf8')) as {
        accounts: Record<string, { address?: string; balance: string; nonce: number | string; code?: string }>
      }
      let checked = 0
      for (const [key, account] of Object.entries(dump.accounts)) {
        const address = account.address ?? key
        expect(await result('eth_getBalance', [address, 'latest'])).toBe(q(BigInt(account.balance)))
        expect(await result('eth_getTransactionCount', [address])).toBe(q(BigInt(account.nonce)))
        expect(await result('eth_getCode', [address, 'latest'])).toBe(account.code ?? '0x')
        checked++
      }
      expect(checked).toBe(114)
    })

    it('reads history: a balance, a nonce and code at earlier blocks, by number, hash or EIP-1898 object', async () => {
      const sender = '0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f'
      const callme = '0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667'
      expect(await result('eth_getTransactionCount', [sender, '0x0'])).toBe('0x0')
      // block 1 holds the sender's first 4 transactions (nonces 0..3)
      expect(await result('eth_getTransactionCount', [sender, '0x1'])).toBe('0x4')
      expect(await result('eth_getCode', [callme, '0x0'])).toBe('0x')
      expect(await result('eth_getCode', [callme, { blockNumber: '0x1' }])).toMatch(/^0x36/)
      const hash = rpc.chain.byNumber(0x2cn)!.hash
      const byHash = await result('eth_getBalance', ['0x7dcd17433742f4c0ca53122ab541d0ba67fc27df', hash])
      expect(await result('eth_getBalance', ['0x7dcd17433742f4c0ca53122ab541d0ba67fc27df', { blockHash: hash }])).toBe(byHash)
      expect(await result('eth_getBalance', ['0x7dcd17433742f4c0ca53122ab541d0ba67fc27df', '0x2c'])).toBe(byHash)
    })

    it('a block it does not have: geth’s errors', async () => {
      for (const method of ['eth_getBalance', 'eth_getCode', 'eth_getTransactionCount']) {
        const address = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df'
        expect((await rpc.call(method, [address, q(head + 1n)])).error).toEqual({ code: -32000, message: 'header not found' })
        expect((await rpc.call(method, [address, `0x${'33'.repeat(32)}`])).error).toEqual({ code: -32000, message: 'header for hash not found' })
      }
    })
  })

  describe('params', () => {
    it('bad params answer -32602 in geth’s words', async () => {
      const err = async (method: string, params: unknown[]) => (await rpc.call(method, params)).error
      expect(await err('eth_getBlockByNumber', ['0x1'])).toEqual({ code: -32602, message: 'missing value for required argument 1' })
      expect(await err('eth_getBlockByNumber', ['0x1', 'yes'])).toEqual({
        code: -32602,
        message: 'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
      })
      expect(await err('eth_getBlockByHash', ['0x1234', false])).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 4, want 64 for common.Hash' })
      expect(await err('eth_getTransactionByHash', [])).toEqual({ code: -32602, message: 'missing value for required argument 0' })
      expect(await err('eth_getTransactionReceipt', ['0x12'])).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 2, want 64 for common.Hash' })
      expect(await err('eth_getTransactionByBlockHashAndIndex', [rpc.chain.genesis.hash, '0x01'])).toEqual({
        code: -32602,
        message: 'invalid argument 1: hex number with leading zero digits',
      })
      expect(await err('eth_getBalance', ['0x12', 'latest'])).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 2, want 40 for common.Address' })
      expect(await err('eth_getCode', ['0x7dcd17433742f4c0ca53122ab541d0ba67fc27df', 'latest', 1])).toEqual({
        code: -32602,
        message: 'too many arguments, want at most 2',
      })
      expect(await err('eth_syncing', [1])).toEqual({ code: -32602, message: 'too many arguments, want at most 0' })
    })
  })

  describe('node status', () => {
    it('eth_syncing is false, net_listening true, web3_clientVersion names the double', async () => {
      expect(await result('eth_syncing', [])).toBe(false)
      expect(await result('net_listening', [])).toBe(true)
      expect(await result('web3_clientVersion', [])).toBe(CLIENT_VERSION)
      expect(CLIENT_VERSION).toMatch(/^GatewayDouble\/v\d+\.\d+\.\d+\/\w+-\w+\/node\d+\.\d+\.\d+$/)
    })
  })
})
