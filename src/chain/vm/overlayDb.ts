/**
 * A trie database that reads through to the chain's and keeps its own writes: the state of a
 * simulation commits, flushes and computes state roots like a mined block, and none of it reaches
 * the chain's database (which other calls and the chain itself read). Dropping the overlay drops
 * every node it wrote.
 */
import type { BatchDBOp, DB } from '@ethereumjs/util'
import { bytesToUnprefixedHex } from '@ethereumjs/util'

type Key = Uint8Array | string
type Value = Uint8Array | string

/** A deleted key: MapDB has no entry for it, so neither does a read through the overlay. */
const DELETED = Symbol('deleted')

/** Past this many bytes of written values the overlay refuses further writes (a bound on memory). */
export const OVERLAY_BYTE_LIMIT = 256 * 1024 * 1024

export class OverlayLimitError extends Error {
  override readonly name = 'OverlayLimitError'
}

interface Writes {
  entries: Map<string, Value | typeof DELETED>
  bytes: number
}

export class OverlayDB implements DB<Key, Value> {
  readonly #base: DB<Key, Value>
  readonly #writes: Writes

  constructor(base: DB<Key, Value>, writes: Writes = { entries: new Map(), bytes: 0 }) {
    this.#base = base
    this.#writes = writes
  }

  /** Bytes written so far (values only). */
  get bytesWritten(): number {
    return this.#writes.bytes
  }

  async get(key: Key): Promise<Value | undefined> {
    const own = this.#writes.entries.get(keyOf(key))
    if (own === DELETED) return undefined
    if (own !== undefined) return own
    return this.#base.get(key)
  }

  async put(key: Key, value: Value): Promise<void> {
    const w = this.#writes
    w.bytes += value.length
    if (w.bytes > OVERLAY_BYTE_LIMIT) throw new OverlayLimitError(`simulated state exceeds ${OVERLAY_BYTE_LIMIT} bytes`)
    w.entries.set(keyOf(key), value)
  }

  async del(key: Key): Promise<void> {
    this.#writes.entries.set(keyOf(key), DELETED)
  }

  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value)
      else await this.del(op.key)
    }
  }

  /** A copy sharing the base and the writes (the storage tries of a state share its database). */
  shallowCopy(): DB<Key, Value> {
    return new OverlayDB(this.#base, this.#writes)
  }

  open(): Promise<void> {
    return Promise.resolve()
  }
}

/** MapDB's key encoding, so that a key reads back whichever form it was written in. */
function keyOf(key: Key): string {
  return key instanceof Uint8Array ? bytesToUnprefixedHex(key) : key.toString()
}
