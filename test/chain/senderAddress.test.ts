/**
 * A transaction's sender address hashed with its Common's keccak (src/chain/vm/senderAddress.ts,
 * patches/README.md change 21), compared with EthereumJS's own `getSenderAddress` on the same
 * transactions: every transaction type, frozen or not, with and without a custom keccak, and a
 * signature that recovers nothing.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createAccessList2930Tx, createBlob4844Tx, createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { bytesToHex, intToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { keccak256, keccakReady } from '../../src/encoding/keccak.ts'
import { PATCHED_TX_VERSION, TX_CLASSES, ownGetSenderAddress, patchSenderAddress } from '../../src/chain/vm/senderAddress.ts'

const TO = '0x000000000000000000000000000000000000beef'

// A blob transaction needs a kzg to be made at all; one without blobs never calls it.
const kzg = {} as NonNullable<ConstructorParameters<typeof Common>[0]['customCrypto']>['kzg']

function commonWith(custom: boolean): Common {
  return new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: custom ? { keccak256, kzg } : { kzg } })
}

/** One signed transaction of each type, by the key `seed` makes. */
function signedOfEachType(seed: number, common: Common, freeze: boolean) {
  const key = keccak256(intToBytes(seed + 1))
  const opts = { common, freeze }
  const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }
  return [
    createLegacyTx({ nonce: seed, gasPrice: 10n ** 10n, gasLimit: 21_000n, to: TO, value: 1n }, opts),
    createAccessList2930Tx({ nonce: seed, gasPrice: 10n ** 10n, gasLimit: 30_000n, to: TO, accessList: [] }, opts),
    createFeeMarket1559Tx({ nonce: seed, gasLimit: 21_000n, to: TO, data: intToBytes(seed), ...fees }, opts),
    createBlob4844Tx({ nonce: seed, gasLimit: 21_000n, to: TO, maxFeePerBlobGas: 1n, blobVersionedHashes: [`0x01${'00'.repeat(31)}`], ...fees }, opts),
    createEOACode7702Tx({ nonce: seed, gasLimit: 60_000n, to: TO, authorizationList: [{ chainId: '0x1', address: TO, nonce: '0x0', yParity: '0x0', r: '0x01', s: '0x01' }], ...fees }, opts),
  ].map((tx) => tx.sign(key))
}

describe("a transaction's sender address", () => {
  it(`is patched on every transaction class of @ethereumjs/tx ${PATCHED_TX_VERSION}, the version installed`, () => {
    expect(patchSenderAddress()).toBe(true)
    TX_CLASSES.forEach((c, i) => expect(c.prototype.getSenderAddress).not.toBe(ownGetSenderAddress[i]))
  })

  for (const custom of [true, false])
    for (const freeze of [true, false])
      it(`is EthereumJS's own on every type (${custom ? 'our' : "noble's"} keccak, ${freeze ? 'frozen' : 'not frozen'}), asked twice`, async () => {
        await keccakReady()
        patchSenderAddress()
        const common = commonWith(custom)
        for (let seed = 0; seed < 12; seed++)
          for (const [i, tx] of signedOfEachType(seed, common, freeze).entries()) {
            const own = bytesToHex(ownGetSenderAddress[i]!.call(tx).bytes)
            expect(bytesToHex(tx.getSenderAddress().bytes)).toBe(own)
            expect(tx.getSenderAddress().toString()).toBe(own)
          }
      })

  it('refuses a signature that recovers nothing as EthereumJS does', async () => {
    await keccakReady()
    patchSenderAddress()
    const signed = signedOfEachType(7, commonWith(true), false)
    for (const [i, tx] of signed.entries()) {
      const bad = Object.assign(Object.create(Object.getPrototypeOf(tx)), tx, { r: 0n, cache: {} })
      const own = (() => {
        try {
          return ownGetSenderAddress[i]!.call(bad)
        } catch (err) {
          return (err as Error).message
        }
      })()
      expect(typeof own).toBe('string')
      expect(() => bad.getSenderAddress()).toThrow(own as string)
    }
  })
})
