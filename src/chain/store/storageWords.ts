/**
 * The storage words `eth_getStorageAt` answered at one block, by address and slot as the request
 * wrote them, so a warm read of the head's state is one map lookup: no key decoding, no read state
 * looked up by its root's hex, no trie, no hex encoding. The store owns it and empties it wherever
 * the state a block reads may change (a block appended, a rewind, a reorg, an edit of the head: see
 * ./chainStore.ts), so a kept word is always what the read would answer now. It holds the words of
 * one block (the last one read, almost always the head) and at most `STORAGE_WORDS_BYTES`: past
 * that the oldest go first. A text enters only after its read succeeded, so a word found needs no
 * further check of the request.
 */
import type { BlockRecord } from '../blocks/types.ts'
import { flatString } from '../../encoding/hex.ts'

/** At most this many bytes of keys and words (hex: a byte a character), with a Map entry's own. */
export const STORAGE_WORDS_BYTES = 2 * 1024 * 1024

/** A Map entry's slots and two string headers, estimated. */
const ENTRY_OVERHEAD = 80

const entryBytes = (key: string, word: string) => key.length + word.length + ENTRY_OVERHEAD

export class StorageWords {
  #record: BlockRecord | undefined
  readonly #words = new Map<string, string>()
  #bytes = 0
  readonly #limit: number

  constructor(limit = STORAGE_WORDS_BYTES) {
    this.#limit = limit
  }

  /** The key of an address (lowercase, as the `address` param gives it) and a slot's text as written. */
  static key(address: string, slot: string): string {
    return address + slot
  }

  /** The word read at `record` under `key`, if kept. */
  get(record: BlockRecord, key: string): string | undefined {
    return record === this.#record ? this.#words.get(key) : undefined
  }

  /** Keeps the word read at `record`; a read at another block starts over. */
  keep(record: BlockRecord, key: string, word: string): void {
    if (record !== this.#record) {
      this.clear()
      this.#record = record
    }
    const size = entryBytes(key, word)
    if (size > this.#limit || this.#words.has(key)) return
    while (this.#bytes + size > this.#limit) {
      const [oldKey, oldWord] = this.#words.entries().next().value!
      this.#words.delete(oldKey)
      this.#bytes -= entryBytes(oldKey, oldWord)
    }
    // Flat copies: the key is a concatenation the map would otherwise keep as its parts.
    this.#words.set(flatString(key), flatString(word))
    this.#bytes += size
  }

  /** The state a block reads may have changed: nothing kept is used again. */
  clear(): void {
    this.#words.clear()
    this.#bytes = 0
    this.#record = undefined
  }

  /** Bytes kept, as counted against the bound. */
  get bytes(): number {
    return this.#bytes
  }
}
