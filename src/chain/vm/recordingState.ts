/**
 * The chain's own state manager (the one its VM mines with, and the loader replays with): a
 * `MerkleStateManager` that notes in a `KeyBook` every address and storage slot written through
 * it, so that a dump of the state can name its keys (see ./keyBook.ts). Calls run on other state
 * managers (./blockState.ts) and write nothing here. Imported on first need, like ./blockState.ts.
 *
 * A forked chain's state (`fork` set) reads through to the upstream at the fork block what its
 * trie lacks (./forkState.ts); without a fork, EthereumJS's reads run unchanged. Its `eoaView`
 * waives EIP-3607 for an impersonated sender's transaction (./eoaView.ts).
 *
 * Storage writes stay in the storage cache until it is flushed (a block's state root, the outermost
 * commit): EthereumJS 10.1.3's `putStorage` also writes the storage trie on every SSTORE
 * (`this._caches?.storage?.put(...) ?? await this._writeContractStorage(...)`, and `put` returns
 * nothing), walking and hashing the trie for values the flush writes again, intermediate and
 * reverted ones included: half of an empty block's system calls (EIP-7002, EIP-7251), which store
 * what their slots already hold. The flush writes the same final values, so every root is the
 * same. A written slot must then stay in the cache until the flush: see `#keepDirtySlots`.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, bytesToUnprefixedHex, createAccountFromRLP, equalsBytes, unpadBytes } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'
import { forkAccountEntry } from './forkState.ts'
import type { ForkReads } from './forkState.ts'
import { EoaView } from './eoaView.ts'
import type { KeyBook } from './keyBook.ts'

/** The part of EthereumJS's storage cache (an LRU of addresses, each with its slots) read here. */
interface StorageLru {
  readonly size: number
  readonly max: number
  set(key: string, value: unknown): void
  /** Least recently used first. */
  rentries(): IterableIterator<[string, unknown]>
}

export class RecordingStateManager extends MerkleStateManager {
  readonly book: KeyBook
  /** The upstream at the fork block, for a forked chain's state. */
  readonly fork: ForkReads | undefined
  readonly eoaView = new EoaView()

  constructor(opts: MerkleStateManagerOpts, book: KeyBook, fork?: ForkReads) {
    super(opts)
    this.book = book
    this.fork = fork
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    return this.eoaView.apply(address, await this.#readAccount(address))
  }

  async #readAccount(address: Address): Promise<Account | undefined> {
    const fork = this.fork
    if (fork === undefined) return super.getAccount(address)
    const cached = this._caches?.account?.get(address)
    if (cached !== undefined) return cached.accountRLP !== undefined ? createAccountFromRLP(cached.accountRLP) : undefined
    const rlp = await forkAccountEntry(await this._trie.get(address.bytes), fork, address)
    const account = rlp !== null ? createAccountFromRLP(rlp) : undefined
    this._caches?.account?.put(address, account)
    return account
  }

  /** The addresses whose storage was read or written since the storage cache was last clean. */
  #touched = new Set<string>()
  /** The storage LRU's own size, when `#keepDirtySlots` made it larger. */
  #lruSize: number | undefined

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    this.#keepDirtySlots(address)
    const fork = this.fork
    if (fork === undefined || key.length !== 32) return super.getStorage(address, key)
    const cached = this._caches?.storage?.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.#readAccount(address)
    if (!account) return new Uint8Array()
    const value = (await this._getStorageTrie(address, account).get(key)) ?? (await fork.storage(address, key))
    this._caches?.storage?.put(address, key, value ?? Uint8Array.of(0x80))
    return RLP.decode(value ?? new Uint8Array()) as Uint8Array
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const code = await super.getCode(address)
    if (this.fork === undefined || code.length > 0) return code
    return forkCode(this, this.fork, address)
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.book.account(address.toString())
    return super.putAccount(address, account)
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.book.account(address.toString())
    return super.putCode(address, value)
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length === 32) this.book.slot(address.toString(), bytesToHex(key))
    const storage = this._caches?.storage
    // Without a cache, and for what EthereumJS refuses (its errors), its own path.
    if (storage === undefined || key.length !== 32 || value.length > 32 || (await this.getAccount(address)) === undefined) {
      return super.putStorage(address, key, value)
    }
    this.#keepDirtySlots(address)
    const encoded = RLP.encode(unpadBytes(value))
    // The value the slot holds already: nothing to write (nor to revert).
    const held = storage.get(address, key)
    if (held !== undefined && equalsBytes(held, encoded)) return
    storage.put(address, key, encoded)
  }

  override async flush(): Promise<void> {
    await super.flush()
    const storage = this._caches?.storage
    if (storage === undefined || storage['_diffCache'].some((level) => level.size > 0)) return
    // Nothing written waits in the cache: any address may leave it again.
    this.#touched.clear()
    const lru = storage['_lruCache'] as StorageLru | undefined
    if (lru !== undefined && this.#lruSize !== undefined) {
      storage['_lruCache'] = resized(lru, this.#lruSize) as typeof storage._lruCache
      this.#lruSize = undefined
    }
  }

  /**
   * A written slot lives only in the storage cache until the flush, so the cache's LRU must not
   * drop it. It drops its least recently used address when a new one comes in full: one not read
   * or written since the cache was last clean, unless that many addresses were. Before the
   * address that would make them as many as the LRU holds, it is made larger (twice); the flush
   * that leaves nothing written in it makes it its own size again.
   */
  #keepDirtySlots(address: Address): void {
    const storage = this._caches?.storage
    const lru = storage?.['_lruCache'] as StorageLru | undefined
    if (storage === undefined || lru === undefined) return
    const hex = bytesToUnprefixedHex(address.bytes)
    if (this.#touched.has(hex)) return
    this.#touched.add(hex)
    if (this.#touched.size < lru.max) return
    if (!storage['_diffCache'].some((level) => level.size > 0)) {
      // Nothing written waits in the cache: a new count starts here.
      this.#touched.clear()
      this.#touched.add(hex)
      return
    }
    this.#lruSize ??= lru.max
    storage['_lruCache'] = resized(lru, lru.max * 2) as typeof storage._lruCache
  }

  /** A copy over the same trie database, with a copy of the book (a fork records its own writes). */
  override shallowCopy(downlevelCaches = true): RecordingStateManager {
    const base = super.shallowCopy(downlevelCaches)
    return new RecordingStateManager({ common: base.common, trie: base['_trie'] }, this.book.copy(), this.fork)
  }
}

/** An LRU like `lru` (EthereumJS's options) holding `max` addresses: its most recently used ones, in the same order. */
function resized(lru: StorageLru, max: number): StorageLru {
  const made = new (lru.constructor as new (opts: { max: number; updateAgeOnGet: boolean }) => StorageLru)({ max, updateAgeOnGet: true })
  for (const [key, value] of lru.rentries()) made.set(key, value)
  return made
}

/**
 * A forked state's code that its trie database lacks: the upstream's (when the account has code),
 * kept in the state's code cache so that a flush writes it to the database.
 */
export async function forkCode(state: MerkleStateManager, fork: ForkReads, address: Address): Promise<Uint8Array> {
  const account = await state.getAccount(address)
  if (!account?.isContract()) return new Uint8Array()
  const code = await fork.code(address)
  state['_caches']?.code?.put(address, code)
  return code
}
