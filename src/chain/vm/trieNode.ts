/**
 * `MerklePatriciaTrie.lookupNode` of a node stored by its hash, decoded without copying every item.
 * EthereumJS 10.1.3's `decodeMPTNode` copies the node's bytes with `Uint8Array.from` (which goes
 * through the iterator, byte by byte), and its RLP decoder copies each item into an array of its
 * own (`slice`): a branch node read from the database made 18 arrays and copied its 532 bytes
 * twice. Here the node is copied once (`slice`, a memory copy) and its items are views of that
 * copy; the node is made by EthereumJS's own `decodeRawMPTNode` from them, so the node classes and
 * the bytes they hold are the ones EthereumJS makes (patches/README.md change 18).
 *
 * Only canonical RLP is read here (what a trie writes: a trie node's items, byte strings or nested
 * lists for embedded nodes, minimal lengths, nothing after the node); anything else, debug
 * logging, a raw (embedded) node and a node missing from the database go to EthereumJS's own
 * `lookupNode`, so its answer or error is the one given. Applied only to the version it was written
 * against (./ethereumjsVersion.ts).
 */
import { decodeRawMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MPTNode } from '@ethereumjs/mpt'
import { ethereumjsVersion } from './ethereumjsVersion.ts'
import { PATCHED_MPT_VERSION } from './triePath.ts'

/** What lookupNode reads of EthereumJS 10.1.3's trie. */
interface TrieInternals {
  DEBUG: boolean
  _db: { get(key: Uint8Array | string): Promise<Uint8Array | undefined> }
  _getDbKey(key: Uint8Array): Uint8Array | string
}

type NodeRef = Parameters<MerklePatriciaTrie['lookupNode']>[0]

/** RLP's decoded form: a byte string, or a list of them (nested). */
type Decoded = Uint8Array | Decoded[]

/** EthereumJS's own `lookupNode`, as it was before the change. */
export const ownLookupNode: MerklePatriciaTrie['lookupNode'] = MerklePatriciaTrie.prototype.lookupNode

/** The node in `bytes` (one node's RLP) as RLP decodes it, items as views of `bytes`; undefined for anything but canonical RLP of a list that fills `bytes`. */
export function decodeNodeItems(bytes: Uint8Array): Decoded[] | undefined {
  const end = { at: 0 }
  const node = item(bytes, 0, bytes.length, end)
  return Array.isArray(node) && end.at === bytes.length ? node : undefined
}

/** The RLP item at `at` (ending by `limit`), `next.at` set after it; undefined where RLP.decode would throw or read otherwise. */
function item(bytes: Uint8Array, at: number, limit: number, next: { at: number }): Decoded | undefined {
  if (at >= limit) return undefined
  const first = bytes[at]!
  if (first <= 0x7f) {
    next.at = at + 1
    return bytes.subarray(at, at + 1)
  }
  let start: number
  let length: number
  if (first <= 0xb7 || (first >= 0xc0 && first <= 0xf7)) {
    start = at + 1
    length = first - (first <= 0xb7 ? 0x80 : 0xc0)
  } else {
    const lengthBytes = first - (first <= 0xbf ? 0xb7 : 0xf7)
    // A long form's length: no leading zero, more than 55 (RLP.decode's checks), within the item.
    if (at + 1 + lengthBytes > limit || bytes[at + 1] === 0 || lengthBytes > 4) return undefined
    length = 0
    for (let i = 1; i <= lengthBytes; i++) length = length * 256 + bytes[at + i]!
    if (length <= 55) return undefined
    start = at + 1 + lengthBytes
  }
  const stop = start + length
  if (stop > limit) return undefined
  next.at = stop
  if (first < 0xc0) {
    // A single byte under 0x80 written with a prefix is not canonical (RLP.decode throws).
    if (length === 1 && bytes[start]! < 0x80) return undefined
    return bytes.subarray(start, stop)
  }
  const items: Decoded[] = []
  const inner = { at: start }
  while (inner.at < stop) {
    const decoded = item(bytes, inner.at, stop, inner)
    if (decoded === undefined) return undefined
    items.push(decoded)
  }
  return items
}

/** The node stored under `node` (its hash), decoded from one copy of its bytes; EthereumJS's own for the rest. */
async function lookupNode(this: MerklePatriciaTrie, node: NodeRef): Promise<MPTNode> {
  const trie = this as unknown as TrieInternals
  if (trie.DEBUG || !(node instanceof Uint8Array)) return ownLookupNode.call(this, node)
  const value = await trie._db.get(trie._getDbKey(node))
  if (value === undefined || value === null) return ownLookupNode.call(this, node)
  // One copy, as EthereumJS's Uint8Array.from makes one: the node's arrays never share the database's bytes.
  const raw = decodeNodeItems(value.slice())
  if (raw === undefined || (raw.length !== 17 && raw.length !== 2)) return ownLookupNode.call(this, node)
  return decodeRawMPTNode(raw as Uint8Array[])
}

let applied: boolean | undefined

/** Applies the change once, if the installed @ethereumjs/mpt is the version it was written for. Answers whether it is in effect. */
export function patchLookupNode(): boolean {
  if (applied !== undefined) return applied
  applied = ethereumjsVersion('@ethereumjs/mpt') === PATCHED_MPT_VERSION
  if (applied) MerklePatriciaTrie.prototype.lookupNode = lookupNode
  return applied
}
