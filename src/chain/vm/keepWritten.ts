/**
 * Keeps what a state manager wrote in one of EthereumJS 10.1.3's LRU caches (accounts, code, or
 * storage by address) until the flush that writes it to the trie. Such a cache's `flush` writes the
 * entries its checkpoint diff names *that the LRU still holds*: an entry the LRU dropped before
 * the flush is lost without a word. EthereumJS writes accounts and code only at a flush, and
 * ./recordingState.ts does the same for storage, so a flush after more addresses than the LRU holds
 * (an `anvil_loadState` of 12,000 accounts, applied and then flushed once) lost the first ones.
 *
 * The LRU drops its least recently used entry when a new one comes in full, and only then. So
 * before an address is read or written through the cache, when the LRU is full and does not hold
 * that address, its least recently used entry is looked up in the checkpoint diffs: when it waits
 * for the flush, the LRU is made larger (twice, its entries kept in order). The flush that leaves
 * nothing written in the cache makes it its own size again. A cache that is not full (the usual
 * case) costs one comparison.
 */
import { bytesToUnprefixedHex } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'

/** EthereumJS's LRU (`lru-cache`), the part used here. */
interface Lru {
  readonly size: number
  readonly max: number
  has(key: string): boolean
  set(key: string, value: unknown): void
  /** Least recently used first. */
  rentries(): IterableIterator<[string, unknown]>
  rkeys(): IterableIterator<string>
}

/** The internals of EthereumJS's `AccountCache`, `CodeCache` and `StorageCache` read here: diffs keyed as the LRU. */
export interface LruCacheInternals {
  _lruCache?: unknown
  _diffCache: readonly Map<string, unknown>[]
}

export class WrittenKeeper {
  /** The LRU's own size, while it is made larger. */
  #ownSize: number | undefined
  readonly #cache: () => LruCacheInternals | undefined

  constructor(cache: () => LruCacheInternals | undefined) {
    this.#cache = cache
  }

  /** Before `address` is read or written through the cache (which may add it to the LRU). */
  touch(address: Address): void {
    const cache = this.#cache()
    const lru = cache?._lruCache as Lru | undefined
    if (cache === undefined || lru === undefined || lru.size < lru.max) return
    if (lru.has(bytesToUnprefixedHex(address.bytes))) return
    const oldest = lru.rkeys().next().value
    if (oldest === undefined || !cache._diffCache.some((level) => level.has(oldest))) return
    this.#ownSize ??= lru.max
    cache._lruCache = resized(lru, lru.max * 2)
  }

  /** After a flush: once nothing written waits in the cache, the LRU is its own size again. */
  flushed(): void {
    const cache = this.#cache()
    const lru = cache?._lruCache as Lru | undefined
    if (cache === undefined || lru === undefined || this.#ownSize === undefined) return
    if (cache._diffCache.some((level) => level.size > 0)) return
    cache._lruCache = resized(lru, this.#ownSize)
    this.#ownSize = undefined
  }
}

/** An LRU like `lru` (EthereumJS's options) holding `max` addresses: its most recently used ones, in the same order. */
function resized(lru: Lru, max: number): Lru {
  const made = new (lru.constructor as new (opts: { max: number; updateAgeOnGet: boolean }) => Lru)({ max, updateAgeOnGet: true })
  for (const [key, value] of lru.rentries()) made.set(key, value)
  return made
}
