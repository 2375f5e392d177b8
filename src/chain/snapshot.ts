/**
 * A chain's snapshot: its blocks and tags (and the head's state edits), its pool, its mining mode
 * and mining settings at one moment, to restore later (any number of times). Opaque to its users;
 * valid only for the chain that took it; its owner is the chain's store, which a chain forked again
 * (`Chain.adopt`) keeps for it.
 */
import type { MiningMode } from './mining/miner.ts'
import type { MiningSettingsState } from './mining/settings.ts'
import type { PoolTransaction } from './pool/poolTransaction.ts'
import type { StoreContents } from './store/chainStore.ts'

/** What a snapshot holds. */
export interface SnapshotContents {
  readonly store: StoreContents
  readonly pool: readonly PoolTransaction[]
  readonly mode: MiningMode
  readonly settings: MiningSettingsState
}

/** A chain's state at one moment, to `restore` later. Opaque; valid for the chain that made it. */
export class ChainSnapshot {
  readonly #owner: object
  readonly #ownerName: string
  readonly #contents: SnapshotContents

  /** @internal Made by `Chain.snapshot()`. */
  constructor(owner: object, ownerName: string, contents: SnapshotContents) {
    this.#owner = owner
    this.#ownerName = ownerName
    this.#contents = contents
  }

  /** The head block number when it was taken. */
  get headNumber(): bigint {
    const records = this.#contents.store.records
    return records[records.length - 1]!.number
  }

  /**
   * About what keeping this snapshot costs, in bytes: its copy of the block list (a reference per
   * block), of the head's state edits, and the pooled transactions it holds (raw, decoded and as
   * JSON: about four times their size). The blocks and trie nodes are the chain's, shared.
   */
  get approximateBytes(): number {
    const { store, pool } = this.#contents
    let bytes = 256 + store.records.length * 8 + store.edits.size * 256
    for (const tx of pool) bytes += 512 + tx.raw.length * 4
    return bytes
  }

  /** @internal What took it (a chain's store). */
  static ownerOf(snapshot: ChainSnapshot): object {
    return snapshot.#owner
  }

  /** @internal The contents, for the chain that took it; a TypeError for any other. */
  static contentsFor(snapshot: ChainSnapshot, owner: object, ownerName: string): SnapshotContents {
    if (snapshot.#owner !== owner) {
      throw new TypeError(`snapshot was taken of chain ${snapshot.#ownerName}${snapshot.#ownerName === ownerName ? ' before it was forked again' : `, not ${ownerName}`}`)
    }
    return snapshot.#contents
  }
}
