import { createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import { toData } from '../../encoding/hex.ts'
import { LATEST, stateRecord } from '../blocks.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash, decodeStorageKey, string } from '../validators.ts'

/**
 * The 32-byte word at a storage slot of an account, at any block of the chain (default `latest`).
 * An account or slot never written reads as zero.
 */
export const eth_getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  params: [address, string, optional(blockNumberOrHash, LATEST)],
  async run([owner, slotText, selector], { chain }) {
    const slot = decodeStorageKey(slotText)
    const state = await chain.stateAt(stateRecord(chain, selector))
    const value = await state.getStorage(createAddressFromString(owner), slot)
    return toData(setLengthLeft(value, 32))
  },
})
