/**
 * A call as the transaction EthereumJS executes: the type geth would execute it as, its fields
 * (fees normalized, a blob fee where the call names none), unsigned, from the call's sender. Built
 * once and reused at lower gas limits (see `CallTransaction.at`).
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createTx, TransactionType } from '@ethereumjs/tx'
import type { TypedTransaction, TypedTxData } from '@ethereumjs/tx'
import { MAX_INTEGER } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import { authorizationListData } from './callArgs.ts'
import type { CallArgs } from './callArgs.ts'
import { gethCallError } from './gethErrors.ts'

/** The transaction type geth would execute the call as. */
export function callType(args: CallArgs, baseFee: bigint | undefined): number {
  if (args.authorizationList !== undefined) return TransactionType.EOACodeEIP7702
  if (args.blobVersionedHashes !== undefined) return TransactionType.BlobEIP4844
  if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined) return TransactionType.FeeMarketEIP1559
  if (baseFee !== undefined && args.gasPrice === undefined) return TransactionType.FeeMarketEIP1559
  if (args.accessList !== undefined) return TransactionType.AccessListEIP2930
  return TransactionType.Legacy
}

export class CallTransaction {
  readonly #args: CallArgs
  readonly #type: number
  readonly #from: Address
  readonly #block: Block
  /** The Common the transactions share (see `sharedTxCommon` in ./blockCalls.ts). */
  readonly #common: Common
  /** The transaction, built once, and the highest gas limit it was built (checked) with. */
  #tx: TypedTransaction | undefined
  #checkedGas = -1n

  constructor(args: CallArgs, type: number, from: Address, block: Block, common: Common) {
    this.#args = args
    this.#type = type
    this.#from = from
    this.#block = block
    this.#common = common
  }

  /**
   * The call as a transaction with `gasLimit`. It is built (and checked by EthereumJS) once per
   * higher limit; a lower limit reuses it, since every check of the gas limit at construction
   * (below 2^64, `gas * price` below 2^256) holds for a lower limit if it held
   * for a higher one. Executions take turns, so changing the limit in place is safe. Throws a
   * `CallError` in geth's words when EthereumJS refuses the fields.
   */
  at(gasLimit: bigint): TypedTransaction {
    if (this.#tx !== undefined && gasLimit <= this.#checkedGas) {
      ;(this.#tx as { gasLimit: bigint }).gasLimit = gasLimit
      return this.#tx
    }
    const tx = this.#build(gasLimit)
    this.#tx = tx
    this.#checkedGas = gasLimit
    return tx
  }

  #build(gasLimit: bigint): TypedTransaction {
    const a = this.#args
    const data: Record<string, unknown> = {
      type: this.#type,
      nonce: a.nonce ?? 0n,
      gasLimit,
      to: a.to,
      value: a.value ?? 0n,
      data: a.data ?? new Uint8Array(),
    }
    if (this.#type === TransactionType.Legacy || this.#type === TransactionType.AccessListEIP2930) {
      data.gasPrice = a.gasPrice ?? 0n
    } else {
      data.maxFeePerGas = a.maxFeePerGas ?? a.gasPrice ?? 0n
      data.maxPriorityFeePerGas = a.maxPriorityFeePerGas ?? a.gasPrice ?? 0n
    }
    if (this.#type !== TransactionType.Legacy) data.accessList = a.accessList ?? []
    if (this.#type === TransactionType.BlobEIP4844) {
      data.blobVersionedHashes = a.blobVersionedHashes
      // EthereumJS insists the fee cover the block's blob price; geth zeroes that price instead
      // when the call names no blob fee. Paying the minimum makes the same execution possible.
      data.maxFeePerBlobGas = a.maxFeePerBlobGas || this.#block.header.getBlobGasPrice()
    }
    if (this.#type === TransactionType.EOACodeEIP7702) {
      data.authorizationList = authorizationListData(a.authorizationList)
    }
    // geth runs calls without EIP-7825's cap (`SkipTransactionChecks`); EthereumJS checks it when
    // it builds the transaction. Built within the cap, then given the call's limit, with the one
    // other check of the limit at construction made for the real one.
    const cap = this.#common.isActivatedEIP(7825) ? BigInt(this.#common.param('maxTransactionGasLimit')) : undefined
    if (cap !== undefined && gasLimit > cap) data.gasLimit = cap
    let tx: TypedTransaction
    try {
      tx = createTx(data as TypedTxData, { common: this.#common, freeze: false })
      if (data.gasLimit !== gasLimit) {
        const fee = (data.maxFeePerGas ?? data.gasPrice) as bigint
        if (gasLimit * fee > MAX_INTEGER) throw new Error('gasLimit * maxFeePerGas cannot exceed MAX_INTEGER (2^256-1)')
        ;(tx as { gasLimit: bigint }).gasLimit = gasLimit
      }
    } catch (err) {
      throw gethCallError(err, gasLimit, this.#from.toString())
    }
    const from = this.#from
    // An unsigned message from any address: geth's calls are not signed either.
    tx.getSenderAddress = () => from
    return tx
  }
}
