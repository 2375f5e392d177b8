/**
 * geth's `Transaction.UnmarshalBinary` for eth_sendRawTransaction: the envelope (a legacy RLP list,
 * or a type byte and its payload) and geth's RLP decoding into its transaction structs, with its
 * error texts (`typed transaction too short`, `transaction type not supported`,
 * `rlp: expected input list for types.LegacyTx`, `rlp: non-canonical integer (leading zero bytes)
 * for uint64, decoding into (types.DynamicFeeTx).Nonce`, ...). Only the shape is checked here; the
 * pool's rules come after (poolRules.ts). The RLP reader itself is ./gethRlp.ts.
 */
import { fixed, integer, Reader, RlpError } from './gethRlp.ts'

/** The input is not a transaction geth could decode; the message is geth's. */
export class TxDecodeError extends Error {
  override readonly name = 'TxDecodeError'
}

/** What a decoded field holds: integers as bigints, byte strings as bytes, lists as arrays. */
export type FieldValue = bigint | Uint8Array | null | FieldValue[]

/** The decoded fields of a transaction, by geth's field names (`Nonce`, `GasFeeCap`, ...). */
export interface DecodedTx {
  type: number
  fields: Record<string, FieldValue>
  /** A type-3 transaction in its network form (blobs, commitments and proofs attached). */
  hasSidecar: boolean
  /** The sidecar of a type-3 transaction's network form. */
  sidecar?: BlobSidecar
  /** The transaction as blocks hold it (a type-3 transaction without its sidecar). */
  canonical: Uint8Array
  /** The encoded transaction's length, geth's `tx.Size()`. */
  size: number
}

/** geth's `BlobTxSidecar`: version 0 has one proof per blob, version 1 (Osaka) 128 cell proofs. */
export interface BlobSidecar {
  version: number
  blobs: Uint8Array[]
  commitments: Uint8Array[]
  proofs: Uint8Array[]
}

type Kind =
  | 'uint64'
  | 'uint8'
  | 'big'
  | 'u256'
  | 'u256v'
  | 'addrOrNil'
  | 'addr'
  | 'bytes'
  | 'hash'
  | 'accessList'
  | 'hashes'
  | 'authList'

/** Go's type names, as they appear in geth's rlp errors. */
const GO_TYPE: Record<Kind, string> = {
  uint64: 'uint64',
  uint8: 'uint8',
  big: '*big.Int',
  u256: '*uint256.Int',
  u256v: 'uint256.Int',
  addrOrNil: 'common.Address',
  addr: 'common.Address',
  bytes: '[]uint8',
  hash: 'common.Hash',
  accessList: 'types.AccessList',
  hashes: '[]common.Hash',
  authList: '[]types.SetCodeAuthorization',
}

type Struct = { name: string; fields: [string, Kind][] }

const LEGACY: Struct = {
  name: 'types.LegacyTx',
  fields: [['Nonce', 'uint64'], ['GasPrice', 'big'], ['Gas', 'uint64'], ['To', 'addrOrNil'], ['Value', 'big'], ['Data', 'bytes'], ['V', 'big'], ['R', 'big'], ['S', 'big']],
}
const ACCESS_LIST: Struct = {
  name: 'types.AccessListTx',
  fields: [['ChainID', 'big'], ['Nonce', 'uint64'], ['GasPrice', 'big'], ['Gas', 'uint64'], ['To', 'addrOrNil'], ['Value', 'big'], ['Data', 'bytes'], ['AccessList', 'accessList'], ['V', 'big'], ['R', 'big'], ['S', 'big']],
}
const DYNAMIC_FEE: Struct = {
  name: 'types.DynamicFeeTx',
  fields: [['ChainID', 'big'], ['Nonce', 'uint64'], ['GasTipCap', 'big'], ['GasFeeCap', 'big'], ['Gas', 'uint64'], ['To', 'addrOrNil'], ['Value', 'big'], ['Data', 'bytes'], ['AccessList', 'accessList'], ['V', 'big'], ['R', 'big'], ['S', 'big']],
}
const BLOB: Struct = {
  name: 'types.BlobTx',
  fields: [['ChainID', 'u256'], ['Nonce', 'uint64'], ['GasTipCap', 'u256'], ['GasFeeCap', 'u256'], ['Gas', 'uint64'], ['To', 'addr'], ['Value', 'u256'], ['Data', 'bytes'], ['AccessList', 'accessList'], ['BlobFeeCap', 'u256'], ['BlobHashes', 'hashes'], ['V', 'u256'], ['R', 'u256'], ['S', 'u256']],
}
const SET_CODE: Struct = {
  name: 'types.SetCodeTx',
  fields: [['ChainID', 'u256'], ['Nonce', 'uint64'], ['GasTipCap', 'u256'], ['GasFeeCap', 'u256'], ['Gas', 'uint64'], ['To', 'addr'], ['Value', 'u256'], ['Data', 'bytes'], ['AccessList', 'accessList'], ['AuthList', 'authList'], ['V', 'u256'], ['R', 'u256'], ['S', 'u256']],
}
const ACCESS_TUPLE: Struct = { name: 'types.AccessTuple', fields: [['Address', 'addr'], ['StorageKeys', 'hashes']] }
const AUTHORIZATION: Struct = {
  name: 'types.SetCodeAuthorization',
  fields: [['ChainID', 'u256v'], ['Address', 'addr'], ['Nonce', 'uint64'], ['V', 'uint8'], ['R', 'u256v'], ['S', 'u256v']],
}

const TYPED: Record<number, Struct> = { 1: ACCESS_LIST, 2: DYNAMIC_FEE, 3: BLOB, 4: SET_CODE }

function decodeField(r: Reader, kind: Kind): FieldValue {
  const goType = GO_TYPE[kind]
  switch (kind) {
    case 'uint64':
      return integer(r.string(goType), goType, 8)
    case 'uint8':
      return integer(r.string(goType), goType, 1)
    case 'big':
      return integer(r.string(goType), goType, undefined)
    case 'u256':
    case 'u256v':
      return integer(r.string(goType), goType, 32)
    case 'addrOrNil': {
      const h = r.wrap(goType, () => r.header())
      if (!h.list && !h.byte && h.end === h.start) {
        r.pos = h.end
        return null
      }
      return fixed(r.string(goType), 20, goType)
    }
    case 'addr':
      return fixed(r.string(goType), 20, goType)
    case 'hash':
      return fixed(r.string(goType), 32, goType)
    case 'bytes':
      return r.string(goType)
    case 'hashes':
      return decodeList(r, goType, (item) => fixed(item.string('common.Hash'), 32, 'common.Hash'))
    case 'accessList':
      return decodeList(r, goType, (item) => decodeStruct(item, ACCESS_TUPLE))
    case 'authList':
      return decodeList(r, goType, (item) => decodeStruct(item, AUTHORIZATION))
  }
}

function decodeList(r: Reader, goType: string, element: (item: Reader) => FieldValue): FieldValue[] {
  const inner = r.list(goType)
  const out: FieldValue[] = []
  while (!inner.atEnd()) {
    try {
      out.push(element(inner))
    } catch (err) {
      if (err instanceof RlpError) err.path.push(`[${out.length}]`)
      throw err
    }
  }
  return out
}

function decodeStruct(r: Reader, struct: Struct): FieldValue[] {
  const inner = r.list(struct.name)
  const values: FieldValue[] = []
  for (const [name, kind] of struct.fields) {
    if (inner.atEnd()) throw new RlpError('too few elements', struct.name)
    try {
      values.push(decodeField(inner, kind))
    } catch (err) {
      if (err instanceof RlpError) err.path.push(`.${name}`)
      throw err
    }
  }
  if (!inner.atEnd()) throw new RlpError('input list has too many elements', struct.name)
  return values
}

/** geth's `rlp.DecodeBytes` into `struct`: one value, nothing after it. */
function decodeBytes(bytes: Uint8Array, struct: Struct): Record<string, FieldValue> {
  const r = new Reader(bytes, 0, bytes.length, false)
  let values: FieldValue[]
  try {
    values = decodeStruct(r, struct)
    if (!r.atEnd()) throw new RlpError('input contains more than one value')
  } catch (err) {
    if (err instanceof RlpError) {
      if (err.path.length > 0) err.path.push(`(${struct.name})`)
      throw new TxDecodeError(err.text())
    }
    throw err
  }
  return Object.fromEntries(struct.fields.map(([name], i) => [name, values[i]!]))
}

/** Decodes a raw transaction as geth's `UnmarshalBinary` does, or throws `TxDecodeError`. */
export function decodeRawTransaction(input: Uint8Array): DecodedTx {
  if (input.length > 0 && input[0]! > 0x7f) {
    return { type: 0, fields: decodeBytes(input, LEGACY), hasSidecar: false, canonical: input, size: input.length }
  }
  if (input.length <= 1) throw new TxDecodeError('typed transaction too short')
  const type = input[0]!
  const struct = TYPED[type]
  if (struct === undefined) throw new TxDecodeError('transaction type not supported')
  const payload = input.subarray(1)
  if (type === 3 && isNetworkBlobForm(payload)) {
    // The network form: [tx, [version,] blobs, commitments, proofs]. Its first item is the tx.
    let txBytes: Uint8Array
    let sidecar: BlobSidecar
    try {
      const list = new Reader(payload, 0, payload.length, false).list('types.blobTxWithBlobs')
      const h = list.header()
      txBytes = payload.subarray(list.pos, h.end)
      list.pos = h.end
      let version = 0
      if (!list.atEnd() && !list.header().list) version = Number(integer(list.string('uint8'), 'uint8', 1))
      const strings = (): Uint8Array[] => {
        const inner = list.list('[]kzg4844.Blob')
        const out: Uint8Array[] = []
        while (!inner.atEnd()) out.push(inner.string('kzg4844.Blob'))
        return out
      }
      sidecar = { version, blobs: strings(), commitments: strings(), proofs: strings() }
      if (!list.atEnd()) throw new RlpError('input list has too many elements', 'types.blobTxWithBlobs')
    } catch (err) {
      if (err instanceof RlpError) throw new TxDecodeError(err.text())
      throw err
    }
    const canonical = new Uint8Array(txBytes.length + 1)
    canonical[0] = 3
    canonical.set(txBytes, 1)
    return { type, fields: decodeBytes(txBytes, struct), hasSidecar: true, sidecar, canonical, size: input.length }
  }
  return { type, fields: decodeBytes(payload, struct), hasSidecar: false, canonical: input, size: input.length }
}

/** Whether a type-3 payload's first element is itself a list (the network form), as geth tells them apart. */
function isNetworkBlobForm(payload: Uint8Array): boolean {
  try {
    const outer = new Reader(payload, 0, payload.length, false)
    const list = outer.list('types.BlobTx')
    return !list.atEnd() && list.header().list
  } catch {
    return false
  }
}
