/**
 * Writes a set of key changes to a Merkle-Patricia trie in one pass from its root, as geth's trie
 * commit does: the changed keys sorted, the trie walked once down the paths they share, each
 * changed node encoded and hashed once, and only the new trie's nodes written. EthereumJS 10.1.3's
 * `put` and `del` walk, re-encode and re-hash the whole path of every key one after the other, and
 * write every node of every intermediate trie (garbage that pruning then has to find): a block's
 * flush of n keys paid n paths where the paths share their top nodes.
 *
 * The trie a key set makes is one (the Merkle-Patricia trie is canonical), and the nodes are made
 * by EthereumJS's own node classes and encoded as its RLP encodes them (../../encoding/rlp.ts: in
 * one buffer), so the root and every node are the bytes put by put makes; trieCommit.test.ts
 * compares the two on random sets of inserts, updates and deletes.
 *
 * Subtrees no change reaches keep their reference (hash or inline node) as read: never decoded,
 * encoded or hashed again.
 */
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode } from '@ethereumjs/mpt'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { BatchDBOp } from '@ethereumjs/util'
import { rlpEncode } from '../../encoding/rlp.ts'
import type { RlpItem } from '../../encoding/rlp.ts'

/** A node's reference in its parent: its hash, or the node itself (raw) when it encodes under 32 bytes. */
type Ref = Uint8Array | Uint8Array[]

/** One change: the key as the trie stores it (after key hashing) and its new value; null deletes. */
export interface TrieWrite {
  key: Uint8Array
  value: Uint8Array | null
}

/** The new trie while it is made: changed nodes as plain objects, unchanged subtrees as their reference (bytes or an array). */
type Draft = Ref | Made
type Made =
  | { kind: 'leaf'; key: number[]; value: Uint8Array }
  | { kind: 'ext'; key: number[]; child: Draft }
  | { kind: 'branch'; children: (Draft | null)[]; value: Uint8Array | null }

const isRef = (draft: Draft): draft is Ref => draft instanceof Uint8Array || Array.isArray(draft)

interface Change {
  nibbles: number[]
  value: Uint8Array | null
}

/**
 * Applies `writes` (keys already transformed as the trie's `put` would: `trie.appliedKey`) to
 * `trie`, writes the new nodes to its database and moves its root. Later writes of a key win.
 * For a trie without key prefix, root persistence or node pruning (see `canCommit`).
 */
export async function commitWrites(trie: MerklePatriciaTrie, writes: readonly TrieWrite[]): Promise<void> {
  if (writes.length === 0) return
  const byKey = new Map<string, TrieWrite>()
  for (const w of writes) byKey.set(Buffer.from(w.key.buffer, w.key.byteOffset, w.key.byteLength).toString('latin1'), w)
  const changes = [...byKey.values()].sort((a, b) => Buffer.compare(a.key, b.key)).map((w): Change => ({ nibbles: nibblesOf(w.key), value: w.value }))
  const lock = (trie as unknown as { _lock: { acquire(): Promise<boolean>; release(): void } })._lock
  await lock.acquire()
  try {
    const empty = trie.EMPTY_TRIE_ROOT
    const start: Draft | null = Buffer.compare(trie.root(), empty) === 0 ? null : trie.root()
    const made = await update(trie, start, changes, 0, changes.length, 0)
    if (made === null) {
      trie.root(empty)
      return
    }
    if (isRef(made)) return
    const ops: BatchDBOp[] = []
    const root = encode(trie, made, ops, true) as Uint8Array
    await trie.database().batch(ops as never)
    trie.root(root)
  } finally {
    lock.release()
  }
}

/**
 * Whether `commitWrites` writes to `trie` as its own `put` and `del` would. Checkpoints are no
 * obstacle: the nodes go through the trie's checkpoint database as its own puts' do (runBlock asks
 * for the state root inside its checkpoint), and a revert drops them and puts the root back.
 */
export function canCommit(trie: MerklePatriciaTrie): boolean {
  const opts = (trie as unknown as { _opts: { keyPrefix?: unknown; useRootPersistence?: boolean; useNodePruning?: boolean } })._opts
  return opts.keyPrefix === undefined && opts.useRootPersistence !== true && opts.useNodePruning !== true
}

function nibblesOf(key: Uint8Array): number[] {
  const nibbles = new Array<number>(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    nibbles[2 * i] = key[i]! >> 4
    nibbles[2 * i + 1] = key[i]! & 0x0f
  }
  return nibbles
}

/** `node` (the subtree at `depth` nibbles) with `changes[lo..hi)` (sorted, all under it) applied; null: nothing left. */
async function update(trie: MerklePatriciaTrie, node: Draft | null, changes: Change[], lo: number, hi: number, depth: number): Promise<Draft | null> {
  if (lo === hi) return node
  if (node === null) {
    if (hi - lo === 1) {
      const { nibbles, value } = changes[lo]!
      return value === null ? null : { kind: 'leaf', key: nibbles.slice(depth), value }
    }
    return updateBranch(trie, { kind: 'branch', children: new Array<Draft | null>(16).fill(null), value: null }, changes, lo, hi, depth)
  }
  const open = isRef(node) ? await opened(trie, node) : node
  if (open.kind === 'branch') return updateBranch(trie, open, changes, lo, hi, depth)
  // A leaf or an extension: the nibbles of its key that every change shares are passed at once.
  const key = open.key
  const shared = Math.min(sharedLength(key, changes[lo]!.nibbles, depth), sharedLength(key, changes[hi - 1]!.nibbles, depth))
  if (open.kind === 'leaf' && shared === key.length && hi - lo === 1 && changes[lo]!.nibbles.length === depth + key.length) {
    const value = changes[lo]!.value
    return value === null ? null : { kind: 'leaf', key, value }
  }
  if (open.kind === 'ext' && shared === key.length) return prefixed(trie, key, await update(trie, open.child, changes, lo, hi, depth + key.length))
  if (shared > 0) {
    const rest: Made = open.kind === 'leaf' ? { kind: 'leaf', key: key.slice(shared), value: open.value } : { kind: 'ext', key: key.slice(shared), child: open.child }
    return prefixed(trie, key.slice(0, shared), await update(trie, rest, changes, lo, hi, depth + shared))
  }
  // No nibble shared by all: the branch it would be under its first nibble, made one again by `settled`.
  const children = new Array<Draft | null>(16).fill(null)
  if (open.kind === 'leaf' && key.length === 0) return updateBranch(trie, { kind: 'branch', children, value: open.value }, changes, lo, hi, depth)
  const rest = key.slice(1)
  children[key[0]!] =
    open.kind === 'leaf' ? { kind: 'leaf', key: rest, value: open.value } : rest.length === 0 ? open.child : { kind: 'ext', key: rest, child: open.child }
  return updateBranch(trie, { kind: 'branch', children, value: null }, changes, lo, hi, depth)
}

/** How many nibbles of `key` the change's nibbles from `depth` on share. */
function sharedLength(key: number[], nibbles: number[], depth: number): number {
  let n = 0
  while (n < key.length && depth + n < nibbles.length && key[n] === nibbles[depth + n]) n++
  return n
}

/** The subtree `node` under the nibbles `prefix`, as the trie holds it (a leaf or an extension takes them into its key). */
async function prefixed(trie: MerklePatriciaTrie, prefix: number[], node: Draft | null): Promise<Draft | null> {
  if (node === null) return null
  const open = isRef(node) ? await opened(trie, node) : node
  if (open.kind === 'leaf') return { kind: 'leaf', key: [...prefix, ...open.key], value: open.value }
  if (open.kind === 'ext') return { kind: 'ext', key: [...prefix, ...open.key], child: open.child }
  return { kind: 'ext', key: prefix, child: node }
}

async function updateBranch(
  trie: MerklePatriciaTrie,
  branch: Extract<Made, { kind: 'branch' }>,
  changes: Change[],
  lo: number,
  hi: number,
  depth: number,
): Promise<Draft | null> {
  let value = branch.value
  const children = branch.children
  let at = lo
  // Sorted: a key that ends here comes first.
  if (changes[at]!.nibbles.length === depth) value = changes[at++]!.value
  while (at < hi) {
    const nibble = changes[at]!.nibbles[depth]!
    let end = at + 1
    while (end < hi && changes[end]!.nibbles[depth] === nibble) end++
    children[nibble] = await update(trie, children[nibble]!, changes, at, end, depth + 1)
    at = end
  }
  return settled(trie, children, value)
}

/** A branch's children and value as the trie holds them: no branch with fewer than two entries. */
async function settled(trie: MerklePatriciaTrie, children: (Draft | null)[], value: Uint8Array | null): Promise<Draft | null> {
  let count = 0
  let only = -1
  for (let i = 0; i < 16; i++) {
    if (children[i] !== null) {
      count++
      only = i
    }
  }
  if (count === 0) return value === null ? null : { kind: 'leaf', key: [], value }
  if (count > 1 || value !== null) return { kind: 'branch', children, value }
  return prefixed(trie, [only], children[only]!)
}

/** A stored node, its children left as references. */
async function opened(trie: MerklePatriciaTrie, ref: Ref): Promise<Made> {
  const node = await trie.lookupNode(ref)
  if (node instanceof LeafMPTNode) return { kind: 'leaf', key: node.key(), value: node.value() as Uint8Array }
  if (node instanceof ExtensionMPTNode) return { kind: 'ext', key: node.key(), child: node.value() as Ref }
  const children = new Array<Draft | null>(16)
  for (let i = 0; i < 16; i++) children[i] = node.getBranch(i) as Ref | null
  return { kind: 'branch', children, value: node.value() }
}

/** The node's reference, its new nodes (and theirs) added to `ops`; the root is stored whatever its size, as EthereumJS's. */
function encode(trie: MerklePatriciaTrie, draft: Draft, ops: BatchDBOp[], top: boolean): Ref {
  if (isRef(draft)) return draft
  let node: LeafMPTNode | ExtensionMPTNode | BranchMPTNode
  if (draft.kind === 'leaf') node = new LeafMPTNode(draft.key, draft.value)
  else if (draft.kind === 'ext') node = new ExtensionMPTNode(draft.key, encode(trie, draft.child, ops, false) as Uint8Array)
  else {
    node = new BranchMPTNode()
    for (let i = 0; i < 16; i++) {
      const child = draft.children[i]
      if (child !== null && child !== undefined) node.setBranch(i, encode(trie, child, ops, false) as Uint8Array)
    }
    if (draft.value !== null) node.value(draft.value)
  }
  const encoded = rlpEncode(node.raw() as RlpItem)
  if (encoded.length < 32 && !top) return node.raw() as Ref
  const hash = (trie as unknown as { hash(bytes: Uint8Array): Uint8Array }).hash(encoded)
  ops.push({ type: 'put', key: hash, value: encoded })
  return hash
}
