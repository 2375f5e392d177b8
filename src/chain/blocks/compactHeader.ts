/**
 * A kept header's byte fields in one buffer. A chain keeps every block it mines, and EthereumJS's
 * header holds a dozen byte arrays (parent hash, roots, bloom, mix hash, nonce, coinbase...), each
 * made on its own: a small `Uint8Array` with a buffer of its own costs ~230 bytes of JS heap
 * besides its bytes (the view, its ArrayBuffer, the bytes on the heap), 12 of them ~2.7 KiB a
 * block. Here each field is a view of one buffer (~95 bytes each), a field that is all zeros
 * (an empty block's bloom, the mix hash, the nonce, the zero parent beacon root) is one array
 * shared by every header, and a field equal to one of EthereumJS's own constants (`KECCAK256_RLP`...)
 * is that constant, as EthereumJS shares them: headers are frozen and their fields only read.
 */
import { createBlockHeader } from '@ethereumjs/block'
import type { BlockHeader, HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Address, KECCAK256_RLP, KECCAK256_RLP_ARRAY, SHA256_NULL } from '@ethereumjs/util'
import { rlpEncode } from '../../encoding/rlp.ts'

/**
 * EthereumJS's own constants (the empty tries' roots, the empty uncles' hash, the empty requests'
 * hash): a field equal to one is that constant. Most headers hold them as copies of their own
 * (EthereumJS copies the fields it is given, and `runBlock` computes the roots and the requests'
 * hash): an empty block's uncles, transactions, receipts, withdrawals and requests, five views
 * of ~128 bytes each (a view, 32 bytes of the buffer).
 */
const SHARED: readonly Uint8Array[] = [KECCAK256_RLP, KECCAK256_RLP_ARRAY, SHA256_NULL]

/** The shared constant `bytes` equals, if any. */
function sharedEqual(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length !== 32) return undefined
  // The first byte first: a hash that is none of them is told apart without a compare.
  for (const shared of SHARED) if (shared === bytes || (shared[0] === bytes[0] && Buffer.compare(shared, bytes) === 0)) return shared
  return undefined
}

/** Zero-filled fields by length (read only, shared by every header). */
const ZEROS = new Map<number, Uint8Array>([0, 8, 20, 32, 256].map((n) => [n, new Uint8Array(n)]))

/**
 * The shared zero-filled array `bytes` equals, if any (compared natively: `every` over a 256-byte
 * bloom cost 2-3 µs, more than rendering it). Also what ./render.ts tells an empty logs bloom by.
 */
export function sharedZeros(bytes: Uint8Array): Uint8Array | undefined {
  const zeros = ZEROS.get(bytes.length)
  return zeros !== undefined && Buffer.compare(bytes, zeros) === 0 ? zeros : undefined
}

/**
 * The header `fields` make, its byte fields views of one buffer (or shared zeros) and its hash
 * computed into that buffer too. EthereumJS copies every byte field it is given, so the header is
 * made unfrozen, its fields replaced, then frozen as EthereumJS freezes it.
 */
export function compactHeader(fields: HeaderData, common: Common): BlockHeader {
  return compacted(createBlockHeader(fields, { common, freeze: false }))
}

/**
 * EthereumJS 10.1.3's `BlockHeader` own properties, in its constructor's order: what `compactCopy`
 * copies, each with a store of its own name.
 */
const HEADER_PROPERTIES = 'cache common keccakFunction parentHash uncleHash coinbase stateRoot transactionsTrie receiptTrie logsBloom difficulty number gasLimit gasUsed timestamp extraData mixHash nonce baseFeePerGas withdrawalsRoot blobGasUsed excessBlobGas parentBeaconBlockRoot requestsHash blockAccessListHash slotNumber'

/**
 * A compact copy of a header made already (the one `runBlock` seals a mined block with): the same
 * fields and hash, without making the header again (a Common copy, every field converted and
 * checked, the fork's defaults looked up); undefined for a header of another shape (another
 * EthereumJS version: the caller makes it anew). It holds `common`, the fork's Common the chain
 * keeps and never changes (../store/forkCommons.ts), not the made header's own copy of the VM's,
 * whose parameter cache the chain cannot share.
 *
 * Each property is copied by name, in the constructor's order: copies share V8's hidden classes
 * and keep fast properties. `Object.assign` of the 26 (stores by key, which V8 stops keeping fast
 * past a dozen added) made the kept headers of a mining server dictionaries: heap snapshots around
 * 1,000 mined blocks showed 1,599 bytes of property dictionary and a hidden class per block, where
 * these copies hold a 208-byte property array (bench:memory's JS heap per empty block 7.35 ->
 * 5.94 KiB).
 */
export function compactCopy(made: BlockHeader, common: Common): BlockHeader | undefined {
  if (Object.keys(made).join(' ') !== HEADER_PROPERTIES) return undefined
  const m = made as unknown as Record<string, unknown>
  const h = Object.create(Object.getPrototypeOf(made) as object) as Record<string, unknown>
  h.cache = { hash: undefined }
  // (A Common at another fork would answer the header's questions differently: then its own stays.)
  h.common = made.common.hardfork() === common.hardfork() ? common : made.common
  h.keccakFunction = m.keccakFunction
  h.parentHash = m.parentHash
  h.uncleHash = m.uncleHash
  h.coinbase = m.coinbase
  h.stateRoot = m.stateRoot
  h.transactionsTrie = m.transactionsTrie
  h.receiptTrie = m.receiptTrie
  h.logsBloom = m.logsBloom
  h.difficulty = m.difficulty
  h.number = m.number
  h.gasLimit = m.gasLimit
  h.gasUsed = m.gasUsed
  h.timestamp = m.timestamp
  h.extraData = m.extraData
  h.mixHash = m.mixHash
  h.nonce = m.nonce
  h.baseFeePerGas = m.baseFeePerGas
  h.withdrawalsRoot = m.withdrawalsRoot
  h.blobGasUsed = m.blobGasUsed
  h.excessBlobGas = m.excessBlobGas
  h.parentBeaconBlockRoot = m.parentBeaconBlockRoot
  h.requestsHash = m.requestsHash
  h.blockAccessListHash = m.blockAccessListHash
  h.slotNumber = m.slotNumber
  return compacted(h as unknown as BlockHeader)
}

/** `header` (unfrozen), its byte fields moved into one buffer, then frozen. */
function compacted(header: BlockHeader): BlockHeader {
  const data = header as unknown as Record<string, unknown>
  const own: [string, Uint8Array][] = []
  let size = 32
  // (`for...in`, not `Object.entries`: no pair array made per property, 26 a header.)
  for (const name in data) {
    const value = data[name]
    const bytes = value instanceof Address ? value.bytes : value instanceof Uint8Array ? value : undefined
    if (bytes === undefined) continue
    const shared = value instanceof Uint8Array ? sharedEqual(bytes) : undefined
    if (shared !== undefined) {
      data[name] = shared
      continue
    }
    const zeros = sharedZeros(bytes)
    if (zeros !== undefined) data[name] = value instanceof Address ? new Address(zeros) : zeros
    else {
      own.push([name, bytes])
      size += bytes.length
    }
  }
  const buffer = new Uint8Array(size)
  let at = 0
  for (const [name, bytes] of own) {
    const view = buffer.subarray(at, at + bytes.length)
    view.set(bytes)
    data[name] = data[name] instanceof Address ? new Address(view) : view
    at += bytes.length
  }
  Object.freeze(header)
  // Frozen, the header keeps its hash in its cache (an object of its own): there, a view too. The
  // hash is `hash()`'s, its RLP written in one buffer (../../encoding/rlp.ts: the same bytes as
  // `@ethereumjs/rlp`'s, which made a prefix and a copy per field, ~2/3 of the hash's cost).
  const hash = buffer.subarray(at, at + 32)
  hash.set((header as unknown as { keccakFunction(bytes: Uint8Array): Uint8Array }).keccakFunction(rlpEncode(header.raw())))
  ;(header as unknown as { cache: { hash?: Uint8Array } }).cache.hash = hash
  return header
}
