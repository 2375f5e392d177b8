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
 * same. A written slot (and account and code: EthereumJS writes those only at the flush) must then
 * stay in its cache until the flush: see ./keepWritten.ts. The flush writes each trie in one pass
 * (./stateCommit.ts).
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { bytesToUnprefixedHex, equalsBytes, unpadBytes } from '@ethereumjs/util'
import { decodeAccount } from '../../encoding/accountRlp.ts'
import type { Account, Address } from '@ethereumjs/util'
import { toData } from '../../encoding/hex.ts'
import { forkAccountEntry } from './forkState.ts'
import type { ForkReads } from './forkState.ts'
import { EoaView } from './eoaView.ts'
import { CacheJournal } from './cacheJournal.ts'
import { WrittenKeeper } from './keepWritten.ts'
import { boundSlots } from './slotCacheBound.ts'
import { flushInOnePass } from './stateCommit.ts'
import type { LruCacheInternals } from './keepWritten.ts'
import type { KeyBook } from './keyBook.ts'

export class RecordingStateManager extends MerkleStateManager {
  readonly book: KeyBook
  /** The upstream at the fork block, for a forked chain's state. */
  readonly fork: ForkReads | undefined
  readonly eoaView = new EoaView()
  /** What a restore of the head puts back in the caches (./cacheJournal.ts). */
  readonly cacheJournal = new CacheJournal(this)

  constructor(opts: MerkleStateManagerOpts, book: KeyBook, fork?: ForkReads) {
    super(opts)
    this.book = book
    this.fork = fork
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    this.#accounts.touch(address)
    return this.eoaView.apply(address, await this.cacheJournal.readingAccount(address, () => this.#readAccount(address)))
  }

  async #readAccount(address: Address): Promise<Account | undefined> {
    // MerkleStateManager's getAccount (without its debug log line), an account decoded in place
    // (../../encoding/accountRlp.ts: every read of a cached account decodes it again); a forked
    // chain's missing entry read from its upstream.
    const cached = this._caches?.account?.get(address)
    if (cached !== undefined) return cached.accountRLP !== undefined ? decodeAccount(cached.accountRLP) : undefined
    const fork = this.fork
    const stored = await this._trie.get(address.bytes)
    const rlp = fork === undefined ? stored : await forkAccountEntry(stored, fork, address)
    const account = rlp !== null ? decodeAccount(rlp) : undefined
    this._caches?.account?.put(address, account)
    return account
  }

  /** Written accounts and slots stay in their caches until the flush (./keepWritten.ts). */
  readonly #accounts = new WrittenKeeper(() => this._caches?.account as unknown as LruCacheInternals | undefined)
  readonly #slots = new WrittenKeeper(() => this._caches?.storage as unknown as LruCacheInternals | undefined)
  readonly #codes = new WrittenKeeper(() => this._caches?.code as unknown as LruCacheInternals | undefined)

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    this.#slots.touch(address)
    return this.cacheJournal.readingSlot(address, key, () => this.#readStorage(address, key))
  }

  async #readStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
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
    this.#codes.touch(address)
    const code = await this.cacheJournal.readingCode(address, () => super.getCode(address))
    if (this.fork === undefined || code.length > 0) return code
    return forkCode(this, this.fork, address)
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.book.account(address.toString())
    this.#accounts.touch(address)
    return super.putAccount(address, account)
  }

  /**
   * EthereumJS 10.1.3's `deleteAccount` empties the caches' entries but keeps the account's storage
   * trie in `_storageTries` at its old root: an account deleted (EIP-161: touched and empty, which
   * looks at nonce, balance and code, not storage) and made again without `clearStorage` (an
   * EIP-7702 authority; CREATE clears) read and wrote through that trie, so its deleted storage
   * came back. Its trie is dropped with it: the next one is made at the account's own storage root
   * (a new account's: empty; after a revert, the account's as it was).
   */
  override async deleteAccount(address: Address): Promise<void> {
    this.#accounts.touch(address)
    await super.deleteAccount(address)
    const sm = this as unknown as { _storageTries: Record<string, unknown>; keccakFunction(bytes: Uint8Array): Uint8Array }
    const tries = sm._storageTries
    delete tries[bytesToUnprefixedHex(sm.keccakFunction(address.bytes))]
    delete tries[bytesToUnprefixedHex(address.bytes)]
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.book.account(address.toString())
    this.#codes.touch(address)
    return super.putCode(address, value)
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    // Flat hex made natively (`bytesToHex` builds a rope two digits at a time, flattened for the book's lookup).
    const addressHex = toData(address.bytes)
    if (key.length === 32) this.book.slot(addressHex, toData(key))
    const storage = this._caches?.storage
    // Without a cache, and for what EthereumJS refuses (its errors), its own path.
    if (storage === undefined || key.length !== 32 || value.length > 32 || !(this.#cachedExistence(address) ?? (await this.getAccount(address)) !== undefined)) {
      return super.putStorage(address, key, value)
    }
    this.#slots.touch(address)
    this.#slotsWritten.add(addressHex.slice(2))
    const encoded = RLP.encode(unpadBytes(value))
    // The value the slot holds already: nothing to write (nor to revert).
    const held = storage.get(address, key)
    if (held !== undefined && equalsBytes(held, encoded)) return
    storage.put(address, key, encoded)
  }

  /**
   * Whether `getAccount(address)` answers an account, told by the account cache's entry when it
   * has one (as EthereumJS's own `getAccount` answers from it, here without decoding the RLP, nor
   * an async read and its await); undefined: not cached, ask `getAccount`. A cached entry needs
   * neither the cache keeper's touch (it is in the LRU) nor the journal's note (an entry there since
   * the journal began is that state's, one put since was noted when put, one read since when read).
   * An armed EOA view takes the read (the read disarms it). Each block's EIP-4788 and EIP-2935
   * writes (three) and every SSTORE ask it.
   */
  #cachedExistence(address: Address): boolean | undefined {
    const entry = this.eoaView.armed ? undefined : this._caches?.account?.get(address)
    return entry === undefined ? undefined : entry.accountRLP !== undefined
  }

  /** Addresses (unprefixed hex) written slots since the last flush, whose cached slots it bounds (./slotCacheBound.ts). */
  readonly #slotsWritten = new Set<string>()

  override async flush(): Promise<void> {
    this.cacheJournal.flushing()
    if (!(await flushInOnePass(this))) await super.flush()
    this.#accounts.flushed()
    this.#slots.flushed()
    this.#codes.flushed()
    if (boundSlots(this._caches?.storage, this.#slotsWritten)) this.#slotsWritten.clear()
  }

  override async setStateRoot(stateRoot: Uint8Array, clearCache = true): Promise<void> {
    this.cacheJournal.moving()
    return super.setStateRoot(stateRoot, clearCache)
  }

  /** A copy over the same trie database, with a copy of the book (a fork records its own writes). */
  override shallowCopy(downlevelCaches = true): RecordingStateManager {
    const base = super.shallowCopy(downlevelCaches)
    return new RecordingStateManager({ common: base.common, trie: base['_trie'] }, this.book.copy(), this.fork)
  }
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
