/**
 * The trie of a forked chain's state (./forkState.ts): a delete writes a tombstone instead, so
 * that an entry the chain emptied reads as empty rather than as the upstream's. Copies (the
 * storage tries, the read states' tries) are fork tries too.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MPTOpts } from '@ethereumjs/mpt'
import { TOMBSTONE } from './forkState.ts'

export class ForkTrie extends MerklePatriciaTrie {
  override async del(key: Uint8Array, skipKeyTransform = false): Promise<void> {
    await this.put(key, TOMBSTONE, skipKeyTransform)
  }

  /** MerklePatriciaTrie's own copy, as a fork trie. */
  override shallowCopy(includeCheckpoints = true, opts?: Partial<MPTOpts>): ForkTrie {
    const trie = new ForkTrie({ ...this['_opts'], db: this['_db'].db.shallowCopy(), root: this.root(), cacheSize: 0, ...(opts ?? {}) })
    if (includeCheckpoints && this.hasCheckpoints()) trie['_db'].setCheckpoints(this['_db'].checkpoints)
    return trie
  }
}
