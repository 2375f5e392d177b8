/**
 * A chain's trie database: every state the chain keeps (../store/chainStore.ts), in layers that a restore
 * drops. Nodes are keyed by their hash, so a layer only ever adds to the ones below it.
 *
 * - The base holds what was there when the chain was loaded (the verified cache saves it).
 * - `mark()` (a snapshot) seals the top layer and starts a new one above it; `rewind(mark)` (a
 *   restore) starts a new layer above the marked one: the layers written after it, no longer below
 *   the top and held by no snapshot, are garbage. A snapshot that is kept holds its layers.
 * - Past `MAX_DEPTH` layers the lowest is merged into the base (reads walk the layers): a later
 *   restore below it keeps its nodes, which is memory, never a wrong answer.
 * - `prune(roots)` drops from the top layer the nodes no state at `roots` reaches (./stateReach.ts):
 *   the states of blocks the chain no longer keeps (../store/chainStore.ts). Only the top layer:
 *   the ones below are held by snapshots and by copies. The top layer keeps what its nodes refer
 *   to between prunings (a node's references never change), so a pruning decodes only new nodes.
 *
 * Every view of one chain's database (`shallowCopy`: the storage tries, the read states) shares its
 * top layer; `fork()` gives another chain its own, over the same layers.
 *
 * Keys arrive as unprefixed hex built two digits at a time (EthereumJS's `bytesToUnprefixedHex`),
 * which V8 keeps as a rope of one-byte pieces (~1 KiB for a 32-byte hash): a kept key is copied
 * flat. Values are the nodes' bytes (the trie is made with `ValueEncoding.Bytes`): in the base as
 * they were loaded (what the verified cache saves), above it as Latin-1 strings, one byte per
 * character (a small `Uint8Array` costs ~200 bytes of objects and allocation besides its bytes;
 * a string 16), read back as a new `Uint8Array` of their own.
 */
import type { BatchDBOp, DB } from '@ethereumjs/util'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { bytesToUnprefixedHex, unprefixedHexToBytes, ValueEncoding } from '@ethereumjs/util'
import { flatString, hexDigitsOf, latin1Of } from '../../encoding/hex.ts'
import { reachedKeys, ReachMemo } from './stateReach.ts'

type Key = Uint8Array | string
type Value = Uint8Array | string

/** A key deleted in a layer (the trie does not prune, but the interface has `del`). */
const DELETED = null

/**
 * A state the chain no longer keeps (pruned, ../store/chainStore.ts), in geth's words for a state
 * its database lacks (-32000 on the wire).
 */
export class MissingStateError extends Error {
  override readonly name = 'MissingStateError'
  constructor(root: Uint8Array) {
    super(`missing trie node ${Buffer.from(root).toString('hex')} (path ) <nil>`)
  }
}

/** Layers above the base at most: reads of old nodes walk them all. */
const MAX_DEPTH = 16

/** What was written after its parent was marked. */
export class TrieLayer {
  readonly entries: Map<string, Uint8Array | string | typeof DELETED>
  parent: TrieLayer | undefined
  /** While it is the top: what its nodes refer to, as pruning walked them (./stateReach.ts). */
  reach: ReachMemo | undefined

  constructor(parent: TrieLayer | undefined, entries = new Map<string, Uint8Array | string | typeof DELETED>()) {
    this.parent = parent
    this.entries = entries
  }
}

/** The top layer one chain writes to, shared by the views of its database. */
interface Top {
  layer: TrieLayer
}

export class TrieDatabase implements DB<Key, Value> {
  readonly #base: TrieLayer
  readonly #top: Top

  /** A database over `entries` (unprefixed hex keys; values as bytes, or as their hex), which becomes its base. */
  static over(entries: Map<string, Value>): TrieDatabase {
    for (const [key, value] of entries) if (typeof value === 'string') entries.set(key, unprefixedHexToBytes(value))
    const base = new TrieLayer(undefined, entries as Map<string, Uint8Array>)
    return new TrieDatabase(base, { layer: base })
  }

  /** The database under `state`'s trie, if it is one of these. */
  static under(state: MerkleStateManager): TrieDatabase | undefined {
    const db = state['_trie'].database().db
    return db instanceof TrieDatabase ? db : undefined
  }

  private constructor(base: TrieLayer, top: Top) {
    this.#base = base
    this.#top = top
  }

  async get(key: Key): Promise<Uint8Array | undefined> {
    const k = keyOf(key)
    for (let layer: TrieLayer | undefined = this.#top.layer; layer; layer = layer.parent) {
      const value = layer.entries.get(k)
      if (value !== undefined) return typeof value === 'string' ? bytesOf(value) : (value ?? undefined)
    }
    return undefined
  }

  async put(key: Key, value: Value): Promise<void> {
    const layer = this.#top.layer
    const bytes = typeof value === 'string' ? unprefixedHexToBytes(value) : value
    layer.entries.set(flatString(keyOf(key)), layer === this.#base ? ownBytes(bytes) : latin1Of(bytes))
  }

  async del(key: Key): Promise<void> {
    const layer = this.#top.layer
    layer.reach?.forget(keyOf(key))
    if (layer.parent) layer.entries.set(flatString(keyOf(key)), DELETED)
    else layer.entries.delete(keyOf(key))
  }

  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value)
      else await this.del(op.key)
    }
  }

  /** A view sharing the layers and the top (the storage tries of a state share its database). */
  shallowCopy(): TrieDatabase {
    return new TrieDatabase(this.#base, this.#top)
  }

  open(): Promise<void> {
    return Promise.resolve()
  }

  /**
   * The layer that holds the state now, to `rewind` to: writes from now on go to a new layer above
   * it. With nothing written since the last mark, that mark's layer.
   */
  mark(): TrieLayer {
    const top = this.#top.layer
    if (top.parent && top.entries.size === 0) return top.parent
    top.reach = undefined
    this.#top.layer = new TrieLayer(top)
    this.#compact()
    return top
  }

  /** Back to the state `mark` held: the layers written since are dropped from this database. */
  rewind(mark: TrieLayer): void {
    this.#top.layer.reach = undefined
    this.#top.layer = new TrieLayer(mark)
    this.#compact()
  }

  /**
   * Gives `state` (a copy of a state over this database, for another chain) a database over the
   * same layers with a top of its own, from the state now.
   */
  forkUnder(state: MerkleStateManager): void {
    state['_trie'].database(new TrieDatabase(this.#base, { layer: new TrieLayer(this.mark()) }), ValueEncoding.Bytes)
  }

  /** Whether the node keyed `hash` (a state root) is in a layer. */
  has(hash: Uint8Array): boolean {
    const k = hexDigitsOf(hash)
    for (let layer: TrieLayer | undefined = this.#top.layer; layer; layer = layer.parent) {
      const value = layer.entries.get(k)
      if (value !== undefined) return value !== DELETED
    }
    return false
  }

  /**
   * Drops from the top layer the nodes (and unprefixed code) that none of the states at `roots`
   * reaches; the layers below stay whole. Keys of another length (EthereumJS's prefixed code keys)
   * and deletions stay. Returns how many entries went.
   */
  prune(roots: Iterable<Uint8Array>): number {
    const top = this.#top.layer
    if (top.parent === undefined) return 0
    const entries = top.entries
    const edges = (top.reach ??= new ReachMemo())
    const lookup = (key: string) => {
      const value = entries.get(key)
      // Read once and let go: a view of Node's shared pool is enough.
      return typeof value === 'string' ? Buffer.from(value, 'latin1') : (value ?? undefined)
    }
    const reached = reachedKeys(roots, lookup, edges)
    let dropped = 0
    for (const [key, value] of entries) {
      if (key.length !== 64 || value === DELETED) continue
      if (reached.has(key)) {
        edges.settle(key)
        continue
      }
      entries.delete(key)
      edges.forget(key)
      dropped++
    }
    edges.settled()
    return dropped
  }

  /** How many layers sit above the base (for tests). */
  get depth(): number {
    let depth = 0
    for (let layer = this.#top.layer; layer.parent; layer = layer.parent) depth++
    return depth
  }

  /** Past MAX_DEPTH, the lowest layer's entries move into the base; the layer stays, empty, for marks that hold it. */
  #compact(): void {
    const path: TrieLayer[] = []
    for (let layer = this.#top.layer; layer.parent; layer = layer.parent) path.push(layer)
    while (path.length > MAX_DEPTH) {
      const lowest = path.pop()!
      const base = lowest.parent!
      for (const [key, value] of lowest.entries) {
        if (value === DELETED) base.entries.delete(key)
        else base.entries.set(key, value)
      }
      lowest.entries.clear()
      path[path.length - 1]!.parent = base
    }
  }
}

/** MapDB's key encoding, so that a key reads back whichever form it was written in. */
function keyOf(key: Key): string {
  return key instanceof Uint8Array ? bytesToUnprefixedHex(key) : key.toString()
}

/** The value's own bytes: a view into a larger buffer (returned data, a decoded list) would keep all of it. */
function ownBytes(value: Uint8Array): Uint8Array {
  return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice()
}

/** A Latin-1 string's bytes, in a buffer of their own (not a slice of Node's shared pool, which a kept value would pin). */
function bytesOf(latin1: string): Uint8Array {
  const bytes = new Uint8Array(latin1.length)
  Buffer.from(bytes.buffer).write(latin1, 'latin1')
  return bytes
}
