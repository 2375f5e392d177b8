/**
 * What the chain keeps of a block, and how a request names one. The types every room of the chain
 * layer shares, below the store and the chain, so that none of them imports the chain back.
 */
import type { Block } from '@ethereumjs/block'
import type { ReceiptJson, TransactionJson } from './render.ts'

/** One block and everything read from it, rendered once when the block is loaded or mined. */
export interface BlockRecord {
  readonly block: Block
  readonly number: bigint
  readonly hash: string
  readonly timestamp: bigint
  readonly transactions: readonly TransactionJson[]
  readonly receipts: readonly ReceiptJson[]
  /**
   * The `console.log` lines its transactions logged when mined here, by transaction index (only
   * those that logged any); absent when none did, and for blocks loaded from fixtures.
   */
  readonly console?: ReadonlyMap<number, readonly string[]>
}

/** A block as named in a request, after tag resolution. */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'
export type BlockSelector =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: string }

/** How many blocks safe and finalized trail the head. */
export interface TagLags {
  readonly safe: bigint
  readonly finalized: bigint
}
