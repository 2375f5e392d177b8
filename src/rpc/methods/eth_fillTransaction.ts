/**
 * geth's `eth_fillTransaction` (internal/ethapi `FillTransaction`), on the test endpoint only (the
 * hosted service does not list it: `/v3/` answers -32601). The transaction's missing fields are
 * filled as `eth_sendTransaction` fills them (geth's `setDefaults`: fees, the sender's pending
 * nonce, the estimate), nothing is signed or sent, and the answer is geth's
 * `SignTransactionResult`: `{ raw, tx }`, the unsigned transaction's bytes (a zero signature) and
 * its JSON as geth's `types.Transaction` marshals it. viem prepares a transaction in this one call
 * (then signs it locally) where it otherwise asks for the chain id, nonce, fees and gas apiece.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, hexToBytes } from '@ethereumjs/util'
import type { UnsignedTxFields } from '../../chain/pool/impersonation.ts'
import { keccak256 } from '../../encoding/keccak.ts'
import { toData, toQuantity } from '../../encoding/hex.ts'
import { callObject } from '../callObject.ts'
import { defineMethod } from '../method.ts'
import { fillUnsigned } from '../sendUnsigned.ts'

/** The zero address: geth's sender when `from` is not given. */
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

export const eth_fillTransaction = defineMethod({
  name: 'eth_fillTransaction',
  params: [callObject],
  run: async ([args], { chain }) => {
    const fields = await fillUnsigned(chain, args, args.from ?? ZERO_ADDRESS)
    const raw = unsignedRaw(fields)
    return { raw: toData(raw), tx: transactionJson(fields, raw) }
  },
})

const quantity = (n: bigint) => bigIntToUnpaddedBytes(n)

/** The transaction's bytes with a zero signature (geth's `MarshalBinary` of an unsigned transaction). */
export function unsignedRaw(f: UnsignedTxFields): Uint8Array {
  const to = f.to === undefined ? new Uint8Array() : hexToBytes(f.to as `0x${string}`)
  const accessList = (f.accessList ?? []).map((e) => [hexToBytes(e.address as `0x${string}`), e.storageKeys.map((k) => hexToBytes(k as `0x${string}`))])
  const noSignature = [new Uint8Array(), new Uint8Array(), new Uint8Array()]
  if (f.type === 0) return RLP.encode([quantity(f.nonce), quantity(f.gasPrice!), quantity(f.gasLimit), to, quantity(f.value), f.data, ...noSignature])
  const body =
    f.type === 1
      ? [quantity(f.chainId), quantity(f.nonce), quantity(f.gasPrice!), quantity(f.gasLimit), to, quantity(f.value), f.data, accessList, ...noSignature]
      : [quantity(f.chainId), quantity(f.nonce), quantity(f.maxPriorityFeePerGas!), quantity(f.maxFeePerGas!), quantity(f.gasLimit), to, quantity(f.value), f.data, accessList, ...noSignature]
  return new Uint8Array([f.type, ...RLP.encode(body)])
}

/**
 * geth's `types.Transaction` JSON (core/types/transaction_marshalling.go), fields in its order:
 * fields a type does not have are `null` (`gasPrice` of a type 2), `chainId` only on typed
 * transactions (a legacy one with a zero `v` is unprotected), `yParity` beside `v` on typed ones.
 */
export function transactionJson(f: UnsignedTxFields, raw: Uint8Array): Record<string, unknown> {
  const typed = f.type !== 0
  return {
    type: toQuantity(f.type),
    ...(typed ? { chainId: toQuantity(f.chainId) } : {}),
    nonce: toQuantity(f.nonce),
    to: f.to ?? null,
    gas: toQuantity(f.gasLimit),
    gasPrice: f.type === 2 ? null : toQuantity(f.gasPrice!),
    maxPriorityFeePerGas: f.type === 2 ? toQuantity(f.maxPriorityFeePerGas!) : null,
    maxFeePerGas: f.type === 2 ? toQuantity(f.maxFeePerGas!) : null,
    value: toQuantity(f.value),
    input: toData(f.data),
    ...(typed ? { accessList: (f.accessList ?? []).map((e) => ({ address: e.address, storageKeys: [...e.storageKeys] })) } : {}),
    v: '0x0',
    r: '0x0',
    s: '0x0',
    ...(typed ? { yParity: '0x0' } : {}),
    hash: toData(keccak256(raw)),
  }
}
