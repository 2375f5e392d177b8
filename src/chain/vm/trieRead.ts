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

/** `trie.get(key)`: the same answer, without the walk machinery. */
export async function trieGet(trie: MerklePatriciaTrie, key: Uint8Array): Promise<Uint8Array | null> {
  const internals = trie as unknown as TrieInternals
  const root = trie.root()
  if (internals.DEBUG || trie.get !== ownGet || equalsBytes(root, trie.EMPTY_TRIE_ROOT)) return trie.get(key)
  let answer: Uint8Array | null | undefined
  try {
    answer = await follow(trie, root, internals.appliedKey(key))
  } catch {
    answer = undefined
  }
  return answer === undefined ? trie.get(key) : answer
}

/** The value at `path` (a node's value, or null); undefined for a node of no known kind. */
async function follow(trie: MerklePatriciaTrie, root: Uint8Array, path: Uint8Array): Promise<Uint8Array | null | undefined> {
  const length = path.length * 2
  const nibble = (i: number) => (i & 1 ? path[i >> 1]! & 0x0f : path[i >> 1]! >> 4)
  let at = 0
  let node = await trie.lookupNode(root)
  for (;;) {
    if (node instanceof BranchMPTNode) {
      if (at === length) return node.value()
      const child = node.getBranch(nibble(at))
      if (!child) return null
      at++
      node = await trie.lookupNode(child as NodeRef)
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
      node = await trie.lookupNode(node.value() as NodeRef)
    } else {
      return undefined
    }
  }
}
