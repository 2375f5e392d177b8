/**
 * A trie read (`MerklePatriciaTrie.get`) as a loop down the key's path. EthereumJS 10's `get`
 * runs `findPath`, which walks with a `WalkController`: per read, a task executor with a pool of
 * 500, a promise per node, a 64-entry stack array and the path's nibbles sliced at every node,
 * although a read follows one path and keeps nothing. This follows the same path through the same
 * `lookupNode` and node classes and answers what `get` answers: the value of the leaf (or branch)
 * the whole key reaches, or null.
 *
 * Anything but the plain case goes to EthereumJS's own `get`, so that its answer (or error) is the
 * one given: debug logging on, a trie class with a `get` of its own, an empty trie, a node missing from the database or any other error
 * on the way (`get` answers null for a missing node; its walk decides what else throws).
 */
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie as Trie } from '@ethereumjs/mpt'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { equalsBytes } from '@ethereumjs/util'

interface TrieInternals {
  DEBUG: boolean
  appliedKey(key: Uint8Array): Uint8Array
}

type NodeRef = Parameters<MerklePatriciaTrie['lookupNode']>[0]

const ownGet = Trie.prototype.get

/**
 * How many decoded nodes a reader keeps before it starts over: about 1 KB each on the heap
 * (measured on a trie of 20,000 keys: 975 bytes), so about 1 MiB. The top three levels of a
 * trie are 273 nodes.
 */
const NODES_KEPT = 1024

/**
 * Decoded nodes by their hash (Latin-1), kept by the caller across reads, only ever read here: a
 * node's hash names its contents, so a kept node is right under any root and in any database,
 * and the upper levels of a trie are on every read's path (a read of a key never asked decoded
 * them all again: three of its four nodes on the bench token's storage trie).
 */
export type DecodedNodes = Map<string, MPTNode>
type MPTNode = Awaited<ReturnType<MerklePatriciaTrie['lookupNode']>>

/** `trie.get(key)`: the same answer, without the walk machinery; with `nodes`, nodes by hash decoded once. */
export async function trieGet(trie: MerklePatriciaTrie, key: Uint8Array, nodes?: DecodedNodes): Promise<Uint8Array | null> {
  const internals = trie as unknown as TrieInternals
  const root = trie.root()
  if (internals.DEBUG || trie.get !== ownGet || equalsBytes(root, trie.EMPTY_TRIE_ROOT)) return trie.get(key)
  let answer: Uint8Array | null | undefined
  try {
    answer = await follow(trie, root, internals.appliedKey(key), nodes)
  } catch {
    answer = undefined
  }
  return answer === undefined ? trie.get(key) : answer
}

/** The value at `path` (a node's value, or null); undefined for a node of no known kind. */
async function follow(trie: MerklePatriciaTrie, root: Uint8Array, path: Uint8Array, nodes: DecodedNodes | undefined): Promise<Uint8Array | null | undefined> {
  const lookup = nodes === undefined ? (ref: NodeRef) => trie.lookupNode(ref) : (ref: NodeRef) => kept(trie, ref, nodes)
  const length = path.length * 2
  const nibble = (i: number) => (i & 1 ? path[i >> 1]! & 0x0f : path[i >> 1]! >> 4)
  let at = 0
  let node = await lookup(root)
  for (;;) {
    if (node instanceof BranchMPTNode) {
      if (at === length) return node.value()
      const child = node.getBranch(nibble(at))
      if (!child) return null
      at++
      node = await lookup(child as NodeRef)
    } else if (node instanceof LeafMPTNode) {
      const rest = node.key()
      if (length - at > rest.length) return null
      for (const n of rest) {
        if (at >= length || n !== nibble(at)) return null
        at++
      }
      return node.value()
    } else if (node instanceof ExtensionMPTNode) {
      for (const n of node.key()) {
        if (at >= length || n !== nibble(at)) return null
        at++
      }
      node = await lookup(node.value() as NodeRef)
    } else {
      return undefined
    }
  }
}

/** A node by its hash, decoded once (an embedded node, given whole, is decoded as it comes). */
async function kept(trie: MerklePatriciaTrie, ref: NodeRef, nodes: DecodedNodes): Promise<MPTNode> {
  if (!(ref instanceof Uint8Array) || ref.length !== 32) return trie.lookupNode(ref)
  const key = Buffer.from(ref.buffer, ref.byteOffset, 32).toString('latin1')
  let node = nodes.get(key)
  if (node === undefined) {
    node = await trie.lookupNode(ref)
    if (nodes.size >= NODES_KEPT) nodes.clear()
    nodes.set(key, node)
  }
  return node
}
