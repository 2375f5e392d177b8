/**
 * Blocks, headers, receipts and transactions in their consensus encodings, as geth's
 * debug_getRaw* methods answer them: RLP of the header and block, a transaction's binary form
 * (`type || rlp(...)` for typed ones), and each receipt as `MarshalBinary` writes it.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, hexToBytes } from '@ethereumjs/util'
import type { BlockRecord } from './types.ts'

const bytes = (hex: unknown): Uint8Array => hexToBytes(hex as `0x${string}`)

/**
 * The receipts of a block in consensus form: `rlp([status or root, cumulative gas, bloom, logs])`,
 * prefixed by the type byte for typed transactions. A success status is the byte 1, a failure the
 * empty string; before Byzantium the post-state root stands in its place.
 */
export function rawReceipts(record: BlockRecord): Uint8Array[] {
  return record.receipts.map((r) => {
    const outcome = r.root !== undefined ? bytes(r.root) : r.status === '0x1' ? Uint8Array.of(1) : new Uint8Array()
    const logs = r.logs.map((l) => [bytes(l.address), l.topics.map(bytes), bytes(l.data)])
    const body = RLP.encode([outcome, bigIntToUnpaddedBytes(BigInt(r.cumulativeGasUsed as string)), bytes(r.logsBloom), logs])
    const type = Number(BigInt(r.type as string))
    if (type === 0) return body
    const typed = new Uint8Array(body.length + 1)
    typed[0] = type
    typed.set(body, 1)
    return typed
  })
}

/** The transaction at `index` of the block, in its binary form. */
export function rawTransaction(record: BlockRecord, index: number): Uint8Array {
  return record.block.transactions[index]!.serialize()
}
