/**
 * An account's RLP body (`[nonce, balance, storageRoot, codeHash]`, as the state trie and the
 * state manager's cache hold it) decoded into an `Account`: the one `createAccountFromRLP` of
 * `@ethereumjs/util` makes. Its decode is `@ethereumjs/rlp`'s generic one (a `{data, remainder}`
 * object and a copied array per item, a list of them) and `bytesToBigInt` through a hex string;
 * every account a transaction reads from the caches is decoded again (callers may change what
 * they read). Here the one shape a state's account has is read in place. Any other input (not
 * that shape, or a form `@ethereumjs/rlp` refuses, such as a prefixed single byte below 0x80)
 * goes to `createAccountFromRLP`, which decodes or throws as it always did.
 */
import { Account, createAccountFromRLP } from '@ethereumjs/util'
import { toData } from './hex.ts'

/** `createAccountFromRLP(rlp)`. */
export function decodeAccount(rlp: Uint8Array): Account {
  // A list of more than 55 bytes (the two hashes alone are 66): 0xf8 and one length byte.
  if (rlp.length < 2 || rlp[0] !== 0xf8 || rlp[1]! < 56 || rlp.length !== rlp[1]! + 2) return createAccountFromRLP(rlp)
  const nonceEnd = scalarEnd(rlp, 2)
  const balanceEnd = nonceEnd < 0 ? -1 : scalarEnd(rlp, nonceEnd)
  if (balanceEnd < 0 || balanceEnd + 66 !== rlp.length || rlp[balanceEnd] !== 0xa0 || rlp[balanceEnd + 33] !== 0xa0) return createAccountFromRLP(rlp)
  return new Account(
    scalar(rlp, 2, nonceEnd),
    scalar(rlp, nonceEnd, balanceEnd),
    // Copies, as the RLP decode gives them (an account keeps them).
    rlp.slice(balanceEnd + 1, balanceEnd + 33),
    rlp.slice(balanceEnd + 34, balanceEnd + 66),
  )
}

/** Where the byte string at `at` ends (a single byte, or a prefix 0x80-0xb7 and its bytes); -1 when it is not one `@ethereumjs/rlp` takes. */
function scalarEnd(rlp: Uint8Array, at: number): number {
  const first = rlp[at]
  if (first === undefined || first > 0xb7) return -1
  if (first < 0x80) return at + 1
  const length = first - 0x80
  // A single byte below 0x80 must stand alone: @ethereumjs/rlp refuses it prefixed.
  if (length === 1 && rlp[at + 1]! < 0x80) return -1
  return at + 1 + length
}

/** The big-endian integer of the byte string from `at` to `end` (its prefix included). */
function scalar(rlp: Uint8Array, at: number, end: number): bigint {
  const first = rlp[at]!
  if (first < 0x80) return BigInt(first)
  const start = at + 1
  if (end - start <= 6) {
    let n = 0
    for (let i = start; i < end; i++) n = n * 256 + rlp[i]!
    return BigInt(n)
  }
  return BigInt(toData(rlp.subarray(start, end)))
}
