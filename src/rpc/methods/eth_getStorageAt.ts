import { createAddressFromString } from '@ethereumjs/util'
import { StorageWords } from '../../chain/store/storageWords.ts'
import { toWord } from '../../encoding/hex.ts'
import { LATEST, isPending, readRecord } from '../blocks.ts'
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
    // The same read answered before at this block, nothing changed since: the word as it was
    // written (the texts were valid then). `pending` may read the pool's state: never kept.
    const key = StorageWords.key(owner, slotText)
    const resolved = isPending(selector) ? undefined : chain.resolve(selector)
    const word = resolved && chain.storageWord(resolved, key)
    if (word !== undefined) return word
    const slot = decodeStorageKey(slotText)
    const who = createAddressFromString(owner)
    const read = readRecord(chain, selector)
    // `pending` with a pooled transaction to apply: the pending block's state (../blocks.ts).
    if (read instanceof Promise) return read.then((record) => chain.stateAt(record)).then((state) => state.getStorage(who, slot)).then(toWord)
    const record = read
    // A slot the kept state of that block has read already answers at once: no promise, so the
    // request stays on the synchronous path; its word is kept for the next read. (A word read
    // asynchronously is not: the block's state may change before it comes. The state's memo keeps
    // it, so the next read comes this way.)
    const known = chain.readyStateAt(record)?.knownStorage(who, slot)
    if (known !== undefined) {
      const text = toWord(known)
      chain.keepStorageWord(record, key, text)
      return text
    }
    return chain
      .stateAt(record)
      .then((state) => state.getStorage(who, slot))
      .then(toWord)
  },
})
