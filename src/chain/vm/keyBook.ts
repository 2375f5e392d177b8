/**
 * The addresses and storage slots a chain's state was ever written at. The state trie hashes its
 * keys (an account is stored under keccak(address), a slot under keccak(slot)), so walking it does
 * not give them back; a state dump (`anvil_dumpState`) needs them. Every account and slot in the
 * trie got there by a write (the genesis alloc, a transaction, a state edit), and the chain's state
 * manager notes each one here (./recordingState.ts), so the book names every key the state can
 * hold. Keys written and later emptied stay in the book: a dump reads the values and skips them.
 */
import { flatString } from '../../encoding/hex.ts'

export class KeyBook {
  /** Lowercase 0x addresses, each with its slots (lowercase 0x, 32 bytes), in order of first write. */
  readonly #accounts = new Map<string, Set<string>>()

  static from(saved: SavedKeyBook | undefined): KeyBook {
    const book = new KeyBook()
    for (const [address, slots] of saved ?? []) book.#accounts.set(address, new Set(slots))
    return book
  }

  account(address: string): void {
    if (!this.#accounts.has(address)) this.#accounts.set(flatString(address), new Set())
  }

  slot(address: string, slot: string): void {
    let slots = this.#accounts.get(address)
    if (!slots) this.#accounts.set(flatString(address), (slots = new Set()))
    // Kept flat: EthereumJS's hex is a rope of one-byte pieces (see ../../encoding/hex.ts).
    if (!slots.has(slot)) slots.add(flatString(slot))
  }

  get size(): number {
    return this.#accounts.size
  }

  /** Every address written, with the slots written under it. */
  entries(): IterableIterator<[string, ReadonlySet<string>]> {
    return this.#accounts.entries()
  }

  copy(): KeyBook {
    return KeyBook.from(this.save())
  }

  save(): SavedKeyBook {
    return [...this.#accounts].map(([address, slots]) => [address, [...slots]])
  }
}

/** A key book as JSON holds it (the verified cache's). */
export type SavedKeyBook = [address: string, slots: string[]][]
