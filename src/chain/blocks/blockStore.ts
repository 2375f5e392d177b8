/**
 * A chain's blocks by position, hash and transaction hash. It is also the blockchain the chain's
 * VM reads for BLOCKHASH (EthereumJS's EVM asks `getBlock(number)` of its blockchain before EIP-2935
 * serves hashes from state), so a block discarded by `restore` is gone for the EVM as for reads.
 * Records never change once made; a copy shares them.
 */
import type { Block } from '@ethereumjs/block'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { hashOnly } from './blockHashes.ts'
import type { BlockRecord } from './types.ts'

export class BlockStore implements EVMMockBlockchainInterface {
  /** `records[i].number === records[0].number + i`. */
  readonly #records: BlockRecord[] = []
  readonly #byHash = new Map<string, BlockRecord>()
  readonly #txByHash = new Map<string, { record: BlockRecord; index: number }>()

  constructor(records: readonly BlockRecord[]) {
    for (const r of records) this.append(r)
  }

  get records(): readonly BlockRecord[] {
    return this.#records
  }

  get first(): BlockRecord {
    return this.#records[0]!
  }

  get last(): BlockRecord {
    return this.#records[this.#records.length - 1]!
  }

  append(record: BlockRecord): void {
    this.#records.push(record)
    this.#byHash.set(record.hash, record)
    record.transactions.forEach((tx, index) => this.#txByHash.set(tx.hash, { record, index }))
  }

  /**
   * Makes the list `records` (which shares its first block with this one), unindexing what goes.
   * Returns the blocks that left and the ones that came, oldest first.
   */
  reset(records: readonly BlockRecord[]): { removed: BlockRecord[]; added: BlockRecord[] } {
    let common = 0
    while (common < records.length && common < this.#records.length && records[common] === this.#records[common]) common++
    const removed = this.#records.splice(common)
    for (const gone of removed) {
      this.#byHash.delete(gone.hash)
      for (const tx of gone.transactions) this.#txByHash.delete(tx.hash)
    }
    const added = records.slice(common)
    for (const r of added) this.append(r)
    return { removed, added }
  }

  has(record: BlockRecord): boolean {
    return this.#byHash.get(record.hash) === record
  }

  byNumber(n: bigint): BlockRecord | undefined {
    const i = n - this.first.number
    if (i < 0n || i >= BigInt(this.#records.length)) return undefined
    return this.#records[Number(i)]
  }

  byHash(hash: string): BlockRecord | undefined {
    return this.#byHash.get(hash.toLowerCase())
  }

  transactionByHash(hash: string): { record: BlockRecord; index: number } | undefined {
    return this.#txByHash.get(hash.toLowerCase())
  }

  copy(): BlockStore {
    return new BlockStore(this.#records)
  }

  // The EVM's blockchain interface.

  /**
   * A block by number for BLOCKHASH, never failing as geth's never fails: the first block's parent
   * (not in a captured fixture) answers that block's parent hash, anything else unknown zero.
   */
  async getBlock(blockId: number): Promise<Block> {
    const n = BigInt(blockId)
    const record = this.byNumber(n)
    if (record) return record.block
    return hashOnly(n === this.first.number - 1n ? this.first.block.header.parentHash : new Uint8Array(32))
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): this {
    return this
  }
}
