/**
 * The trie nodes a chain's states reach, walked through one layer of its trie database
 * (./trieDatabase.ts): what pruning keeps. From each state root, the account trie's nodes; from
 * each account leaf, its storage trie's nodes and its code hash. A node the lookup does not find
 * is not in the layer: it, and everything under it, lives below (nodes are keyed by their hash,
 * and a node is written with or after its children), so the walk stops there.
 *
 * What a node refers to never changes (its key is its hash), so a walk keeps each node's
 * references (`ReachMemo`, owned by the layer, forgetting the nodes pruning drops): the next
 * pruning reads only the nodes written since. Most of a chain's live nodes (a system contract's
 * ring of 8191 slots) stay from one pruning to the next, and decoding them every 64 blocks was
 * most of a pruning's cost. The memo is kept small, since it lives as long as the nodes: a node's
 * references are one flat Latin-1 string of their bytes (`Edges`, empty for a leaf; as hex they
 * took more memory than the nodes' own bytes), and it is keyed by the layer's own key string, not
 * a copy. A walk turns each reference it follows into hex, as the layer's keys are.
 */
import { hexDigitsOf } from '../../encoding/hex.ts'

/** A node's bytes in the layer, by unprefixed hex key, or undefined when it is not there. */
export type NodeLookup = (key: string) => Uint8Array | undefined

/**
 * A node's references as Latin-1 (one character a byte) of `EDGE` bytes each: a kind byte
 * (`SAME_TRIE`, `STORAGE_ROOT`, `CODE`), then the 32-byte hash. A node without references has ''.
 */
type Edges = string

const EDGE = 33
/** Hex characters per reference, and where its key starts within them. */
const EDGE_HEX = 2 * EDGE
const KEY_AT = 2
/** A child node in the node's own trie, a storage trie's root under an account leaf, an account's code hash. */
const SAME_TRIE = 0
const STORAGE_ROOT = 1
const CODE = 2

/**
 * Each kept node's references, by key, in the account trie and in storage tries (one node's bytes
 * can be in both); a node that leaves the layer must be forgotten. A walk learns the new nodes'
 * references under its own key strings; `settle` keeps them under the layer's key once the node
 * is known kept, and `settled` forgets the rest.
 */
export class ReachMemo {
  readonly #accounts = new Map<string, Edges>()
  readonly #storage = new Map<string, Edges>()
  readonly #learnedAccounts = new Map<string, Edges>()
  readonly #learnedStorage = new Map<string, Edges>()

  get(key: string, accounts: boolean): Edges | undefined {
    return accounts ? (this.#accounts.get(key) ?? this.#learnedAccounts.get(key)) : (this.#storage.get(key) ?? this.#learnedStorage.get(key))
  }

  learn(key: string, accounts: boolean, edges: Edges): void {
    ;(accounts ? this.#learnedAccounts : this.#learnedStorage).set(key, edges)
  }

  /** `key` (the layer's own string) stays in the layer: what the last walk learned of it is kept. */
  settle(key: string): void {
    if (this.#learnedAccounts.size > 0) {
      const edges = this.#learnedAccounts.get(key)
      if (edges !== undefined) this.#accounts.set(key, edges)
    }
    if (this.#learnedStorage.size > 0) {
      const edges = this.#learnedStorage.get(key)
      if (edges !== undefined) this.#storage.set(key, edges)
    }
  }

  /** Every kept node was settled. */
  settled(): void {
    this.#learnedAccounts.clear()
    this.#learnedStorage.clear()
  }

  /** A node that left the layer. */
  forget(key: string): void {
    this.#accounts.delete(key)
    this.#storage.delete(key)
  }

  get size(): number {
    return this.#accounts.size + this.#storage.size
  }
}

/**
 * The keys (unprefixed hex) of the nodes and code hashes the states at `roots` reach in the layer
 * `lookup` reads. With `memo` (which must forget every node that leaves the layer), a node walked
 * before is not read again; the nodes read are learned, to `settle` in the memo.
 */
export function reachedKeys(roots: Iterable<Uint8Array>, lookup: NodeLookup, memo?: ReachMemo): Set<string> {
  const reached = new Set<string>()
  const keys: string[] = []
  const inAccounts: boolean[] = []
  for (const root of roots) {
    keys.push(hexDigitsOf(root))
    inAccounts.push(true)
  }
  for (let key = keys.pop(); key !== undefined; key = keys.pop()) {
    const accounts = inAccounts.pop()!
    if (reached.has(key)) continue
    let edges = memo?.get(key, accounts)
    if (edges === undefined) {
      const bytes = lookup(key)
      if (bytes === undefined) continue
      edges = edgesOf(bytes, accounts)
      memo?.learn(key, accounts, edges)
    }
    reached.add(key)
    if (edges.length === 0) continue
    // As hex for the walk only (the layer's keys are hex), through one scratch buffer: one string,
    // and each key a slice of it, which V8 makes a view, not a copy.
    const hex = hexOfLatin1(edges)
    for (let at = 0; at < hex.length; at += EDGE_HEX) {
      const ref = hex.slice(at + KEY_AT, at + EDGE_HEX)
      const kind = hex.charCodeAt(at + 1) - 48
      if (kind === CODE) reached.add(ref)
      else if (!reached.has(ref)) {
        keys.push(ref)
        inAccounts.push(kind === SAME_TRIE && accounts)
      }
    }
  }
  return reached
}

/** A node's references, read from its RLP without decoding it into arrays. */
export function edgesOf(node: Uint8Array, accounts: boolean): Edges {
  const found: number[] = []
  const whole = item(node, 0, node.length)
  if (whole !== undefined) visit(node, whole, accounts, found)
  if (found.length === 0) return ''
  const out = Buffer.allocUnsafe((found.length / 2) * EDGE)
  for (let i = 0; i < found.length; i += 2) {
    const at = (i / 2) * EDGE
    out[at] = found[i]!
    out.set(node.subarray(found[i + 1]!, found[i + 1]! + 32), at + 1)
  }
  return out.toString('latin1')
}

/** An RLP item of a node: its payload's bounds, and whether it is a list. */
interface Item {
  readonly start: number
  readonly stop: number
  readonly list: boolean
}

/** The RLP item at `at`, or undefined when it does not end by `end`. */
function item(bytes: Uint8Array, at: number, end: number): Item | undefined {
  if (at >= end) return undefined
  const b = bytes[at]!
  if (b < 0x80) return { start: at, stop: at + 1, list: false }
  const list = b >= 0xc0
  const short = list ? b <= 0xf7 : b <= 0xb7
  let start = at + 1
  let length = b - (list ? 0xc0 : 0x80)
  if (!short) {
    const lengthBytes = b - (list ? 0xf7 : 0xb7)
    length = 0
    for (let i = 1; i <= lengthBytes; i++) length = length * 256 + (bytes[at + i] ?? 0)
    start += lengthBytes
  }
  const stop = start + length
  return stop > end ? undefined : { start, stop, list }
}

/** The items of a list (at most 18 read: a node has 2 or 17), or undefined when it is not one. */
function itemsOf(bytes: Uint8Array, list: Item): Item[] | undefined {
  if (!list.list) return undefined
  const items: Item[] = []
  for (let at = list.start; at < list.stop && items.length <= 17; ) {
    const next = item(bytes, at, list.stop)
    if (next === undefined) return undefined
    items.push(next)
    at = next.stop
  }
  return items
}

/** A node (maybe embedded in its parent): a branch's 16 children, an extension's child, an account leaf's storage root and code. */
function visit(bytes: Uint8Array, node: Item, accounts: boolean, found: number[]): void {
  const items = itemsOf(bytes, node)
  if (items === undefined) return
  if (items.length === 17) {
    for (let i = 0; i < 16; i++) child(bytes, items[i]!, accounts, found)
  } else if (items.length === 2) {
    const [path, value] = items as [Item, Item]
    if (path.list) return
    // The first nibble of a compact path: 0 or 1 an extension, 2 or 3 a leaf.
    const leaf = path.stop > path.start && bytes[path.start]! >> 4 >= 2
    if (!leaf) child(bytes, value, accounts, found)
    else if (accounts && !value.list) account(bytes, value, found)
  }
}

/** A child reference: a 32-byte hash, or a node under 32 bytes embedded in its parent. */
function child(bytes: Uint8Array, ref: Item, accounts: boolean, found: number[]): void {
  if (ref.list) visit(bytes, ref, accounts, found)
  else if (ref.stop - ref.start === 32) found.push(SAME_TRIE, ref.start)
}

/** An account leaf's value, the account's RLP (nonce, balance, storage root, code hash): its storage trie, and its code. */
function account(bytes: Uint8Array, value: Item, found: number[]): void {
  const whole = item(bytes, value.start, value.stop)
  if (whole === undefined || whole.stop !== value.stop) return
  const fields = itemsOf(bytes, whole)
  if (fields === undefined || fields.length !== 4) return
  const [, , storageRoot, codeHash] = fields as [Item, Item, Item, Item]
  if (!storageRoot.list && storageRoot.stop - storageRoot.start === 32) found.push(STORAGE_ROOT, storageRoot.start)
  if (!codeHash.list && codeHash.stop - codeHash.start === 32) found.push(CODE, codeHash.start)
}

/** Room for the most references a node has: a branch's 16 children (an account leaf has 2). */
const scratch = Buffer.alloc(16 * EDGE)

/** The hex of a Latin-1 string of at most `scratch`'s length. */
function hexOfLatin1(latin1: string): string {
  if (latin1.length > scratch.length) return Buffer.from(latin1, 'latin1').toString('hex')
  const length = scratch.write(latin1, 0, 'latin1')
  return scratch.toString('hex', 0, length)
}
