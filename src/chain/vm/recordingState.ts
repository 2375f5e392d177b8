/**
 * The chain's own state manager (the one its VM mines with, and the loader replays with): a
 * `MerkleStateManager` that notes in a `KeyBook` every address and storage slot written through
 * it, so that a dump of the state can name its keys (see ./keyBook.ts). Calls run on other state
 * managers (./blockState.ts) and write nothing here. Imported on first need, like ./blockState.ts.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import { bytesToHex } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'
import type { KeyBook } from './keyBook.ts'

export class RecordingStateManager extends MerkleStateManager {
  readonly book: KeyBook

  constructor(opts: MerkleStateManagerOpts, book: KeyBook) {
    super(opts)
    this.book = book
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
    return new RecordingStateManager({ common: base.common, trie: base['_trie'] }, this.book.copy())
  }
}
