/**
 * A bound on how many slots the chain state manager's storage cache keeps per address. EthereumJS's
 * storage cache is an LRU of addresses, each with a `Map` of every slot read or written through it,
 * never trimmed: the system contracts' ring buffers (EIP-2935's block hashes, EIP-4788's beacon
 * roots) write new slots with every block, each kept (~330 bytes: the key's hex, the value) and
 * never read again, about 1 KiB a block for a chain's first 8,191 blocks. After a flush (the
 * written values are in the trie, the cache only answers reads), an address written since the last
 * one that holds more than `MAX_SLOTS` keeps its last `MAX_SLOTS / 2` slots (a `Map` iterates in the
 * order its keys came): a slot dropped is read from the trie again when asked.
 */

/** Slots kept per address (~330 bytes each: at most ~340 KiB an address). */
export const MAX_SLOTS = 1024

/** What is read here of EthereumJS 10.1.3's `StorageCache`: its LRU of addresses, its open checkpoints. */
interface StorageCacheInternals {
  _lruCache?: { peek(address: string): Map<string, unknown> | undefined }
  _checkpoints: number
}

/**
 * Trims the slots of `addresses` (unprefixed hex, as the cache keys them) in `cache` after a flush;
 * false when it could not (a checkpoint is open: the caller keeps the addresses for the next flush).
 */
export function boundSlots(cache: unknown, addresses: Iterable<string>): boolean {
  const internals = cache as StorageCacheInternals | undefined
  const lru = internals?._lruCache
  // With a checkpoint open, the cache holds values the trie does not (its diffs revert to them).
  if (lru === undefined) return true
  if (internals!._checkpoints !== 0) return false
  for (const address of addresses) {
    const slots = lru.peek(address)
    if (slots === undefined || slots.size <= MAX_SLOTS) continue
    let drop = slots.size - MAX_SLOTS / 2
    for (const key of slots.keys()) {
      if (drop-- === 0) break
      slots.delete(key)
    }
  }
  return true
}
