import { bytesToBigInt, bytesToHex, createAddressFromString } from '@ethereumjs/util'
import { proveAccount } from '../../chain/vm/proof.ts'
import { toQuantity } from '../../encoding/hex.ts'
import { LATEST, readRecord } from '../blocks.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash, decodeStorageKey, stringArray } from '../validators.ts'

/** geth's cap on the storage keys of one proof. */
const MAX_PROOF_KEYS = 1024

/**
 * The account's EIP-1186 proof at a block (default `latest`), with one storage proof per key.
 * Keys are read as eth_getStorageAt reads them; a key given as 32 bytes is echoed as such, a
 * shorter one as a quantity (`0x00` comes back `0x0`), as geth writes them.
 */
export const eth_getProof = defineMethod({
  name: 'eth_getProof',
  params: [address, stringArray, optional(blockNumberOrHash, LATEST)],
  async run([owner, keyTexts, selector], { chain }) {
    if (keyTexts.length > MAX_PROOF_KEYS) {
      throw new InvalidParamsError(`too many storage keys requested (max ${MAX_PROOF_KEYS}, got ${keyTexts.length})`)
    }
    const keys = keyTexts.map(decodeStorageKey)
    const state = await chain.stateAt(await readRecord(chain, selector))
    const proof = await proveAccount(state, createAddressFromString(owner), keys)
    return {
      address: owner,
      accountProof: proof.accountProof,
      balance: toQuantity(proof.balance),
      codeHash: proof.codeHash,
      nonce: toQuantity(proof.nonce),
      storageHash: proof.storageHash,
      storageProof: proof.storageProof.map((p, i) => ({
        key: storageKeyLength(keyTexts[i]!) === 32 ? bytesToHex(keys[i]!) : toQuantity(bytesToBigInt(keys[i]!)),
        value: toQuantity(p.value),
        proof: p.proof,
      })),
    }
  },
})

/** How many bytes a storage key was given as (odd digits count as a whole byte), as geth decides its echo. */
function storageKeyLength(text: string): number {
  const digits = /^0[xX]/.test(text) ? text.slice(2) : text
  return Math.ceil(digits.length / 2)
}
