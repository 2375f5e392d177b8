/**
 * The trie nodes a chain's states reach, walked through one layer of its trie database
 * (./trieDatabase.ts): what pruning keeps. From each state root, the account trie's nodes; from
 * each account leaf, its storage trie's nodes and its code hash. A node the lookup does not find
 * is not in the layer: it, and everything under it, lives below (nodes are keyed by their hash,
 * and a node is written with or after its children), so the walk stops there.
 *
 * What a node refers to never changes (its key is its hash), so a walk keeps each node's
 * references (`ReachMemo`, owned by the layer, forgetting the nodes pruning drops): the next
 * pruning decodes only the nodes written since. Most of a chain's live nodes (a system contract's
 * ring of 8191 slots) stay from one pruning to the next, and decoding them every 64 blocks was
 * most of a pruning's cost.
 */
import { RLP } from '@ethereumjs/rlp'

/** A node's bytes in the layer, by unprefixed hex key, or undefined when it is not there. */
export type NodeLookup = (key: string) => Uint8Array | undefined

interface Pending {
  readonly key: string
  /** In the account trie (its leaves are accounts), else in a storage trie. */
  readonly accounts: boolean
}

/** A node's references: the nodes under it (storage roots under account leaves) and the code hashes of its accounts. */
interface Edges {
  readonly nodes: readonly Pending[]
  readonly codes: readonly string[]
}

const NO_EDGES: Edges = { nodes: [], codes: [] }

/** Each walked node's references, by key, in the account trie and in storage tries (one node's bytes can be in both); a node that leaves the layer must be forgotten. */
export class ReachMemo {
  readonly #accounts = new Map<string, Edges>()
  readonly #storage = new Map<string, Edges>()

  get(key: string, accounts: boolean): Edges | undefined {
    return (accounts ? this.#accounts : this.#storage).get(key)
  }

  set(key: string, accounts: boolean, edges: Edges): void {
    ;(accounts ? this.#accounts : this.#storage).set(key, edges)
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
 * before is not read again.
 */
export function reachedKeys(roots: Iterable<Uint8Array>, lookup: NodeLookup, memo?: ReachMemo): Set<string> {
  const reached = new Set<string>()
  const pending: Pending[] = []
  for (const root of roots) pending.push({ key: hexOf(root), accounts: true })
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { key, accounts } = next
    if (reached.has(key)) continue
    let edges = memo?.get(key, accounts)
    if (edges === undefined) {
      const bytes = lookup(key)
      if (bytes === undefined) continue
      edges = edgesOf(RLP.decode(bytes), accounts)
      memo?.set(key, accounts, edges)
    }
    reached.add(key)
    for (const node of edges.nodes) if (!reached.has(node.key)) pending.push(node)
    for (const code of edges.codes) reached.add(code)
  }
  return reached
}

function edgesOf(node: unknown, accounts: boolean): Edges {
  const nodes: Pending[] = []
  const codes: string[] = []
  visit(node, accounts, nodes, codes)
  return nodes.length === 0 && codes.length === 0 ? NO_EDGES : { nodes, codes }
}

/** A decoded node: a branch's 16 children, an extension's child, an account leaf's storage root and code. */
function visit(node: unknown, accounts: boolean, nodes: Pending[], codes: string[]): void {
  if (!Array.isArray(node)) return
  if (node.length === 17) {
    for (let i = 0; i < 16; i++) child(node[i], accounts, nodes, codes)
  } else if (node.length === 2) {
    const path = node[0] as Uint8Array
    // The first nibble of a compact path: 0 or 1 an extension, 2 or 3 a leaf.
    const leaf = path.length > 0 && path[0]! >> 4 >= 2
    if (!leaf) child(node[1], accounts, nodes, codes)
    else if (accounts && node[1] instanceof Uint8Array) account(node[1], nodes, codes)
  }
}

/** A child reference: a 32-byte hash, or a node under 32 bytes embedded in its parent. */
function child(ref: unknown, accounts: boolean, nodes: Pending[], codes: string[]): void {
  if (ref instanceof Uint8Array) {
    if (ref.length === 32) nodes.push({ key: hexOf(ref), accounts })
  } else {
    visit(ref, accounts, nodes, codes)
  }
}

/** An account's RLP (nonce, balance, storage root, code hash): its storage trie, and its code (unprefixed code keys). */
function account(value: Uint8Array, nodes: Pending[], codes: string[]): void {
  let fields: unknown
  try {
    fields = RLP.decode(value)
  } catch {
    return
  }
  if (!Array.isArray(fields) || fields.length !== 4) return
  const [, , storageRoot, codeHash] = fields as Uint8Array[]
  if (storageRoot instanceof Uint8Array && storageRoot.length === 32) nodes.push({ key: hexOf(storageRoot), accounts: false })
  if (codeHash instanceof Uint8Array && codeHash.length === 32) codes.push(hexOf(codeHash))
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
