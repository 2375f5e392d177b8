/**
 * `MerklePatriciaTrie.findPath` (what every trie `put` and `del` runs first) as a loop down the
 * key's path. EthereumJS 10.1.3 walks it with a `WalkController`: per call, a task executor with
 * a pool of 500, a promise per node, a stack array as long as the key's nibbles and the path's
 * nibbles copied at every node, although the path is one line. Mining an empty Osaka block runs six
 * (the EIP-2935 and EIP-4788 slots, their accounts, the system account's deletion), every
 * transaction's flush a few more. This follows the same path through the same `lookupNode` and
 * node classes and answers the same `{ node, remaining, stack }` (patches/README.md change 11).
 *
 * Anything but the plain case is EthereumJS's own: debug logging on, a walk resumed from a
 * `partialPath`, a trie class with a `findPath` of its own, or any error on the way (a missing node,
 * the empty trie: its walk decides what that answers or throws). Applied only to the version it
 * was written against (./ethereumjsVersion.ts).
 */
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MPTNode, Path } from '@ethereumjs/mpt'
import { ethereumjsVersion } from './ethereumjsVersion.ts'

/** The @ethereumjs/mpt version this change was written against. */
export const PATCHED_MPT_VERSION = '10.1.3'

type NodeRef = Parameters<MerklePatriciaTrie['lookupNode']>[0]
type FindPath = MerklePatriciaTrie['findPath']

/** EthereumJS's own `findPath`, as it was before the change. */
export const ownFindPath: FindPath = MerklePatriciaTrie.prototype.findPath

/** The path to `key` (already the applied key, as `put` and `del` pass it), as `findPath`'s walk finds it. */
export async function followPath(trie: MerklePatriciaTrie, key: Uint8Array): Promise<Path> {
  const target: number[] = []
  for (let i = 0; i < key.length; i++) target.push(key[i]! >> 4, key[i]! & 0x0f)
  const length = target.length
  const stack: MPTNode[] = []
  let at = 0
  let node = await trie.lookupNode(trie.root())
  for (;;) {
    stack.push(node)
    if (node instanceof BranchMPTNode) {
      if (at === length) return { node, remaining: [], stack }
      const child = node.getBranch(target[at]!)
      if (!child) return { node: null, remaining: target.slice(at), stack }
      at++
      node = await trie.lookupNode(child as NodeRef)
    } else if (node instanceof LeafMPTNode) {
      const start = at
      const rest = node.key()
      if (length - at > rest.length) return { node: null, remaining: target.slice(start), stack }
      for (const nibble of rest) {
        if (nibble !== target[at]) return { node: null, remaining: target.slice(start), stack }
        at++
      }
      return { node, remaining: [], stack }
    } else if (node instanceof ExtensionMPTNode) {
      const start = at
      for (const nibble of node.key()) {
        if (nibble !== target[at]) return { node: null, remaining: target.slice(start), stack }
        at++
      }
      node = await trie.lookupNode(node.value() as NodeRef)
    } else {
      throw new Error('a trie node of no known kind')
    }
  }
}

async function findPath(this: MerklePatriciaTrie, key: Uint8Array, throwIfMissing = false, partialPath?: { stack: MPTNode[] }): Promise<Path> {
  if ((this as unknown as { DEBUG: boolean }).DEBUG || (partialPath !== undefined && partialPath.stack.length > 0)) {
    return ownFindPath.call(this, key, throwIfMissing, partialPath)
  }
  try {
    return await followPath(this, key)
  } catch {
    return ownFindPath.call(this, key, throwIfMissing, partialPath)
  }
}

let applied: boolean | undefined

/** Applies the change once, if the installed @ethereumjs/mpt is the version it was written for. Answers whether it is in effect. */
export function patchFindPath(): boolean {
  if (applied !== undefined) return applied
  applied = ethereumjsVersion('@ethereumjs/mpt') === PATCHED_MPT_VERSION
  if (applied) MerklePatriciaTrie.prototype.findPath = findPath
  return applied
}
