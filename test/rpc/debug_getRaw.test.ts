/**
 * debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts and debug_getRawTransaction on the
 * hive chain, checked against the chain's own bytes: every block is the bytes chain.rlp holds, every
 * header hashes to its block's hash, every block's raw receipts rebuild its receipts root, every
 * transaction hashes to its hash. Then geth's answers for what is not there.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { hasSharedFixtures, HIVE_TESTS } from '../support/hive.ts'
import { clientFor, hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const q = (n: bigint | number) => `0x${n.toString(16)}`
const hex = (s: unknown) => hexToBytes(s as `0x${string}`)

describe.skipIf(!hasSharedFixtures)('debug_getRaw* on the hive chain', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })
  const result = (method: string, params: unknown[] = []) => rpc.result(method, params)

  it('answers every block, header, receipt list and transaction as the chain holds them', async () => {
    let rest: Uint8Array = readFileSync(join(HIVE_TESTS, 'chain.rlp'))
    let txs = 0
    for (let n = 1n; rest.length > 0; n++) {
      const decoded = RLP.decode(rest, true)
      const blockBytes = rest.subarray(0, rest.length - decoded.remainder.length)
      rest = decoded.remainder
      expect(await result('debug_getRawBlock', [q(n)]), `block ${n}`).toBe(bytesToHex(blockBytes))
      const header = (await result('debug_getRawHeader', [q(n)])) as string
      const block = (await result('eth_getBlockByNumber', [q(n), false])) as { hash: string; receiptsRoot: string; transactions: string[] }
      expect(bytesToHex(keccak256(hex(header)))).toBe(block.hash)
      // By hash, the same bytes.
      expect(await result('debug_getRawHeader', [block.hash])).toBe(header)

      const receipts = (await result('debug_getRawReceipts', [q(n)])) as string[]
      expect(receipts).toHaveLength(block.transactions.length)
      const trie = new MerklePatriciaTrie()
      for (const [i, r] of receipts.entries()) await trie.put(RLP.encode(i), hex(r))
      expect(bytesToHex(trie.root()), `receipts root of block ${n}`).toBe(block.receiptsRoot)

      for (const hash of block.transactions) {
        expect(bytesToHex(keccak256(hex(await result('debug_getRawTransaction', [hash]))))).toBe(hash)
        txs++
      }
    }
    expect(txs).toBe(249)
  })

  it('answers null past the head, and names an unknown hash as geth prints it', async () => {
    const past = q(rpc.chain.head.number + 1n)
    for (const m of ['debug_getRawBlock', 'debug_getRawHeader', 'debug_getRawReceipts']) expect(await result(m, [past])).toBeNull()
    const unknown = `0x${'00'.repeat(31)}01`
    const bytes = `[${[...Array(31).fill(0), 1].join(' ')}]`
    expect((await rpc.call('debug_getRawHeader', [unknown])).error).toEqual({ code: -32000, message: `header #${bytes} not found` })
    expect((await rpc.call('debug_getRawBlock', [unknown])).error).toEqual({ code: -32000, message: `block #${bytes} not found` })
    expect(await result('debug_getRawReceipts', [unknown])).toEqual([])
    expect(await result('debug_getRawTransaction', [unknown])).toBeNull()
  })

  it('answers a pooled transaction as it was sent', async () => {
    const fork = await rpc.chain.fork('hive')
    fork.setMiningMode('manual')
    const pooled = clientFor(fork)
    const line = readFileSync(join(HIVE_TESTS, 'eth_sendRawTransaction/send-legacy-transaction.io'), 'utf8').split('\n').find((l) => l.startsWith('>> '))!
    const raw = (JSON.parse(line.slice(3)) as { params: string[] }).params[0]!
    const hash = (await pooled.call('eth_sendRawTransaction', [raw])).result
    expect((await pooled.call('debug_getRawTransaction', [hash])).result).toBe(raw)
  })

  it('refuses a block number that is not hex, as geth does', async () => {
    expect((await rpc.call('debug_getRawBlock', ['2'])).error).toEqual({ code: -32602, message: 'invalid argument 0: hex string without 0x prefix' })
  })
})
