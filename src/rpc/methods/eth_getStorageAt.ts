import { createAddressFromString } from '@ethereumjs/util'
import { toWord } from '../../encoding/hex.ts'
import { LATEST, readRecord } from '../blocks.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'
import { address, blockNumberOrHash, decodeStorageKey, string } from '../validators.ts'

/**
 * The 32-byte word at a storage slot of an account, at any block of the chain (default `latest`).
 * An account or slot never written reads as zero. At `pending`, the pending block's state (the
 * pool's transactions applied) when the pool has any.
 */
export const eth_getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  params: [address, string, optional(blockNumberOrHash, LATEST)],
  run([owner, slotText, selector], { chain }) {
    const slot = decodeStorageKey(slotText)
    const who = createAddressFromString(owner)
    const read = readRecord(chain, selector)
    // `pending` with a pooled transaction to apply: the pending block's state (../blocks.ts).
    if (read instanceof Promise) return read.then((record) => chain.stateAt(record)).then((state) => state.getStorage(who, slot)).then(toWord)
    const record = read
    // A slot the kept state of that block has read already answers at once: no promise, so the
    // request stays on the synchronous path.
    const known = chain.readyStateAt(record)?.knownStorage(who, slot)
    if (known !== undefined) return toWord(known)
    return chain
      .stateAt(record)
      .then((state) => state.getStorage(who, slot))
      .then((value) => toWord(value))
  },
})
