/**
 * A signed transaction's sender address hashed with its Common's `customCrypto.keccak256` (ours,
 * on WebAssembly: ../../encoding/keccak.ts), as EthereumJS's own `hash()` and
 * `getMessageToVerifySignature()` already hash (patches/README.md change 21). EthereumJS 10.1.3's
 * `getSenderAddress` is `new Address(publicToAddress(getSenderPublicKey()))`, and `@ethereumjs/util`'s
 * `publicToAddress` always hashes with `@noble/hashes`' keccak in JavaScript. The public key is
 * cached on a frozen transaction; the address is not, and a mined transaction asks for it three
 * times (admission, `runTx`, the block's record). Applied only to the version it was written for.
 */
import { AccessList2930Tx, Blob4844Tx, EOACode7702Tx, FeeMarket1559Tx, LegacyTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { ethereumjsVersion } from './ethereumjsVersion.ts'

/** The @ethereumjs/tx version this change was written against. */
export const PATCHED_TX_VERSION = '10.1.3'

type SignedTx = { common: { customCrypto: { keccak256?: (data: Uint8Array) => Uint8Array } }; getSenderPublicKey(): Uint8Array }
type TxClass = { prototype: { getSenderAddress(): Address } }

/** Every transaction class `createTxFromRLP` makes. */
export const TX_CLASSES: readonly TxClass[] = [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx] as unknown as TxClass[]

/** EthereumJS's own `getSenderAddress` of each class, as it was before the change. */
export const ownGetSenderAddress: readonly ((this: unknown) => Address)[] = TX_CLASSES.map((c) => c.prototype.getSenderAddress)

function getSenderAddress(this: SignedTx): Address {
  // getSenderPublicKey throws, as before, for a signature that recovers nothing.
  const publicKey = this.getSenderPublicKey()
  const keccak256 = this.common.customCrypto.keccak256
  // publicToAddress's own refusal (and noble's keccak, when the Common brings none): unchanged.
  if (keccak256 === undefined || !(publicKey instanceof Uint8Array) || publicKey.length !== 64) return ownGetSenderAddress[0]!.call(this)
  return new Address(keccak256(publicKey).subarray(-20))
}

let applied: boolean | undefined

/** Applies the change once, if @ethereumjs/tx is the version it was written for; answers whether it is in effect. */
export function patchSenderAddress(): boolean {
  if (applied !== undefined) return applied
  applied = ethereumjsVersion('@ethereumjs/tx') === PATCHED_TX_VERSION
  if (applied) for (const c of TX_CLASSES) c.prototype.getSenderAddress = getSenderAddress
  return applied
}
