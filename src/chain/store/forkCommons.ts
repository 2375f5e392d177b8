/**
 * A chain's Commons, one per fork, never changed after they are made; and what kept blocks share
 * of them. EthereumJS gives every header and transaction a copy of the Common it was made with and
 * rebuilds that copy's parameter cache (every parameter of every active EIP, ~12 KiB in a
 * dictionary-mode object) in its constructor. A kept block's header and transactions read the
 * same parameters as its fork's Common: `share` points their caches at the fork's.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { keepParamsCaches } from '../vm/commonParams.ts'

export class ForkCommons {
  readonly #chain: Common
  readonly #byFork = new Map<string, Common>()
  /** How many parameters each fork Common's cache holds (to compare a kept copy's with). */
  readonly #sizes = new WeakMap<object, number>()

  constructor(chain: Common) {
    // Headers and transactions made on these Commons' copies skip the rebuild that changes nothing.
    keepParamsCaches()
    this.#chain = chain
  }

  /** A Common at the fork of a block at that height and time; one per fork, never changed after. */
  at(blockNumber: bigint, timestamp: bigint): Common {
    const hardfork = this.#chain.getHardforkBy({ blockNumber, timestamp })
    let common = this.#byFork.get(hardfork)
    if (!common) {
      common = this.#chain.copy()
      common.setHardfork(hardfork)
      // Copies share the parameter table, which blocks, transactions and the VM add to (the VM
      // once made: see `rebuild`), but each caches its fork's parameters: this one from the table now.
      common.updateParams({})
      this.#byFork.set(hardfork, common)
    }
    return common
  }

  /** Rebuilds each fork's parameter cache from the shared table (after the VM added its parameters). */
  rebuild(): void {
    for (const common of this.#byFork.values()) common.updateParams({})
  }

  /**
   * Points the parameter caches of `block`'s header and transactions at its fork Common's, where
   * they hold the same parameters (a cache is replaced whole, never changed in place, so sharing
   * one is safe).
   */
  share(block: Block): void {
    const fork = this.at(block.header.number, block.header.timestamp)
    this.#shareWith(block.header.common, fork)
    for (const tx of block.transactions) this.#shareWith(tx.common, fork)
  }

  #shareWith(kept: Common, fork: Common): void {
    const cache = fork['_paramsCache']
    const own = kept['_paramsCache']
    if (kept === fork || own === cache || kept.hardfork() !== fork.hardfork()) return
    let size = this.#sizes.get(cache)
    if (size === undefined) this.#sizes.set(cache, (size = Object.keys(cache).length))
    // Built from the table at another time (a parameter set added since): kept as it is.
    if (Object.keys(own).length !== size) return
    kept['_paramsCache'] = cache
  }
}
