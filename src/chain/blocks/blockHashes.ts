/**
 * BLOCKHASH as geth answers it: never an error. EthereumJS's EVM asks its blockchain for
 * `getBlock(n)` (after checking the 256-block window against the executing number) and reads
 * `hash()` of what comes back; a block it cannot find would fail the call. geth's `GetHashFn`
 * walks back from the executing header: `n` at or above its number is zero, its parent's hash
 * comes from the header itself, older ones from the header chain, and an unknown one is zero.
 *
 * So a captured fixture (whose first block's parent is not in it) answers that parent's hash, and
 * a call with an overridden block number reads zero for numbers its real header has not reached.
 */
import type { Block } from '@ethereumjs/block'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'

/** The chain's blocks by number (the block store is one). */
export interface BlocksByNumber {
  byNumber(n: bigint): { readonly block: Block } | undefined
}

const ZERO_HASH = new Uint8Array(32)

/** What the EVM reads of a block for BLOCKHASH: its hash, and nothing else. */
export function hashOnly(hash: Uint8Array): Block {
  return { hash: () => hash } as unknown as Block
}

/** The header BLOCKHASH walks back from. */
export interface HashReference {
  readonly number: bigint
  readonly parentHash: Uint8Array
}

/**
 * The ancestors of `ref`: `simulated` blocks first (by number, for blocks built on top of the
 * store's), then the store's. Numbers at or above `ref`'s read zero.
 */
export class AncestorHashes implements EVMMockBlockchainInterface {
  readonly #store: BlocksByNumber
  readonly #ref: HashReference
  readonly #simulated: ReadonlyMap<bigint, Uint8Array> | undefined

  constructor(store: BlocksByNumber, ref: HashReference, simulated?: ReadonlyMap<bigint, Uint8Array>) {
    this.#store = store
    this.#ref = ref
    this.#simulated = simulated
  }

  hashOf(n: bigint): Uint8Array {
    const ref = this.#ref
    if (n >= ref.number || n < 0n) return ZERO_HASH
    if (n === ref.number - 1n) return ref.parentHash
    const simulated = this.#simulated?.get(n)
    if (simulated !== undefined) return simulated
    return this.#store.byNumber(n)?.block.hash() ?? ZERO_HASH
  }

  async getBlock(blockId: number): Promise<Block> {
    return hashOnly(this.hashOf(BigInt(blockId)))
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): this {
    return this
  }
}
