/**
 * A chain's events: what filters and subscriptions need to follow it. A chain tells them
 * synchronously, in the order things happened, after each change is complete (so a listener that
 * reads the chain sees it as it is after the change):
 *
 * - `blocksRemoved`: blocks left the chain (a snapshot restore to an earlier head, a reorg). Their
 *   records, oldest first, the block that is the head once they are gone (their common `ancestor`
 *   with what comes next) and the `head` once the whole change is done. Their logs are what a
 *   filter sends again with `removed: true`.
 * - `blockAdded`: one block joined the chain on top of the head: mined (`mined`), a reorg's new
 *   branch (`reorg`), or a block a restore brought back (`restore`). One event per block, oldest first.
 * - `transactionPooled`: a transaction entered the pool (sent, put back by a reorg, brought back
 *   by a restore).
 *
 * A change that removes and adds (a reorg, a restore to a later head) tells the removal first,
 * then each block added. Emitting costs nothing when nobody listens (`listening` is false: the
 * chain builds no event). A listener that throws is told to its own `onError` (or ignored) and never
 * stops the chain's change nor the other listeners.
 */
import type { BlockRecord } from '../blocks/types.ts'
import type { PoolTransaction } from '../pool/poolTransaction.ts'

/** Why blocks joined or left the chain. */
export type ChainChangeCause = 'mined' | 'reorg' | 'restore'

export interface BlocksRemovedEvent {
  readonly type: 'blocksRemoved'
  /** The blocks that left, oldest first. */
  readonly records: readonly BlockRecord[]
  /** The last block both sides share: the head once they left. */
  readonly ancestor: BlockRecord
  /**
   * The head once the whole change is done: `ancestor` when nothing is added (a rewind), else the
   * last of the blocks the next `blockAdded` events bring.
   */
  readonly head: BlockRecord
  readonly cause: Exclude<ChainChangeCause, 'mined'>
}

export interface BlockAddedEvent {
  readonly type: 'blockAdded'
  readonly record: BlockRecord
  readonly cause: ChainChangeCause
}

export interface TransactionPooledEvent {
  readonly type: 'transactionPooled'
  readonly transaction: PoolTransaction
}

export type ChainEvent = BlocksRemovedEvent | BlockAddedEvent | TransactionPooledEvent

export type ChainListener = (event: ChainEvent) => void

export interface ListenOptions {
  /** Told when the listener throws (the chain goes on either way). */
  onError?: (err: unknown, event: ChainEvent) => void
}

interface Subscription {
  readonly listener: ChainListener
  readonly onError: ((err: unknown, event: ChainEvent) => void) | undefined
}

export class ChainEvents {
  /** Replaced, never changed in place: an emit in progress keeps the list it started with. */
  #subscriptions: readonly Subscription[] = []

  /** Whether anyone listens: the chain builds events only then. */
  get listening(): boolean {
    return this.#subscriptions.length > 0
  }

  /** How many listeners there are. */
  get listenerCount(): number {
    return this.#subscriptions.length
  }

  /**
   * Calls `listener` with every event from now on, until the returned function is called (calling
   * it again does nothing). A listener added during an emit hears from the next event on.
   */
  listen(listener: ChainListener, options: ListenOptions = {}): () => void {
    const subscription: Subscription = { listener, onError: options.onError }
    this.#subscriptions = [...this.#subscriptions, subscription]
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) => s !== subscription)
    }
  }

  /** Tells every listener, in the order they were added. Never throws. */
  emit(event: ChainEvent): void {
    for (const s of this.#subscriptions) {
      try {
        s.listener(event)
      } catch (err) {
        try {
          s.onError?.(err, event)
        } catch {
          // An error handler that throws is not the chain's to report.
        }
      }
    }
  }

  /**
   * Tells a change of the chain's blocks: the removed ones (if any), then each added one. Builds
   * nothing when nobody listens.
   */
  emitChange(removed: readonly BlockRecord[], ancestor: BlockRecord, added: readonly BlockRecord[], cause: ChainChangeCause): void {
    if (!this.listening) return
    if (removed.length > 0 && cause !== 'mined') {
      this.emit({ type: 'blocksRemoved', records: removed, ancestor, head: added.at(-1) ?? ancestor, cause })
    }
    for (const record of added) this.emit({ type: 'blockAdded', record, cause })
  }

  /** Tells that `transaction` entered the pool. */
  emitPooled(transaction: PoolTransaction): void {
    if (this.listening) this.emit({ type: 'transactionPooled', transaction })
  }
}
