/**
 * A state manager fixed at one block's state root, which remembers what it read from the trie.
 *
 * A block's state never changes and the trie database keeps its root while the chain keeps it, so the value of an account
 * at a state root, or of a storage slot at a storage root, is the same on every read: walking the
 * trie and decoding its nodes once per key is enough. The memos are keyed by the root actually
 * read (the account trie's, the account's storage trie's), so a read under any other root, e.g.
 * after a flush, goes to the trie as usual.
 *
 * With `caches`, writes stay in the caches (EthereumJS writes them to the trie only when the last
 * checkpoint is committed, which a rolled-back call never does): a cache miss is a read of the
 * block's own state, which the memos answer, and every call run on this state starts from warm
 * reads. Without caches (plain reads), every read is a memo lookup after the first.
 *
 * An `isolated` state writes its trie nodes to an overlay of the chain's database (./overlayDb.ts):
 * a simulation commits blocks and computes their state roots there, and the chain never sees them.
 *
 * Calls run from any address, as geth's do: `exemptFromEip3607` makes the next read of an account
 * answer an empty code hash to the one check that reads it (see there).
 *
 * A forked chain's state reads through to the upstream what its trie lacks (./forkState.ts): the
 * base's `fork`, if it has one.
 */
import { CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager'
import type { Caches } from '@ethereumjs/statemanager'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Account, bytesToUnprefixedHex, concatBytes, equalsBytes, unpadBytes } from '@ethereumjs/util'
import { decodeAccount } from '../../encoding/accountRlp.ts'
import type { Address } from '@ethereumjs/util'
import { EoaView } from './eoaView.ts'
import { trieGet } from './trieRead.ts'
import type { DecodedNodes } from './trieRead.ts'
import { OverlayDB } from './overlayDb.ts'
import { forkAccountEntry } from './forkState.ts'
import type { ForkReads } from './forkState.ts'
import { forkCode } from './recordingState.ts'

/**
 * Past this many keys a memo starts over: a bound on memory under endless distinct reads. A read
 * state remembers a slot in two memos, about 550 bytes together (measured: 30,000 distinct
 * `eth_getStorageAt`), so a state's memos stay under about 2.5 MiB. A test suite reads far fewer
 * distinct slots of a block; the bench's distinct eth_call row reads about 10,000 never read before
 * and none twice (under 16,384 keys, about 5 MiB of the heap left after its load, which V8 sizes
 * its next old generation from).
 */
export const MEMO_LIMIT = 4_096

/** What `#cachePut` reaches of EthereumJS 10.1.3's `AccountCache` (one of the two maps is set). */
interface AccountCacheInternals {
  _saveCachePreState(key: string): void
  _lruCache?: { set(key: string, elem: object): void }
  _orderedMapCache?: { setElement(key: string, elem: object): void }
}

/** The RLP of an empty storage value, as EthereumJS's storage cache holds an absent slot. */
const EMPTY_RLP = Uint8Array.of(0x80)

export class BlockStateManager extends MerkleStateManager {
  readonly #root: Uint8Array
  /** The account (null: none) by address, at `#root`, decoded once: never changed, each reader gets a copy. */
  readonly #accounts = new Map<string, Account | null>()
  /** Raw storage trie value (null: never written) by storage root, address and slot. */
  readonly #storage = new Map<string, Uint8Array | null>()
  /** Read-only states: a slot's decoded value by address and slot, at `#root`. */
  readonly #slots = new Map<string, Uint8Array>()
  /** Trie nodes its reads decoded, by hash (./trieRead.ts `DecodedNodes`): a read of a key never asked decodes only its new ones. */
  readonly #nodes: DecodedNodes = new Map()
  /**
   * Storage tries by storage root and address. EthereumJS forgets its own on every revert, so each
   * rolled-back call would build (and register debug loggers for) a new trie per contract it reads.
   */
  readonly #storageTries = new Map<string, MerklePatriciaTrie>()
  /** The upstream at the fork block, for a forked chain's state. */
  readonly fork: ForkReads | undefined
  /** The sender whose next account read answers an empty code hash once (./eoaView.ts). */
  readonly #eoaView = new EoaView()

  private constructor(base: MerkleStateManager, root: Uint8Array, caches: Caches | undefined, isolated: boolean) {
    const common = base.common.copy()
    common.setHardfork(base.common.hardfork())
    // Element access: the trie is protected on MerkleStateManager, and its copy shares the database.
    const baseTrie = base['_trie']
    const trie = baseTrie.shallowCopy(false, { cacheSize: 0 })
    // Storage tries are copies of this one, so they write to the overlay too.
    if (isolated) trie.database(new OverlayDB(baseTrie.database().db), baseTrie.database()['valueEncoding'])
    super({ common, trie, caches })
    this.#root = root
    this.fork = (base as { fork?: ForkReads }).fork
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const code = await super.getCode(address)
    if (this.fork === undefined || code.length > 0) return code
    return forkCode(this, this.fork, address)
  }

  /**
   * A state at `stateRoot`, sharing `base`'s trie database; with `caches` for calls; `isolated`:
   * writing its trie nodes to an overlay of that database (for a state that is committed).
   */
  static async at(base: MerkleStateManager, stateRoot: Uint8Array, opts: { caches?: Caches; isolated?: boolean } = {}): Promise<BlockStateManager> {
    const sm = new BlockStateManager(base, stateRoot, opts.caches, opts.isolated === true)
    await sm.setStateRoot(stateRoot)
    return sm
  }

  /** Calls run from any address, as geth's do (see ./eoaView.ts); cleared by `endEip3607Exemption`. */
  exemptFromEip3607(address: Address): void {
    this.#eoaView.arm(address)
  }

  endEip3607Exemption(): void {
    this.#eoaView.disarm()
  }

  /** The account as the block holds it, whatever a call running on this state has changed. */
  async blockAccount(address: Address): Promise<Account | undefined> {
    const account = await this.#baseAccount(address)
    return account !== null ? copyOf(account) : undefined
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const cached = this._caches?.account?.get(address)
    if (cached !== undefined) return this.#eoaView.apply(address, this.#decoded(cached))
    const base = await this.#baseAccount(address)
    const account = base !== null ? copyOf(base) : undefined
    if (account === undefined || !this.#cachePut(address, account)) this._caches?.account?.put(address, account)
    return this.#eoaView.apply(address, account)
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (account === undefined || !this.#cachePut(address, account)) return super.putAccount(address, account)
  }

  /**
   * EthereumJS 10.1.3's account cache `put` (the pre-state saved for a revert, then the element
   * set), with the element's RLP made only when read (a flush to the trie) instead of at every put:
   * a call puts its sender and the coinbase several times and never flushes. The element holds a
   * copy of the account as put (callers go on changing theirs; see `CachedAccount`). False, and nothing done, for a
   * cache whose internals are not these (another version: its own `put` runs).
   */
  #cachePut(address: Address, account: Account): boolean {
    const cache = this._caches?.account as unknown as AccountCacheInternals | undefined
    if (cache === undefined || typeof cache._saveCachePreState !== 'function') return false
    const map = cache._lruCache ?? cache._orderedMapCache
    if (map === undefined) return false
    const key = bytesToUnprefixedHex(address.bytes)
    cache._saveCachePreState(key)
    const elem = new CachedAccount(copyOf(account))
    if (cache._lruCache !== undefined) cache._lruCache.set(key, elem)
    else cache._orderedMapCache!.setElement(key, elem)
    return true
  }

  /** A new Account of a cache element (callers change what they read): undefined for no account. */
  #decoded(elem: { accountRLP: Uint8Array | undefined }): Account | undefined {
    let known: Account
    if (elem instanceof CachedAccount) known = elem.account
    else if (elem.accountRLP === undefined) return undefined
    else known = decodeAccount(elem.accountRLP)
    return copyOf(known)
  }

  /** A slot this read-only state has read already, at once (a copy); undefined when not read yet or the state is not read-only. */
  knownStorage(address: Address, key: Uint8Array): Uint8Array | undefined {
    if (key.length !== 32 || !this.#readOnly()) return undefined
    return this.#slots.get(memoKey(address.bytes, key))?.slice()
  }

  /** Nothing is written to this state (no caches, at its root): its reads can be memoized. */
  #readOnly(): boolean {
    return this._caches === undefined && equalsBytes(this._trie.root(), this.#root)
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) return super.getStorage(address, key)
    if (this.#readOnly()) {
      // Nothing is ever written to a read-only state: the slot's value at the block is the answer.
      const slotKey = memoKey(address.bytes, key)
      let slot = this.#slots.get(slotKey)
      if (slot === undefined) {
        slot = await this.#storageAt(address, key)
        this.#remember(this.#slots, slotKey, slot)
      }
      return slot.slice()
    }
    return this.#storageAt(address, key)
  }

  async #storageAt(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const cached = this._caches?.storage?.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.getAccount(address)
    if (!account) return new Uint8Array()
    const value = await this.#slotEntry(address, account.storageRoot, key)
    this._caches?.storage?.put(address, key, value ?? EMPTY_RLP)
    return RLP.decode(value ?? new Uint8Array()) as Uint8Array
  }

  /** A slot of `address`'s storage trie at `storageRoot`, as a read that misses the caches gets it (for ./callLayer.ts). */
  async slotAt(address: Address, storageRoot: Uint8Array, key: Uint8Array): Promise<Uint8Array> {
    return RLP.decode((await this.#slotEntry(address, storageRoot, key)) ?? new Uint8Array()) as Uint8Array
  }

  /** The slot's raw trie value (null: never written), memoized by storage root, address and slot. */
  async #slotEntry(address: Address, storageRoot: Uint8Array, key: Uint8Array): Promise<Uint8Array | null> {
    // The account's storage trie is always at its storage root (see _modifyContractStorage).
    const storageKey = memoKey(storageRoot, address.bytes, key)
    let value = this.#storage.get(storageKey)
    if (value === undefined) {
      value = await trieGet(this.#storageTrie(address, storageRoot), key, this.#nodes)
      if (value === null && this.fork !== undefined) value = await this.fork.storage(address, key)
      this.#remember(this.#storage, storageKey, value)
    }
    return value
  }

  /** The code whose hash is `codeHash`, as the trie database holds it (the same array at every read), or none (for ./callLayer.ts). */
  async codeOf(codeHash: Uint8Array): Promise<Uint8Array> {
    const key = this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash
    return (await this._trie.database().get(key)) ?? new Uint8Array(0)
  }

  /**
   * With caches, a write goes to the storage cache only, as it does for accounts and code (and
   * reaches the trie on the last commit's flush). EthereumJS 10.1 also writes it to the storage trie
   * at once (`put(...) ?? write(...)`, and the cache's put returns nothing), which costs a trie
   * update per SSTORE and leaves the nodes of every rolled-back call in the shared database.
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const storage = this._caches?.storage
    if (storage === undefined || key.length !== 32 || value.length > 32) return super.putStorage(address, key, value)
    if (!(await this.getAccount(address))) return super.putStorage(address, key, value)
    storage.put(address, key, RLP.encode(unpadBytes(value)))
  }

  /** The account's storage trie at its storage root, kept across reverts. */
  #storageTrie(address: Address, storageRoot: Uint8Array): MerklePatriciaTrie {
    const trieKey = memoKey(storageRoot, address.bytes)
    let trie = this.#storageTries.get(trieKey)
    // A trie something wrote to is at another root: EthereumJS's own is asked then.
    if (trie === undefined || !equalsBytes(trie.root(), storageRoot)) {
      trie = this._getStorageTrie(address, { storageRoot } as Account)
      if (!equalsBytes(trie.root(), storageRoot)) return trie
      this.#remember(this.#storageTries, trieKey, trie)
    }
    return trie
  }

  /**
   * EthereumJS's caches need no bound of their own here: a call reads under its checkpoint, and
   * the rollback takes out of the caches every entry the call put there, reads included.
   */
  #remember<V>(memo: Map<string, V>, key: string, value: V): void {
    if (memo.size >= MEMO_LIMIT) memo.clear()
    memo.set(key, value)
  }

  /**
   * The account at the block's root (memoized), or as the trie holds it under any other root: not
   * to be changed (callers copy it).
   */
  async #baseAccount(address: Address): Promise<Account | null> {
    if (!equalsBytes(this._trie.root(), this.#root)) return decodedAccount(await this.#accountEntry(address))
    const key = memoKey(address.bytes)
    let account = this.#accounts.get(key)
    if (account === undefined) {
      account = decodedAccount(await this.#accountEntry(address))
      this.#remember(this.#accounts, key, account)
    }
    return account
  }

  async #accountEntry(address: Address): Promise<Uint8Array | null> {
    const entry = await trieGet(this._trie, address.bytes, this.#nodes)
    return this.fork === undefined ? entry : forkAccountEntry(entry, this.fork, address)
  }
}

const decodedAccount = (rlp: Uint8Array | null): Account | null => (rlp === null ? null : decodeAccount(rlp))

/** A new Account with the same fields (the byte fields shared: EthereumJS replaces them, never writes into them). */
const copyOf = (a: Account): Account => new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)

/**
 * An element of EthereumJS's account cache (`{ accountRLP }`) put by `#cachePut`: the account as
 * put, its RLP made the first time it is read (a flush). A call reads the same few accounts many
 * times (runTx reads its sender and the coinbase before and after each change) and puts them as
 * often: each read of an element copies its account, never decodes RLP. A class, not an object
 * literal with a getter (a closure and an accessor per put) beside a WeakMap from element to account.
 */
class CachedAccount {
  readonly account: Account
  #rlp: Uint8Array | undefined
  constructor(account: Account) {
    this.account = account
  }

  get accountRLP(): Uint8Array {
    return (this.#rlp ??= this.account.serialize())
  }
}

/**
 * A memo key: the bytes as one flat Latin-1 string (one character a byte). `bytesToHex` builds its
 * string by concatenation, a tree of small strings that weighed 1.4 KB per key of 53 bytes, against
 * about 80 bytes this way.
 */
function memoKey(...parts: Uint8Array[]): string {
  return Buffer.concat(parts).toString('latin1')
}
