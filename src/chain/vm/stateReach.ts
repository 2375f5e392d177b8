/**
 * The trie nodes a chain's states reach, walked through one layer of its trie database
 * (./trieDatabase.ts): what pruning keeps. From each state root, the account trie's nodes; from
 * each account leaf, its storage trie's nodes and its code hash. A node the lookup does not find
 * is not in the layer: it, and everything under it, lives below (nodes are keyed by their hash,
 * and a node is written with or after its children), so the walk stops there.
 */
import { RLP } from '@ethereumjs/rlp'

/** A node's bytes in the layer, by unprefixed hex key, or undefined when it is not there. */
export type NodeLookup = (key: string) => Uint8Array | undefined

interface Pending {
  key: string
  /** In the account trie (its leaves are accounts), else in a storage trie. */
  accounts: boolean
}

/** The keys (unprefixed hex) of the nodes and code hashes the states at `roots` reach in the layer `lookup` reads. */
export function reachedKeys(roots: Iterable<Uint8Array>, lookup: NodeLookup): Set<string> {
  const reached = new Set<string>()
  const pending: Pending[] = []
  for (const root of roots) pending.push({ key: hexOf(root), accounts: true })
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (reached.has(next.key)) continue
    const bytes = lookup(next.key)
    if (bytes === undefined) continue
    reached.add(next.key)
    visit(RLP.decode(bytes), next.accounts, pending, reached)
  }
  return reached
}

/** A decoded node: a branch's 16 children, an extension's child, an account leaf's storage root and code. */
function visit(node: unknown, accounts: boolean, pending: Pending[], reached: Set<string>): void {
  if (!Array.isArray(node)) return
  if (node.length === 17) {
    for (let i = 0; i < 16; i++) child(node[i], accounts, pending, reached)
  } else if (node.length === 2) {
    const path = node[0] as Uint8Array
    // The first nibble of a compact path: 0 or 1 an extension, 2 or 3 a leaf.
    const leaf = path.length > 0 && path[0]! >> 4 >= 2
    if (!leaf) child(node[1], accounts, pending, reached)
    else if (accounts && node[1] instanceof Uint8Array) account(node[1], pending, reached)
  }
}

/** A child reference: a 32-byte hash, or a node under 32 bytes embedded in its parent. */
function child(ref: unknown, accounts: boolean, pending: Pending[], reached: Set<string>): void {
  if (ref instanceof Uint8Array) {
    if (ref.length === 32) pending.push({ key: hexOf(ref), accounts })
  } else {
    visit(ref, accounts, pending, reached)
  }
}

/** An account's RLP (nonce, balance, storage root, code hash): its storage trie, and its code (unprefixed code keys). */
function account(value: Uint8Array, pending: Pending[], reached: Set<string>): void {
  let fields: unknown
  try {
    fields = RLP.decode(value)
  } catch {
    return
  }
  if (!Array.isArray(fields) || fields.length !== 4) return
  const [, , storageRoot, codeHash] = fields as Uint8Array[]
  if (storageRoot instanceof Uint8Array && storageRoot.length === 32) pending.push({ key: hexOf(storageRoot), accounts: false })
  if (codeHash instanceof Uint8Array && codeHash.length === 32) reached.add(hexOf(codeHash))
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
