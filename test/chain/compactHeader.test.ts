/**
 * A mined header's byte fields in one buffer (src/chain/blocks/compactHeader.ts): the same header as
 * EthereumJS makes from the same fields (bytes, hash, JSON), frozen, its fields views of one
 * buffer or shared zeros; and a compact copy of a header made already (the one runBlock seals a
 * mined block with), the same again without making the header anew.
 */
import { createBlockHeader } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { Address, KECCAK256_RLP, KECCAK256_RLP_ARRAY, SHA256_NULL } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { compactCopy, compactHeader } from '../../src/chain/blocks/compactHeader.ts'
import { heapAfterGc } from '../support/heap.ts'
import { bytes } from '../support/trieFixture.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Osaka })

const fields = (bloom: Uint8Array) => ({
  parentHash: bytes(1, 32),
  coinbase: new Address(bytes(2, 20)),
  stateRoot: bytes(3, 32),
  transactionsTrie: KECCAK256_RLP,
  receiptTrie: bytes(4, 32),
  logsBloom: bloom,
  number: 1234n,
  gasLimit: 30_000_000n,
  gasUsed: 21_000n,
  timestamp: 1_700_000_000n,
  extraData: bytes(5, 7),
  mixHash: new Uint8Array(32),
  nonce: new Uint8Array(8),
  baseFeePerGas: 7n,
  withdrawalsRoot: KECCAK256_RLP,
  blobGasUsed: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: new Uint8Array(32),
  requestsHash: bytes(6, 32),
})

describe('compactHeader', () => {
  for (const [name, bloom] of [
    ['an empty bloom', new Uint8Array(256)],
    ['a bloom with bits set', bytes(7, 256)],
  ] as const) {
    it(`makes the header EthereumJS makes, with ${name}, its fields in one buffer`, () => {
      const want = createBlockHeader(fields(bloom), { common })
      const got = compactHeader(fields(bloom), common)
      expect(got.serialize()).toEqual(want.serialize())
      expect(got.hash()).toEqual(want.hash())
      expect(got.toJSON()).toEqual(want.toJSON())
      expect(Object.isFrozen(got)).toBe(true)
      expect(got.stateRoot.buffer).toBe(got.parentHash.buffer)
      expect(got.coinbase.bytes.buffer).toBe(got.parentHash.buffer)
      expect(got.hash().buffer).toBe(got.parentHash.buffer)
      // All-zero fields are shared between headers.
      expect(compactHeader(fields(bloom), common).mixHash).toBe(got.mixHash)
      expect(got.parentBeaconBlockRoot).toBe(got.mixHash)
    })
  }

  it("holds EthereumJS's constants where a field equals one (runBlock computes its own copies of the empty roots)", () => {
    const copies = { ...fields(new Uint8Array(256)), transactionsTrie: KECCAK256_RLP.slice(), withdrawalsRoot: KECCAK256_RLP.slice(), uncleHash: KECCAK256_RLP_ARRAY.slice(), requestsHash: SHA256_NULL.slice() }
    const want = createBlockHeader(copies, { common })
    const got = compactHeader(copies, common)
    expect(got.serialize()).toEqual(want.serialize())
    expect(got.hash()).toEqual(want.hash())
    expect(got.transactionsTrie).toBe(KECCAK256_RLP)
    expect(got.withdrawalsRoot).toBe(KECCAK256_RLP)
    expect(got.uncleHash).toBe(KECCAK256_RLP_ARRAY)
    expect(got.requestsHash).toBe(SHA256_NULL)
    // A field equal to none stays in the header's buffer.
    expect(got.receiptTrie.buffer).toBe(got.parentHash.buffer)
  })

  it("copies a header made already: the same header, its fields in one buffer, the made one untouched, the fork's Common given (not the made header's copy)", () => {
    const made = createBlockHeader(fields(bytes(7, 256)), { common })
    const madeHash = made.hash()
    const got = compactCopy(made, common)!
    expect(got.serialize()).toEqual(made.serialize())
    expect(got.hash()).toEqual(madeHash)
    expect(got.toJSON()).toEqual(made.toJSON())
    expect(made.common).not.toBe(common)
    expect(got.common).toBe(common)
    expect(compactCopy(made, new Common({ chain: Mainnet, hardfork: Hardfork.Prague }))!.common).toBe(made.common)
    expect(Object.isFrozen(got)).toBe(true)
    expect(got.stateRoot.buffer).toBe(got.parentHash.buffer)
    expect(got.hash().buffer).toBe(got.parentHash.buffer)
    expect(got.mixHash).toBe(compactHeader(fields(bytes(7, 256)), common).mixHash)
    // The made header keeps its own fields and hash.
    expect(made.stateRoot.buffer).not.toBe(got.stateRoot.buffer)
    expect(made.hash()).toBe(madeHash)
  })

  it('a kept copy weighs its fields in one buffer and a property array, about what a header made anew weighs', () => {
    const made = createBlockHeader(fields(bytes(7, 256)), { common })
    compactCopy(made, common)
    const before = heapAfterGc()
    const kept = Array.from({ length: 5_000 }, () => compactCopy(made, common)!)
    const perCopy = (heapAfterGc() - before) / kept.length
    expect(kept[4_999]!.hash()).toEqual(made.hash())
    expect(perCopy).toBeLessThan(1_800)
  })

  it('a header of another shape (another EthereumJS version) is not copied: the caller makes it anew', () => {
    const made = createBlockHeader(fields(bytes(7, 256)), { common, freeze: false })
    ;(made as unknown as { extra: number }).extra = 1
    expect(compactCopy(made, common)).toBeUndefined()
  })
})
