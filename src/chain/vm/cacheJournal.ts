/**
 * The head state's caches brought back by a restore instead of emptied. A test suite's loop is
 * `evm_snapshot`, a few transactions, `evm_revert`: the restore set the state manager's root back
 * and emptied its account, code and storage caches, so the next block read every account and slot
 * it touches (the system contracts', the coinbase, the sender, the token's) from the trie again,
 * node by node: a send right after a restore cost ~1.6x a send after a send.
 *
 * `begin(root)` (a snapshot of the head) starts a journal of the value each cache entry held before
 * its first change: EthereumJS 10.1.3's `AccountCache`, `CodeCache` and `StorageCache` call
 * `_saveCachePreState` before every `put` and `del`, and the journal notes the entry there. Until
 * the trie leaves `root` (the first flush that writes, a root set), what a read finds is that
 * state's too, and is noted (./recordingState.ts reads through `reading*`): the first block after
 * a snapshot reads the system contracts' slots, the sender and the token, and they stay. A
 * restore to the same root (`rewindTo`) puts every noted entry back as it was (or drops it, when it
 * was not cached) and moves the trie's root without emptying the caches; the journal starts again
 * from that root, so the snapshot can be restored again.
 *
 * Why that is the state at `root`: the journal begins only when the caches hold nothing unwritten
 * (no checkpoint, empty diffs) and the trie is at `root`, so every entry then is that state's (the
 * rule mining on the head already relies on: ../mining/mining.ts). After that an entry changes
 * through `put` and `del` (noted before its first change), the caches' own checkpoint reverts (to
 * values they noted through the same call) or leaves (LRU eviction, `clear`, `clearStorage`): an
 * entry left since is either put back as noted or absent, and absent is always right.
 *
 * The state manager's storage tries come back too: those it held at `begin`, each at the root it
 * had then, and those made since for the contracts written, at their accounts' storage roots in
 * the account cache as put back. `setStateRoot` drops them all, and the block after every restore
 * made each again (a `MerklePatriciaTrie` constructed per contract it writes: the EIP-2935 and
 * EIP-4788 rings', two a snapshot / transfer / revert cycle). At rest at `root` they are the
 * state's own (EthereumJS reads and writes through them as they are); a trie object holds its root
 * and a view of the database, nothing else that the block changed. They are as many as mining on
 * the head keeps (EthereumJS drops them only when the root is set).
 *
 * Anything else empties the caches as before: another root, caches not at rest when the restore
 * comes, a cache that is not an LRU, or a journal past `MAX_ENTRIES` (it stops noting; bounded in
 * bytes: docs/limits.md).
 */
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { bytesToUnprefixedHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import { decodeAccount } from '../../encoding/accountRlp.ts'
import type { Account, Address } from '@ethereumjs/util'

/** Entries noted at most (~200 bytes each with their keys: about 3 MiB); past it, a restore empties the caches. */
export const MAX_ENTRIES = 16_384

/** EthereumJS's LRU (`lru-cache`), the part used here. */
interface Lru<V> {
  peek(key: string): V | undefined
  set(key: string, value: V): void
  delete(key: string): boolean
}

/** The internals of EthereumJS's caches read here. */
interface CacheInternals<V> {
  _lruCache?: Lru<V>
  _diffCache: readonly Map<string, unknown>[]
  _checkpoints: number
  _saveCachePreState(addressHex: string, keyHex?: string): void
}

type Entry = object
type StorageTrie = MerklePatriciaTrie
type Slots = Map<string, Uint8Array | undefined>

export class CacheJournal {
  readonly #state: MerkleStateManager
  /** The root the caches held when the journal began; undefined while it notes nothing. */
  #root: Uint8Array | undefined
  #accounts = new Map<string, Entry | undefined>()
  #codes = new Map<string, Entry | undefined>()
  /** Storage by address, then slot: EthereumJS keeps one `Map` of slots per address and changes it in place. */
  #slots = new Map<string, Slots>()
  #entries = 0
  #hooked = false
  /** Since `begin`, nothing written to the trie nor its root moved: what a read finds is the state at the journal's root. */
  #pristine = false
  /** The storage tries held at `begin` (and after a restore, the ones it put back), by the state manager's key, each with its root then. */
  #tries: [string, StorageTrie, Uint8Array][] = []

  constructor(state: MerkleStateManager) {
    this.#state = state
  }

  /** Starts noting changes from `root` when the caches are at rest there; otherwise notes nothing. */
  begin(root: Uint8Array): void {
    this.#forget()
    if (!this.#atRest() || !equalsBytes(this.#state['_trie'].root(), root) || !this.#hook()) return
    this.#root = root
    this.#pristine = true
    this.#tries = Object.entries(this.#storageTries()).map(([key, trie]) => [key, trie, trie.root()])
  }

  /**
   * A read of `address` through the caches: while the trie is still at the journal's root, what
   * the cache holds for it after the read is that state's (read from the trie, or there before),
   * to put back too, unless it was written since `begin`. An entry first read in the block after a
   * snapshot (the system contracts' slots, the sender, the token) would otherwise leave with the
   * restore, and the next block read it from the trie again.
   */
  readingAccount<T>(address: Address, read: () => Promise<T>): Promise<T> {
    return this.#readingEntry(() => this.#accounts, 'account', address, read)
  }

  readingCode<T>(address: Address, read: () => Promise<T>): Promise<T> {
    return this.#readingEntry(() => this.#codes, 'code', address, read)
  }

  async readingSlot<T>(address: Address, slot: Uint8Array, read: () => Promise<T>): Promise<T> {
    if (!this.#pristine || slot.length !== 32) return read()
    const addressHex = bytesToUnprefixedHex(address.bytes)
    const slotHex = bytesToUnprefixedHex(slot)
    const unnoted = this.#slots.get(addressHex)?.has(slotHex) !== true
    const value = await read()
    if (unnoted) {
      const held = this.#caches()?.storage._lruCache?.peek(addressHex)?.get(slotHex)
      let slots = this.#slots.get(addressHex)
      if (held !== undefined && this.#pristine && this.#room()) {
        if (slots === undefined) this.#slots.set(addressHex, (slots = new Map()))
        slots.set(slotHex, held)
      }
    }
    return value
  }

  /**
   * The account at `address` (its unprefixed lowercase hex) in the state at `root`, from the
   * account cache alone, read without changing anything (an LRU peek: no entry moved, put or
   * noted, no flush, no trie read): when the trie is at `root` and the caches at rest there, every
   * entry is that state's (the rule mining on the head relies on). `undefined`: the state holds no
   * such account; `null`: the caches cannot tell (another root, not at rest, not cached).
   */
  restingAccount(root: Uint8Array, addressHex: string): Account | undefined | null {
    if (!this.#atRest() || !equalsBytes(this.#state['_trie'].root(), root)) return null
    const entry = this.#caches()!.account._lruCache!.peek(addressHex) as { accountRLP?: Uint8Array } | undefined
    if (entry === undefined) return null
    return entry.accountRLP === undefined ? undefined : decodeAccount(entry.accountRLP)
  }

  /** Before the state manager's flush: once it writes something, the trie leaves the journal's root. */
  flushing(): void {
    if (this.#pristine && !this.#atRest()) this.#pristine = false
  }

  /** Before the state manager's root is set. */
  moving(): void {
    this.#pristine = false
  }

  /** An account or code read: when it finds `address` unnoted, its entry after the read (what the hook noted as absent during the read was the read's own put). */
  async #readingEntry<T>(noted: () => Map<string, Entry | undefined>, cache: 'account' | 'code', address: Address, read: () => Promise<T>): Promise<T> {
    if (!this.#pristine) return read()
    const key = bytesToUnprefixedHex(address.bytes)
    const unnoted = !noted().has(key)
    const value = await read()
    const entry = unnoted ? this.#caches()?.[cache]._lruCache?.peek(key) : undefined
    if (entry !== undefined && this.#pristine && this.#room()) noted().set(key, entry)
    return value
  }

  /**
   * The state manager at `root` (its trie database already holding it) with its caches as they
   * were at `root`, when the journal began there; false (nothing changed) otherwise.
   */
  async rewindTo(root: Uint8Array): Promise<boolean> {
    const from = this.#root
    if (from === undefined || !equalsBytes(from, root) || !this.#atRest()) {
      this.#forget()
      return false
    }
    const caches = this.#caches()!
    undo(caches.account._lruCache!, this.#accounts)
    undo(caches.code._lruCache!, this.#codes)
    const storage = caches.storage._lruCache!
    for (const [address, slots] of this.#slots) {
      let held = storage.peek(address)
      for (const [slot, value] of slots) {
        if (value === undefined) held?.delete(slot)
        else {
          if (held === undefined) storage.set(address, (held = new Map()))
          held.set(slot, value)
        }
      }
    }
    const tries = [...this.#tries, ...this.#madeSince(caches.account._lruCache!)]
    this.#forget()
    await this.#state.setStateRoot(root, false)
    const held = this.#storageTries()
    for (const [key, trie, trieRoot] of tries) {
      trie.root(trieRoot)
      held[key] = trie
    }
    this.#root = root
    this.#pristine = true
    this.#tries = tries
    return true
  }

  /**
   * The storage tries made since `begin` for the contracts written (EthereumJS keeps those under
   * the address's hex too), each with its account's storage root at the journal's root, read
   * from the account cache as put back (an account absent there: its trie is left out). Under the
   * key `_getStorageTrie` looks them up by (the address's hash) as well.
   */
  #madeSince(accounts: Lru<Entry>): [string, StorageTrie, Uint8Array][] {
    const kept = new Set(this.#tries.map(([, trie]) => trie))
    const keccak = (this.#state as unknown as { keccakFunction(bytes: Uint8Array): Uint8Array }).keccakFunction
    const made: [string, StorageTrie, Uint8Array][] = []
    for (const [key, trie] of Object.entries(this.#storageTries())) {
      if (key.length !== 40 || kept.has(trie)) continue
      const rlp = (accounts.peek(key) as { accountRLP?: Uint8Array } | undefined)?.accountRLP
      if (rlp === undefined) continue
      const { storageRoot } = decodeAccount(rlp)
      made.push([key, trie, storageRoot], [bytesToUnprefixedHex(keccak(hexToBytes(`0x${key}`))), trie, storageRoot])
    }
    return made
  }

  /** The state manager's storage tries, by its key (EthereumJS's `_storageTries`). */
  #storageTries(): Record<string, StorageTrie> {
    return (this.#state as unknown as { _storageTries: Record<string, StorageTrie> })._storageTries
  }

  #forget(): void {
    this.#root = undefined
    this.#pristine = false
    this.#accounts = new Map()
    this.#codes = new Map()
    this.#slots = new Map()
    this.#entries = 0
    this.#tries = []
  }

  #caches(): { account: CacheInternals<Entry>; code: CacheInternals<Entry>; storage: CacheInternals<Slots> } | undefined {
    const caches = this.#state['_caches'] as { account?: unknown; code?: unknown; storage?: unknown } | undefined
    const { account, code, storage } = caches ?? {}
    if (account === undefined || code === undefined || storage === undefined) return undefined
    return { account, code, storage } as { account: CacheInternals<Entry>; code: CacheInternals<Entry>; storage: CacheInternals<Slots> }
  }

  /** No checkpoint open and nothing waiting for the flush, in LRU caches. */
  #atRest(): boolean {
    const caches = this.#caches()
    if (caches === undefined || (this.#state as unknown as { _checkpointCount: number })._checkpointCount !== 0) return false
    return [caches.account, caches.code, caches.storage].every((c) => c._lruCache !== undefined && c._checkpoints === 0 && c._diffCache[0]!.size === 0)
  }

  /** Notes each cache's entries before their changes (once per cache object); false without LRU caches. */
  #hook(): boolean {
    if (this.#hooked) return true
    const caches = this.#caches()
    if (caches === undefined) return false
    const note = (cache: CacheInternals<Entry>, noted: () => Map<string, Entry | undefined>) => {
      const save = cache._saveCachePreState
      cache._saveCachePreState = function (this: CacheInternals<Entry>, key: string) {
        const map = noted()
        if (!map.has(key) && journal.#room()) map.set(key, this._lruCache?.peek(key))
        save.call(this, key)
      }
    }
    const journal = this
    note(caches.account, () => journal.#accounts)
    note(caches.code, () => journal.#codes)
    const save = caches.storage._saveCachePreState
    caches.storage._saveCachePreState = function (this: CacheInternals<Slots>, address: string, slot?: string) {
      if (journal.#root !== undefined && slot !== undefined) {
        let slots = journal.#slots.get(address)
        if (!slots?.has(slot) && journal.#room()) {
          if (slots === undefined) journal.#slots.set(address, (slots = new Map()))
          slots.set(slot, this._lruCache?.peek(address)?.get(slot))
        }
      }
      save.call(this, address, slot)
    }
    this.#hooked = true
    return true
  }

  /** Whether one more entry may be noted: while the journal is on and under its bound (past it, it stops). */
  #room(): boolean {
    if (this.#root === undefined) return false
    if (++this.#entries <= MAX_ENTRIES) return true
    this.#forget()
    return false
  }
}

function undo(lru: Lru<Entry>, noted: Map<string, Entry | undefined>): void {
  for (const [key, entry] of noted) {
    if (entry === undefined) lru.delete(key)
    else lru.set(key, entry)
  }
}
