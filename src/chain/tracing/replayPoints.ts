/**
 * What a trace of a mined transaction starts from, kept per block (geth's `StateAtTransaction`
 * re-executes the block up to the transaction every time; Anvil keeps every step it mined): the
 * state root before each of the block's transactions, recorded on the block's first trace
 * (./replay.ts), with the trie nodes of those roots in an overlay of the chain's database, and the
 * gas the block used before each. A later trace of any transaction of the block replays that
 * transaction alone, from the state before it.
 *
 * Bounded: the points of the last `keep` blocks traced (a block's overlay holds the nodes its
 * transactions wrote, a few KiB each). Keyed by block hash and the parent's state root (state edits
 * change what a block executed on), so a block a restore or a reorg removed is never mistaken
 * for another; its points go as newer blocks are traced. The chain holds one (`Chain.replayPoints`).
 */
import { bytesToHex } from '@ethereumjs/util'
import type { BlockRecord } from '../blocks/types.ts'
import type { BlockStateManager } from '../vm/blockState.ts'

export interface BlockPoints {
  /** The state the roots are in (its trie database holds their nodes). */
  readonly state: BlockStateManager
  /** `roots[i]`: the state root before transaction `i` (after the block's system writes for 0); one more after the last. */
  readonly roots: readonly Uint8Array[]
  /** `gasBefore[i]`: the gas the block's transactions before `i` used. */
  readonly gasBefore: readonly bigint[]
}

/** How many blocks' points a chain keeps. */
export const REPLAY_POINTS_KEPT = 4

export class ReplayPoints {
  /** By block hash and parent root; oldest first (a Map keeps insertion order). */
  readonly #blocks = new Map<string, Promise<BlockPoints>>()

  constructor(readonly keep = REPLAY_POINTS_KEPT) {}

  /** The points of `record` executed on `parentRoot`, recorded by `record` (once, shared by concurrent traces) when missing. */
  of(record: BlockRecord, parentRoot: Uint8Array, recordPoints: () => Promise<BlockPoints>): Promise<BlockPoints> {
    const key = `${record.hash}:${bytesToHex(parentRoot)}`
    let points = this.#blocks.get(key)
    if (points !== undefined) {
      this.#blocks.delete(key)
    } else {
      points = recordPoints()
      // A recording that failed (a trace's time ran out) is not kept: the next trace tries again.
      points.catch(() => this.#blocks.get(key) === points && this.#blocks.delete(key))
    }
    this.#blocks.set(key, points)
    while (this.#blocks.size > this.keep) this.#blocks.delete(this.#blocks.keys().next().value!)
    return points
  }

  /** Forgets every block's points. */
  clear(): void {
    this.#blocks.clear()
  }
}
