/**
 * A fixture chain held in memory: every block with what a node keeps of it (senders, receipts,
 * gas used, effective gas prices, contract addresses, block-wide log indexes) already rendered
 * in the execution-apis wire shapes, plus a VM whose trie keeps every block's state root, so any
 * historical state can be read. Reads never re-execute anything.
 */
import type { Block } from '@ethereumjs/block'
import type { Blockchain } from '@ethereumjs/blockchain'
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { VM } from '@ethereumjs/vm'
import { BlockStateManager } from './blockState.ts'
import type { ReceiptJson, TransactionJson } from './render.ts'

/** One block and everything read from it, rendered once at load. */
export interface BlockRecord {
  readonly block: Block
  readonly number: bigint
  readonly hash: string
  readonly timestamp: bigint
  readonly transactions: readonly TransactionJson[]
  readonly receipts: readonly ReceiptJson[]
}

/** A block as named in a request, after tag resolution. */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'
export type BlockSelector =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: string }

/** How many blocks' read-only states `stateAt` keeps. */
const READ_STATES_KEPT = 16

export class Chain {
  readonly name: string
  readonly common: Common
  readonly vm: VM
  readonly blockchain: Blockchain
  readonly chainId: bigint
  /** How the blocks were verified: replayed now, or replayed by an earlier load and read back. */
  readonly verifiedBy: 'replay' | 'cache'
  /** Blocks by position; `records[i].number === firstNumber + i`. */
  readonly #records: BlockRecord[]
  readonly #byHash = new Map<string, BlockRecord>()
  readonly #txByHash = new Map<string, { record: BlockRecord; index: number }>()
  #safe: bigint
  #finalized: bigint
  readonly #states = new Map<BlockRecord, Promise<BlockStateManager>>()

  constructor(opts: {
    name: string
    common: Common
    vm: VM
    blockchain: Blockchain
    records: BlockRecord[]
    safe: bigint
    finalized: bigint
    verifiedBy?: 'replay' | 'cache'
  }) {
    this.name = opts.name
    this.common = opts.common
    this.vm = opts.vm
    this.blockchain = opts.blockchain
    this.chainId = opts.common.chainId()
    this.verifiedBy = opts.verifiedBy ?? 'replay'
    this.#records = []
    for (const r of opts.records) this.#index(r)
    this.#safe = opts.safe
    this.#finalized = opts.finalized
  }

  #index(record: BlockRecord): void {
    this.#records.push(record)
    this.#byHash.set(record.hash, record)
    record.transactions.forEach((tx, index) => this.#txByHash.set(tx.hash, { record, index }))
  }

  get genesis(): BlockRecord {
    return this.#records[0]!
  }

  get head(): BlockRecord {
    return this.#records[this.#records.length - 1]!
  }

  get safeNumber(): bigint {
    return this.#safe
  }

  get finalizedNumber(): bigint {
    return this.#finalized
  }

  byNumber(n: bigint): BlockRecord | undefined {
    const i = n - this.genesis.number
    if (i < 0n || i >= BigInt(this.#records.length)) return undefined
    return this.#records[Number(i)]
  }

  /** `hash` in lowercase hex. */
  byHash(hash: string): BlockRecord | undefined {
    return this.#byHash.get(hash.toLowerCase())
  }

  transactionByHash(hash: string): { record: BlockRecord; index: number } | undefined {
    return this.#txByHash.get(hash.toLowerCase())
  }

  /** The block a selector names, or undefined for an unknown hash or a future number. */
  resolve(selector: BlockSelector): BlockRecord | undefined {
    switch (selector.kind) {
      case 'number':
        return this.byNumber(selector.number)
      case 'hash':
        return this.byHash(selector.hash)
      case 'tag':
        switch (selector.tag) {
          case 'earliest':
            return this.genesis
          case 'latest':
          case 'pending':
            return this.head
          case 'safe':
            return this.byNumber(this.#safe)
          case 'finalized':
            return this.byNumber(this.#finalized)
        }
    }
  }

  /**
   * A state manager positioned at the state after `record`, for reads only. Copies share the trie
   * database, which keeps every root (nothing is pruned). The last few are kept, each remembering
   * what it read (./blockState.ts): a block's state never changes, and making a copy per read, or
   * walking the trie again, costs more than the read.
   */
  stateAt(record: BlockRecord): Promise<MerkleStateManager> {
    let state = this.#states.get(record)
    if (state) {
      // Most recently used last, so the oldest is first to go.
      this.#states.delete(record)
    } else {
      state = BlockStateManager.at(this.vm.stateManager as MerkleStateManager, record.block.header.stateRoot)
      if (this.#states.size >= READ_STATES_KEPT) this.#states.delete(this.#states.keys().next().value!)
    }
    this.#states.set(record, state)
    return state
  }
}
