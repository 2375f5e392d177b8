/**
 * Transactions whose sender is given, not recovered (Anvil's impersonation: `eth_sendTransaction`
 * from an account whose key nobody has). Such a transaction carries a placeholder signature that
 * no signer would make: `s = 1` and `r` = the byte 0x01 followed by the sender's 20 bytes, parity
 * 0 (`v` the EIP-155 value of parity 0 for a legacy one). Both must be non-zero, or EthereumJS
 * reads the transaction as unsigned (and will not hash it); Anvil's own placeholder is all zeros,
 * with a hash of its own making, which an RLP chain could not carry. It is encoded, hashed, stored in blocks and exported
 * like any other, and two senders' otherwise equal transactions get different hashes. EthereumJS
 * would recover some other address (or none) from it, so every such transaction object answers
 * `getSenderAddress()` with its given sender; the loader does the same for the transactions an
 * export lists as impersonated (`edits.json`). Mined or replayed (`waivingEip3607`), such a
 * transaction runs whatever code its sender holds, as Anvil and Hardhat mine an impersonated
 * contract's: EIP-3607 is waived for it.
 */
import type { Common } from '@ethereumjs/common'
import { createTx, createTxFromRLP } from '@ethereumjs/tx'
import type { TypedTransaction, TypedTxData } from '@ethereumjs/tx'
import { bytesToBigInt, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { EoaView } from '../vm/eoaView.ts'

/** An unsigned transaction's fields, every default already filled in. */
export interface UnsignedTxFields {
  readonly type: 0 | 1 | 2
  readonly chainId: bigint
  readonly nonce: bigint
  readonly gasLimit: bigint
  /** Lowercase 0x address; undefined for a contract creation. */
  readonly to?: string
  readonly value: bigint
  readonly data: Uint8Array
  readonly accessList?: readonly { address: string; storageKeys: readonly string[] }[]
  /** Types 0 and 1. */
  readonly gasPrice?: bigint
  /** Type 2. */
  readonly maxFeePerGas?: bigint
  readonly maxPriorityFeePerGas?: bigint
}

const senders = new WeakMap<TypedTransaction, string>()
const senderAddresses = new WeakMap<TypedTransaction, Address>()

/**
 * An impersonated transaction's `getSenderAddress`: one function for all of them, its sender read
 * from `senderAddresses`. A closure per transaction, defined as a non-enumerable property, cost a
 * kept transaction ~0.5 KiB more (the closure, its context, and its own properties in dictionary mode).
 */
function givenSenderAddress(this: TypedTransaction): Address {
  return senderAddresses.get(this)!
}

/** The given sender of an impersonated transaction object (lowercase), or undefined. */
export function impersonatedSender(tx: TypedTransaction): string | undefined {
  return senders.get(tx)
}

/** The placeholder signature's `r` for `from`: 0x01 followed by the address's 20 bytes. */
export function placeholderR(from: string): bigint {
  return (1n << 160n) | bytesToBigInt(hexToBytes(from as `0x${string}`))
}

/** True when a transaction's signature is the placeholder of `from`. */
export function hasPlaceholderSignature(tx: TypedTransaction, from: string): boolean {
  return tx.s === 1n && tx.r === placeholderR(from)
}

/** The encoded transaction `from` sends with `fields`, signed with the placeholder. */
export function impersonatedRaw(fields: UnsignedTxFields, from: string, common: Common): Uint8Array {
  const data: TypedTxData = {
    type: fields.type,
    nonce: fields.nonce,
    gasLimit: fields.gasLimit,
    to: fields.to as `0x${string}` | undefined,
    value: fields.value,
    data: fields.data,
    r: placeholderR(from),
    s: 1n,
    v: fields.type === 0 ? fields.chainId * 2n + 35n : 0n,
    ...(fields.type === 0 ? { gasPrice: fields.gasPrice } : { chainId: fields.chainId }),
    ...(fields.type === 1 ? { gasPrice: fields.gasPrice } : {}),
    ...(fields.type === 2 ? { maxFeePerGas: fields.maxFeePerGas, maxPriorityFeePerGas: fields.maxPriorityFeePerGas } : {}),
    ...(fields.type !== 0 ? { accessList: (fields.accessList ?? []).map((e) => ({ address: e.address, storageKeys: [...e.storageKeys] })) } : {}),
  } as TypedTxData
  return createTx(data, { common }).serialize()
}

/** Decodes `raw` at `common`'s fork as a transaction `from` sent (its signature unchecked). */
export function decodeImpersonated(raw: Uint8Array, from: string, common: Common): TypedTransaction {
  return withSender(createTxFromRLP(raw, { common, freeze: false }), from)
}

/**
 * Makes `tx` (decoded with `freeze: false`) answer `from` as its sender. EthereumJS asks
 * `getSenderAddress()` everywhere it needs the sender (runTx, receipts), and caches nothing else
 * about it.
 */
export function withSender(tx: TypedTransaction, from: string): TypedTransaction {
  const sender = from.toLowerCase()
  senderAddresses.set(tx, createAddressFromString(sender))
  tx.getSenderAddress = givenSenderAddress
  senders.set(tx, sender)
  return tx
}

/**
 * Runs `run` (a `runBlock` on `vm`) with EIP-3607 waived for each impersonated transaction's sender:
 * before each transaction, the state's EOA view (../vm/eoaView.ts) is armed for its given sender.
 */
export async function waivingEip3607<T>(vm: VM, run: () => Promise<T>): Promise<T> {
  const view = (vm.stateManager as { eoaView?: EoaView }).eoaView
  if (view === undefined) return run()
  const arm = (tx: TypedTransaction): void => {
    const sender = senders.get(tx)
    if (sender === undefined) view.disarm()
    else view.arm(createAddressFromString(sender))
  }
  vm.events.on('beforeTx', arm)
  try {
    return await run()
  } finally {
    vm.events.off('beforeTx', arm)
    view.disarm()
  }
}
