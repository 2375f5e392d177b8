/**
 * The last few read-only states a store handed out, by state root (hex). The state at a root never
 * changes, and each kept state remembers what it read (../vm/blockState.ts): making one per read,
 * or walking the trie again, costs more than the read. Most recently used last, so the oldest goes
 * first; a failed one is not kept.
 */
import type { BlockStateManager } from '../vm/blockState.ts'

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
      const made = make()
      made.catch(() => {
        if (this.#kept.get(root) === made) this.#kept.delete(root)
      })
      if (this.#kept.size >= this.#limit) this.#kept.delete(this.#kept.keys().next().value!)
      state = made
    }
    this.#kept.set(root, state)
    return state
  }
}
