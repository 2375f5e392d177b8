/**
 * Which states a chain keeps, as geth's (128 states in memory) and Anvil's (500 in memory) pruning:
 * the state of every loaded block (with the edits made on it), of every block a snapshot holds
 * (its layer is below the top, ../vm/trieDatabase.ts) and of the last `STATE_HISTORY` blocks on
 * the head. Every `PRUNE_EVERY` blocks appended, the top layer's nodes that none of those reach
 * are dropped. A read of an older mined block's state is geth's `-32000 missing trie node <root>
 * (path ) <nil>` (`MissingStateError`, from `ChainStore.stateRootOf`); its block, transactions,
 * receipts and logs stay. A forked chain keeps every state (its trie reads through to the upstream).
 * docs/limits.md says so.
 */
import type { BlockRecord } from '../blocks/types.ts'
import { MissingStateError } from '../vm/trieDatabase.ts'
import type { TrieDatabase } from '../vm/trieDatabase.ts'
import type { EditedState } from './storeTypes.ts'

/** The mined blocks whose state stays readable at least (geth keeps 128 in memory). */
export const STATE_HISTORY = 128

/** How many appended blocks between two prunings (so at most STATE_HISTORY + PRUNE_EVERY states are kept). */
export const PRUNE_EVERY = 64

export class StateHistory {
  /** The head when the chain was made: states up to it are never pruned. */
  readonly #loadedHead: bigint
  /** Blocks appended since the last pruning. */
  #sincePrune = 0
  /** Blocks below this number may have lost their state to a pruning. */
  #prunedBelow = 0n
  /** A forked chain's state reads through to its upstream: nothing is pruned. */
  #keepAll = false

  constructor(loadedHead: bigint) {
    this.#loadedHead = loadedHead
  }

  /** Keeps every state from now on (a forked chain's). */
  keepAll(): void {
    this.#keepAll = true
  }

  /** `root`, the state `record` reads, or a `MissingStateError` when a pruning dropped it. */
  check(record: BlockRecord, root: Uint8Array, database: TrieDatabase | undefined): Uint8Array {
    if (record.number < this.#prunedBelow && database?.has(root) === false) throw new MissingStateError(root)
    return root
  }

  /** A block was appended: every PRUNE_EVERY, the nodes only states older than the last STATE_HISTORY blocks reach go. */
  appended(records: readonly BlockRecord[], edits: ReadonlyMap<BlockRecord, EditedState>, database: TrieDatabase | undefined): void {
    if (++this.#sincePrune < PRUNE_EVERY) return
    this.#sincePrune = 0
    if (database === undefined || this.#keepAll) return
    const from = Math.max(0, records.length - STATE_HISTORY)
    const roots: Uint8Array[] = []
    // A loaded block's state is in the base, but the edits made on it (the fixture's, a test's) are above it.
    for (const [record, edited] of edits) if (record.number <= this.#loadedHead) roots.push(edited.root)
    for (let i = from; i < records.length; i++) {
      const record = records[i]!
      roots.push(record.block.header.stateRoot)
      const edited = edits.get(record)
      if (edited !== undefined) roots.push(edited.root)
    }
    database.prune(roots)
    if (records[from]!.number > this.#prunedBelow) this.#prunedBelow = records[from]!.number
  }
}
