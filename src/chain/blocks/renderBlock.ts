/**
 * Blocks in the execution-apis wire shape, field for field as geth's `RPCMarshalBlock` writes
 * them: the header fields (fork fields only where the header has them: `baseFeePerGas` from
 * London, `withdrawalsRoot` from Shanghai, the blob fields and `parentBeaconBlockRoot` from
 * Cancun, `requestsHash` from Prague), `size` (the RLP length of the block), `transactions` (as
 * hashes or in full), `uncles` (their hashes) and, from Shanghai, `withdrawals`. No
 * `totalDifficulty`: geth dropped it after the Merge. Keys come sorted, as Go writes a map.
 *
 * A block is rendered once per form and kept beside its record: the chain never changes a block.
 */
import type { Block } from '@ethereumjs/block'
import { bytesToHex } from '@ethereumjs/util'
import { toQuantity } from '../../encoding/hex.ts'
import type { BlockRecord } from './types.ts'

export type BlockJson = Record<string, unknown> & { hash: string; transactions: unknown[] }

interface Rendered {
  hashes?: BlockJson
  full?: BlockJson
}

const cache = new WeakMap<BlockRecord, Rendered>()

/** The block of `record`, with transaction hashes or (`fullTransactions`) the transactions themselves. */
export function renderBlock(record: BlockRecord, fullTransactions: boolean): BlockJson {
  let rendered = cache.get(record)
  if (!rendered) {
    rendered = {}
    cache.set(record, rendered)
  }
  const key = fullTransactions ? 'full' : 'hashes'
  rendered[key] ??= build(record, fullTransactions)
  return rendered[key]
}

function build(record: BlockRecord, fullTransactions: boolean): BlockJson {
  const block = record.block
  const fields: Record<string, unknown> = {
    ...renderHeader(block),
    hash: record.hash,
    size: toQuantity(block.serialize().length),
    transactions: fullTransactions ? [...record.transactions] : record.transactions.map((tx) => tx.hash),
    uncles: block.uncleHeaders.map((uncle) => bytesToHex(uncle.hash())),
  }
  if (block.withdrawals !== undefined) {
    fields.withdrawals = block.withdrawals.map((w) => ({
      index: toQuantity(w.index),
      validatorIndex: toQuantity(w.validatorIndex),
      address: w.address.toString(),
      amount: toQuantity(w.amount),
    }))
  }
  return sortKeys(fields) as BlockJson
}

/** geth's `RPCMarshalHeader`, without the hash (the record has it). */
export function renderHeader(block: Block): Record<string, unknown> {
  const h = block.header
  const out: Record<string, unknown> = {
    number: toQuantity(h.number),
    parentHash: bytesToHex(h.parentHash),
    nonce: bytesToHex(h.nonce),
    mixHash: bytesToHex(h.mixHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    logsBloom: bytesToHex(h.logsBloom),
    stateRoot: bytesToHex(h.stateRoot),
    miner: h.coinbase.toString(),
    difficulty: toQuantity(h.difficulty),
    extraData: bytesToHex(h.extraData),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
  }
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = toQuantity(h.baseFeePerGas)
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(h.withdrawalsRoot)
  if (h.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(h.blobGasUsed)
  if (h.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(h.excessBlobGas)
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot)
  if (h.requestsHash !== undefined) out.requestsHash = bytesToHex(h.requestsHash)
  return out
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]))
}
