/**
 * Building a BlockRecord: the block plus everything a node keeps of its execution (senders,
 * receipts with per-transaction gas, effective prices, contract addresses, block-wide log
 * indexes), rendered once in the wire shapes. One function for blocks replayed at load and blocks
 * mined later, so both read back identically.
 */
import type { Block } from '@ethereumjs/block'
import { toData } from '../../encoding/hex.ts'
import type { TxReceipt } from '@ethereumjs/vm'
import type { BlockRecord } from './types.ts'
import { inclusionOf, renderReceipt, renderTransaction } from './render.ts'
import type { ReceiptJson, TransactionJson } from './render.ts'

/** A record from already rendered transactions and receipts (the verified cache's), and the block's hash when known. */
export function recordOf(block: Block, transactions: readonly TransactionJson[], receipts: readonly ReceiptJson[], hash?: string): BlockRecord {
  return {
    block,
    number: block.header.number,
    hash: hash ?? toData(block.hash()),
    timestamp: block.header.timestamp,
    transactions,
    receipts,
  }
}

/** The record of `block`, rendered from the receipts its execution produced (`runBlock`'s). */
export function recordFromExecution(block: Block, txReceipts: readonly TxReceipt[]): BlockRecord {
  const header = block.header
  const senders = block.transactions.map((tx) => toData(tx.getSenderAddress().bytes))
  const transactions: TransactionJson[] = []
  const receipts: ReceiptJson[] = []
  const blobGasPrice = header.excessBlobGas !== undefined ? header.getBlobGasPrice() : undefined
  let previousCumulative = 0n
  let logIndex = 0
  block.transactions.forEach((tx, i) => {
    const at = inclusionOf(block, i)
    const receipt = txReceipts[i]!
    transactions.push(renderTransaction(tx, senders[i]!, at))
    receipts.push(
      renderReceipt({
        tx,
        from: senders[i]!,
        receipt,
        gasUsed: receipt.cumulativeBlockGasUsed - previousCumulative,
        firstLogIndex: logIndex,
        at,
        blobGasPrice,
      }),
    )
    previousCumulative = receipt.cumulativeBlockGasUsed
    logIndex += receipt.logs.length
  })
  return recordOf(block, transactions, receipts)
}
