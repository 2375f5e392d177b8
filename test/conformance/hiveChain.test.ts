/**
 * Whole-chain checks on the hive test chain: every transaction by block and index is the one
 * chain.rlp holds (its hash is the keccak of its encoding there), and every storage slot of the
 * head state dump reads back padded to 32 bytes.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex } from '@ethereumjs/util'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { EXECUTION_APIS, hasSharedFixtures, HIVE_TESTS } from '../support/hive.ts'
import { hiveClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

describe.skipIf(!hasSharedFixtures)('the hive chain, whole', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await hiveClient()
  })

  it('returns, for every block and index, the transaction chain.rlp holds there', async () => {
    let rest: Uint8Array = readFileSync(join(HIVE_TESTS, 'chain.rlp'))
    let checked = 0
    for (let number = 1; rest.length > 0; number++) {
      const decoded = RLP.decode(rest, true)
      rest = decoded.remainder
      const txs = (decoded.data as unknown as unknown[])[1] as (Uint8Array | Uint8Array[])[]
      for (let index = 0; index <= txs.length; index++) {
        const res = await rpc.call('eth_getTransactionByBlockNumberAndIndex', [`0x${number.toString(16)}`, `0x${index.toString(16)}`])
        if (index === txs.length) {
          expect(res.result, `block ${number} index ${index} is past the end`).toBeNull()
          continue
        }
        const tx = txs[index]!
        // A legacy transaction is an RLP list; a typed one is its own byte string (type || payload).
        const encoding = tx instanceof Uint8Array ? tx : RLP.encode(tx)
        const result = res.result as { hash: string; blockNumber: string; transactionIndex: string }
        expect(result.hash).toBe(bytesToHex(keccak256(encoding)))
        expect(result.blockNumber).toBe(`0x${number.toString(16)}`)
        expect(result.transactionIndex).toBe(`0x${index.toString(16)}`)
        checked++
      }
    }
    expect(checked).toBe(249)
  })

  it('reads every slot of the head state dump at latest, padded to 32 bytes', async () => {
    const dump = JSON.parse(readFileSync(join(EXECUTION_APIS, 'tools/chain/headstate.json'), 'utf8')) as {
      accounts: Record<string, { address?: string; storage?: Record<string, string> }>
    }
    let checked = 0
    for (const [key, account] of Object.entries(dump.accounts)) {
      for (const [slot, value] of Object.entries(account.storage ?? {})) {
        const res = await rpc.call('eth_getStorageAt', [account.address ?? key, slot, 'latest'])
        expect(res.result).toBe(`0x${value.padStart(64, '0')}`)
        checked++
      }
    }
    expect(checked).toBe(183)
  })
})
