/**
 * src/encoding/accountRlp.ts decodes an account body into the `Account` `@ethereumjs/util`'s
 * `createAccountFromRLP` makes: nonces and balances of every length around the single-byte and
 * six-byte bounds, the empty trie and empty code hashes, copies of the hashes (not views of the
 * body); and what is not an account body decodes or throws as `createAccountFromRLP` does.
 */
import { RLP } from '@ethereumjs/rlp'
import { Account, bytesToHex, createAccountFromRLP, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { decodeAccount } from '../../src/encoding/accountRlp.ts'
import { bytes } from '../support/trieFixture.ts'

const fields = (a: Account) => [a.nonce, a.balance, bytesToHex(a.storageRoot), bytesToHex(a.codeHash)]

/** The integer of `length` bytes drawn from `seed` (leading byte non-zero). */
const integer = (seed: number, length: number): bigint => {
  if (length === 0) return 0n
  const b = bytes(seed, length)
  b[0] = b[0]! | 1
  return BigInt(bytesToHex(b))
}

describe('decodeAccount', () => {
  it('decodes what createAccountFromRLP decodes, at every length of nonce and balance', () => {
    const values = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, ...Array.from({ length: 33 }, (_, n) => integer(n + 1, n))]
    let checked = 0
    for (const [i, nonce] of values.entries()) {
      for (const [j, balance] of values.entries()) {
        if (nonce >= 1n << 64n) continue
        const roots = [KECCAK256_RLP, bytes(i * 40 + j, 32)]
        const codes = [KECCAK256_NULL, bytes(j * 40 + i, 32)]
        const body = new Account(nonce, balance, roots[(i + j) % 2], codes[j % 2]).serialize()
        const mine = decodeAccount(body)
        expect(fields(mine)).toEqual(fields(createAccountFromRLP(body)))
        expect(bytesToHex(mine.serialize())).toBe(bytesToHex(body))
        checked++
      }
    }
    expect(checked).toBe(585)
  })

  it('gives the hashes in buffers of their own', () => {
    const body = new Account(5n, 10n ** 18n, bytes(3, 32), bytes(4, 32)).serialize()
    const account = decodeAccount(body)
    body.fill(0)
    expect(bytesToHex(account.storageRoot)).toBe(bytesToHex(bytes(3, 32)))
    expect(bytesToHex(account.codeHash)).toBe(bytesToHex(bytes(4, 32)))
  })

  it('decodes or refuses anything else as createAccountFromRLP does', () => {
    const hash = bytes(1, 32)
    const cases: Uint8Array[] = [
      // A single byte below 0x80 with a prefix (@ethereumjs/rlp refuses it).
      Uint8Array.from([0xf8, 69, 0x81, 0x05, 0x80, 0xa0, ...hash, 0xa0, ...hash]),
      // A bytes-long nonce with leading zeros, a balance of 0x00: decoded as RLP takes them.
      RLP.encode([Uint8Array.of(0, 0, 1), Uint8Array.of(0), hash, hash]),
      // Wrong lengths, trailing bytes, a short hash, five items, a list item, not a list.
      Uint8Array.from([0xf8, 67, 0x80, 0x80, 0xa0, ...hash, 0xa0, ...hash]),
      Uint8Array.from([0xf8, 66, 0x80, 0x80, 0xa0, ...hash, 0xa0, ...hash, 0x00]),
      RLP.encode([new Uint8Array(), new Uint8Array(), hash.subarray(1), hash]),
      RLP.encode([new Uint8Array(), new Uint8Array(), hash, hash, new Uint8Array()]),
      RLP.encode([new Uint8Array(), [new Uint8Array()], hash, hash]),
      RLP.encode(hash),
      Uint8Array.of(0xf8),
      new Uint8Array(),
    ]
    for (const body of cases) {
      let theirs: unknown
      try {
        theirs = fields(createAccountFromRLP(body))
      } catch (err) {
        theirs = (err as Error).message
      }
      let mine: unknown
      try {
        mine = fields(decodeAccount(body))
      } catch (err) {
        mine = (err as Error).message
      }
      expect(mine, bytesToHex(body)).toEqual(theirs)
    }
  })
})
