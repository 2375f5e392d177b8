/**
 * Transactions, receipts and logs in the execution-apis wire shapes, field for field as geth's
 * `RPCTransaction` and `MarshalReceipt` write them (hive compares keys and strings exactly).
 */
import type { Block } from '@ethereumjs/block'
import { accessListBytesToJSON, TransactionType } from '@ethereumjs/tx'
import type { AccessListBytes, TypedTransaction } from '@ethereumjs/tx'
import type { EIP7702CompatibleTx } from '@ethereumjs/tx'
import { bytesToBigInt, createAddressFromString, createContractAddress } from '@ethereumjs/util'
import type { TxReceipt } from '@ethereumjs/vm'
import { flatString, toData, toQuantity } from '../../encoding/hex.ts'
import { sharedZeros } from './compactHeader.ts'

export interface LogJson {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  transactionHash: string
  transactionIndex: string
  blockHash: string
  blockTimestamp: string
  logIndex: string
  removed: false
}

export type TransactionJson = Record<string, unknown> & { hash: string }
export type ReceiptJson = Record<string, unknown> & { transactionHash: string; logs: LogJson[] }

/** Where a transaction sits; `undefined` renders it as pending (geth's null fields). */
export interface Inclusion {
  blockHash: string
  blockNumber: bigint
  blockTimestamp: bigint
  index: number
  baseFee: bigint | undefined
}

const BLOB_GAS_PER_BLOB = 131072n

/**
 * The price per gas a transaction paid in a block: `gasPrice` for types 0 and 1, else
 * `min(maxFeePerGas, baseFee + maxPriorityFeePerGas)`.
 */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if ('maxFeePerGas' in tx) {
    if (baseFee === undefined) return tx.maxFeePerGas
    const tip = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee
    return baseFee + tip
  }
  return (tx as { gasPrice: bigint }).gasPrice
}

export function renderTransaction(tx: TypedTransaction, from: string, at: Inclusion | undefined): TransactionJson {
  const out: Record<string, unknown> = {
    blockHash: at ? at.blockHash : null,
    blockNumber: at ? toQuantity(at.blockNumber) : null,
    blockTimestamp: at ? toQuantity(at.blockTimestamp) : null,
    from,
    gas: toQuantity(tx.gasLimit),
  }
  const dynamic = 'maxFeePerGas' in tx
  out.gasPrice = toQuantity(dynamic && !at ? tx.maxFeePerGas : effectiveGasPrice(tx, at?.baseFee))
  if (dynamic) {
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas)
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas)
  }
  if (tx.type === TransactionType.BlobEIP4844) {
    out.maxFeePerBlobGas = toQuantity((tx as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas)
  }
  out.hash = toData(tx.hash())
  out.input = toData(tx.data)
  out.nonce = toQuantity(tx.nonce)
  out.to = tx.to ? toData(tx.to.bytes) : null
  out.transactionIndex = at ? toQuantity(at.index) : null
  out.value = toQuantity(tx.value)
  out.type = toQuantity(tx.type)
  if (tx.type !== TransactionType.Legacy) {
    // What tx.toJSON() gives as accessList, without rendering every other field of the transaction too.
    out.accessList = accessListBytesToJSON((tx as { accessList: AccessListBytes }).accessList)
    out.chainId = toQuantity(tx.common.chainId())
  } else if (isProtected(tx)) {
    out.chainId = toQuantity(tx.common.chainId())
  }
  if (tx.type === TransactionType.BlobEIP4844) {
    out.blobVersionedHashes = (tx as { blobVersionedHashes: string[] }).blobVersionedHashes.map((h) => h.toLowerCase())
  }
  if (tx.type === TransactionType.EOACodeEIP7702) {
    out.authorizationList = (tx as EIP7702CompatibleTx).authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: toQuantity(bytesToBigInt(chainId)),
      address: toData(address),
      nonce: toQuantity(bytesToBigInt(nonce)),
      yParity: toQuantity(bytesToBigInt(yParity)),
      r: toQuantity(bytesToBigInt(r)),
      s: toQuantity(bytesToBigInt(s)),
    }))
  }
  out.v = toQuantity(tx.v ?? 0n)
  out.r = toQuantity(tx.r ?? 0n)
  out.s = toQuantity(tx.s ?? 0n)
  if (tx.type !== TransactionType.Legacy) out.yParity = toQuantity(tx.v ?? 0n)
  return out as TransactionJson
}

/** A legacy transaction signed with EIP-155 (v = chainId * 2 + 35/36) rather than v = 27/28. */
function isProtected(tx: TypedTransaction): boolean {
  const v = tx.v
  return v !== undefined && v !== 27n && v !== 28n
}

export interface ReceiptInput {
  tx: TypedTransaction
  from: string
  receipt: TxReceipt
  gasUsed: bigint
  firstLogIndex: number
  at: Inclusion
  blobGasPrice: bigint | undefined
}

/**
 * The logs bloom of a receipt without logs (`0x` and 512 zeros), one flat string that every such
 * receipt a chain keeps shares. Rendered per receipt it is a rope of ~570 bytes: a kept value
 * transfer's receipt weighed 1.7 KiB with it, 1.15 KiB without (test/chain/receiptBloom.test.ts).
 */
const EMPTY_BLOOM = flatString(toData(new Uint8Array(256)))

const isEmptyBloom = (bloom: Uint8Array) => bloom.length === 256 && sharedZeros(bloom) !== undefined

export function renderReceipt(input: ReceiptInput): ReceiptJson {
  const { tx, from, receipt, gasUsed, at } = input
  const transactionHash = toData(tx.hash())
  const logs = receipt.logs.map(([address, topics, data], i) => ({
    address: toData(address),
    topics: topics.map((t) => toData(t)),
    data: toData(data),
    blockNumber: toQuantity(at.blockNumber),
    transactionHash,
    transactionIndex: toQuantity(at.index),
    blockHash: at.blockHash,
    blockTimestamp: toQuantity(at.blockTimestamp),
    logIndex: toQuantity(input.firstLogIndex + i),
    removed: false as const,
  }))
  const out: Record<string, unknown> = {
    blockHash: at.blockHash,
    blockNumber: toQuantity(at.blockNumber),
    contractAddress: tx.to ? null : toData(createContractAddress(createAddressFromString(from), tx.nonce).bytes),
    cumulativeGasUsed: toQuantity(receipt.cumulativeBlockGasUsed),
    effectiveGasPrice: toQuantity(effectiveGasPrice(tx, at.baseFee)),
    from,
    gasUsed: toQuantity(gasUsed),
    logs,
    logsBloom: isEmptyBloom(receipt.bitvector) ? EMPTY_BLOOM : toData(receipt.bitvector),
  }
  if ('stateRoot' in receipt) out.root = toData(receipt.stateRoot)
  else out.status = toQuantity(receipt.status)
  out.to = tx.to ? toData(tx.to.bytes) : null
  out.transactionHash = transactionHash
  out.transactionIndex = toQuantity(at.index)
  out.type = toQuantity(tx.type)
  if (tx.type === TransactionType.BlobEIP4844) {
    const blobs = BigInt((tx as { blobVersionedHashes: string[] }).blobVersionedHashes.length)
    out.blobGasUsed = toQuantity(blobs * BLOB_GAS_PER_BLOB)
    out.blobGasPrice = toQuantity(input.blobGasPrice ?? 0n)
  }
  return out as ReceiptJson
}

export function inclusionOf(block: Block, index: number): Inclusion {
  return {
    blockHash: toData(block.hash()),
    blockNumber: block.header.number,
    blockTimestamp: block.header.timestamp,
    index,
    baseFee: block.header.baseFeePerGas,
  }
}
