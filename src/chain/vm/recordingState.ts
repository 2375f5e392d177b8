/**
 * The chain's own state manager (the one its VM mines with, and the loader replays with): a
 * `MerkleStateManager` that notes in a `KeyBook` every address and storage slot written through
 * it, so that a dump of the state can name its keys (see ./keyBook.ts). Calls run on other state
 * managers (./blockState.ts) and write nothing here. Imported on first need, like ./blockState.ts.
 *
 * A forked chain's state (`fork` set) reads through to the upstream at the fork block what its
 * trie lacks (./forkState.ts); without a fork, EthereumJS's reads run unchanged. Its `eoaView`
 * waives EIP-3607 for an impersonated sender's transaction (./eoaView.ts).
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, createAccountFromRLP } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'
import { forkAccountEntry } from './forkState.ts'
import type { ForkReads } from './forkState.ts'
import { EoaView } from './eoaView.ts'
import type { KeyBook } from './keyBook.ts'

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

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
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
    return super.putStorage(address, key, value)
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
