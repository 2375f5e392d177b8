/**
 * Blocks in the execution-apis wire shape, field for field as geth's `RPCMarshalBlock` writes
 * them: the header fields (fork fields only where the header has them: `baseFeePerGas` from
 * London, `withdrawalsRoot` from Shanghai, the blob fields and `parentBeaconBlockRoot` from
 * Cancun, `requestsHash` from Prague), `size` (the RLP length of the block), `transactions` (as
 * hashes or in full), `uncles` (their hashes) and, from Shanghai, `withdrawals`. No
 * `totalDifficulty`: geth dropped it after the Merge. Keys come sorted, as Go writes a map.
 *
 * Rendered anew on each call: what is kept of a rendering is its JSON text, by the store
 * (../store/renderedJson.ts), bounded in bytes.
 */
import type { Block } from '@ethereumjs/block'
import { toData, toQuantity } from '../../encoding/hex.ts'
import type { BlockRecord } from './types.ts'

export type BlockJson = Record<string, unknown> & { hash: string; transactions: unknown[] }

/** The block of `record`, with transaction hashes or (`fullTransactions`) the transactions themselves. */
export function renderBlock(record: BlockRecord, fullTransactions: boolean): BlockJson {
  const block = record.block
  const fields: Record<string, unknown> = {
    ...renderHeader(block),
    hash: record.hash,
    size: toQuantity(block.serialize().length),
    transactions: fullTransactions ? [...record.transactions] : record.transactions.map((tx) => tx.hash),
    uncles: block.uncleHeaders.map((uncle) => toData(uncle.hash())),
  }
  if (block.withdrawals !== undefined) {
    fields.withdrawals = block.withdrawals.map((w) => ({
      index: toQuantity(w.index),
      validatorIndex: toQuantity(w.validatorIndex),
      address: toData(w.address.bytes),
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
    parentHash: toData(h.parentHash),
    nonce: toData(h.nonce),
    mixHash: toData(h.mixHash),
    sha3Uncles: toData(h.uncleHash),
    logsBloom: toData(h.logsBloom),
    stateRoot: toData(h.stateRoot),
    miner: toData(h.coinbase.bytes),
    difficulty: toQuantity(h.difficulty),
    extraData: toData(h.extraData),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    transactionsRoot: toData(h.transactionsTrie),
    receiptsRoot: toData(h.receiptTrie),
  }
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = toQuantity(h.baseFeePerGas)
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = toData(h.withdrawalsRoot)
  if (h.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(h.blobGasUsed)
  if (h.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(h.excessBlobGas)
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = toData(h.parentBeaconBlockRoot)
  if (h.requestsHash !== undefined) out.requestsHash = toData(h.requestsHash)
  return out
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]))
}
