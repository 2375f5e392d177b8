/**
 * The last few read-only states a store handed out, by state root (hex). The state at a root never
 * changes, and each kept state remembers what it read (../vm/blockState.ts): making one per read,
 * or walking the trie again, costs more than the read. Most recently used last, so the oldest goes
 * first; a failed one is not kept. A state already made is also handed out at once (`readyState`
 * of the promise `get` gave), so a read its memos answer needs no promise.
 */
import type { BlockStateManager } from '../vm/blockState.ts'

/** The states made, by the promise `ReadStates.get` handed out (weakly: gone with the promise). */
const made = new WeakMap<Promise<BlockStateManager>, BlockStateManager>()

/** The state a promise of `ReadStates.get` resolved to, at once; undefined while it is being made. */
export function readyState(state: Promise<BlockStateManager>): BlockStateManager | undefined {
  return made.get(state)
}

export class ReadStates {
  readonly #kept = new Map<string, Promise<BlockStateManager>>()
  readonly #limit: number

  constructor(limit: number) {
    this.#limit = limit
  }

  /** The state kept for `root`, or the one `make` makes (then kept). */
  get(root: string, make: () => Promise<BlockStateManager>): Promise<BlockStateManager> {
    let state = this.#kept.get(root)
    if (state) {
      this.#kept.delete(root)
    } else {
      const making = make()
      making.then(
        (sm) => void made.set(making, sm),
        () => {
          if (this.#kept.get(root) === making) this.#kept.delete(root)
        },
      )
      if (this.#kept.size >= this.#limit) this.#kept.delete(this.#kept.keys().next().value!)
      state = making
    }
    this.#kept.set(root, state)
    return state
  }
}
