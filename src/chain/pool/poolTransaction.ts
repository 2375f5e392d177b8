/**
 * A transaction as the pool holds it: decoded, signed, its sender known, with what the pool's
 * rules and the miner's selection compare (fee cap, tip, cost, blob gas) worked out once.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import { renderTransaction } from '../blocks/render.ts'
import type { TransactionJson } from '../blocks/render.ts'

/** A transaction the pool holds: decoded, signed, its sender known. */
export interface PoolTransaction {
  readonly hash: string
  /** Lowercase sender address. */
  readonly from: string
  readonly nonce: bigint
  readonly gasLimit: bigint
  readonly feeCap: bigint
  readonly tipCap: bigint
  /** geth's `tx.Cost()`: gas * fee cap + value. */
  readonly cost: bigint
  /** The transaction as blocks hold it (a blob transaction without its sidecar). */
  readonly raw: Uint8Array
  readonly tx: TypedTransaction
  /** Blob gas (131072 per blob) and the blob fee cap; 0 for other types. */
  readonly blobGas: bigint
  readonly blobFeeCap: bigint
  /** Arrival order, for ties. */
  readonly seq: number
  /** As eth_getTransactionByHash shows a pending transaction (null block fields): rendered when first read. */
  readonly json: TransactionJson
}

/** Builds the pool entry of a validated transaction. */
export function poolTransaction(raw: Uint8Array, tx: TypedTransaction, from: string, seq: number): PoolTransaction {
  const blobGas = 'blobVersionedHashes' in tx ? BigInt((tx as { blobVersionedHashes: unknown[] }).blobVersionedHashes.length) * 131072n : 0n
  const blobFeeCap = 'maxFeePerBlobGas' in tx ? (tx as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas : 0n
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
  const tipCap = 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : (tx as { gasPrice: bigint }).gasPrice
  // Rendered when first read, not on admission: under automine the block takes the transaction at
  // once and the pool's rendering is read only by the reads of a pending transaction and
  // full-transaction newPendingTransactions subscriptions.
  let json: TransactionJson | undefined
  return {
    hash: bytesToHex(tx.hash()),
    from,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    feeCap,
    tipCap,
    cost: tx.gasLimit * feeCap + tx.value + blobGas * blobFeeCap,
    blobGas,
    blobFeeCap,
    raw,
    tx,
    seq,
    get json() {
      return (json ??= renderTransaction(tx, from, undefined))
    },
  }
}
