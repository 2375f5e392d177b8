/**
 * RLP read as geth's `rlp` package reads it into Go structs: canonical sizes and integers, size
 * checks against the containing list, and geth's error texts with the Go type and field path
 * (`rlp: non-canonical integer (leading zero bytes) for uint64, decoding into
 * (types.DynamicFeeTx).Nonce`). ./rawTransaction.ts decodes transactions with it.
 */

/** geth's `rlp` errors: a message, the Go type being decoded, and the field path. */
export class RlpError extends Error {
  readonly path: string[] = []
  constructor(
    readonly msg: string,
    readonly goType?: string,
  ) {
    super(msg)
  }
  text(): string {
    if (this.goType === undefined) return `rlp: ${this.msg}`
    const ctx = this.path.length > 0 ? `, decoding into ${[...this.path].reverse().join('')}` : ''
    return `rlp: ${this.msg} for ${this.goType}${ctx}`
  }
}

const VALUE_TOO_LARGE = 'value size exceeds available input length'
const ELEM_TOO_LARGE = 'element is larger than containing list'

/** One RLP item header: where its content starts and ends. */
interface Header {
  list: boolean
  /** A single byte below 0x80, which is its own encoding. */
  byte: boolean
  start: number
  end: number
}

/** A reader over one RLP list's content (or the whole input, `limit` = its length). */
export class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly limit: number,
    readonly inList: boolean,
  ) {}

  atEnd(): boolean {
    return this.pos >= this.limit
  }

  /** geth's `Stream.Kind`: the next item's header, with its size checks. */
  header(): Header {
    const b = this.bytes[this.pos]!
    let list = false
    let start = this.pos + 1
    let size: number
    if (b < 0x80) return { list: false, byte: true, start: this.pos, end: this.pos + 1 }
    if (b < 0xb8) size = b - 0x80
    else if (b < 0xc0) ({ size, start } = this.longSize(b - 0xb7))
    else if (b < 0xf8) {
      list = true
      size = b - 0xc0
    } else {
      list = true
      ;({ size, start } = this.longSize(b - 0xf7))
    }
    if (start + size > this.limit) throw new RlpError(this.inList ? ELEM_TOO_LARGE : VALUE_TOO_LARGE)
    return { list, byte: false, start, end: start + size }
  }

  longSize(n: number): { size: number; start: number } {
    const from = this.pos + 1
    if (from + n > this.limit) throw new RlpError(this.inList ? ELEM_TOO_LARGE : VALUE_TOO_LARGE)
    if (this.bytes[from] === 0) throw new RlpError('non-canonical size information')
    let size = 0
    for (let i = 0; i < n; i++) size = size * 256 + this.bytes[from + i]!
    if (size < 56) throw new RlpError('non-canonical size information')
    return { size, start: from + n }
  }

  /** The next item's content as a string (not a list); geth's canonical-size rule applied. */
  string(goType: string): Uint8Array {
    const h = this.wrap(goType, () => this.header())
    if (h.list) throw new RlpError('expected input string or byte', goType)
    const content = this.bytes.subarray(h.start, h.end)
    if (!h.byte && content.length === 1 && content[0]! < 0x80) throw new RlpError('non-canonical size information', goType)
    this.pos = h.end
    return content
  }

  /** Enters the next item, which must be a list. */
  list(goType: string): Reader {
    const h = this.wrap(goType, () => this.header())
    if (!h.list) throw new RlpError('expected input list', goType)
    this.pos = h.end
    return new Reader(this.bytes, h.start, h.end, true)
  }

  wrap<T>(goType: string, read: () => T): T {
    try {
      return read()
    } catch (err) {
      if (err instanceof RlpError && err.goType === undefined && err.msg === 'non-canonical size information') {
        throw new RlpError(err.msg, goType)
      }
      throw err
    }
  }
}

/** A canonical integer of at most `maxBytes` bytes (geth's `decodeUint`/`decodeBigInt`). */
export function integer(bytes: Uint8Array, goType: string, maxBytes: number | undefined): bigint {
  if (maxBytes !== undefined && bytes.length > maxBytes) throw new RlpError('input string too long', goType)
  if (bytes.length > 0 && bytes[0] === 0) throw new RlpError('non-canonical integer (leading zero bytes)', goType)
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  return n
}

/** A byte string of exactly `length` bytes (an address, a hash). */
export function fixed(bytes: Uint8Array, length: number, goType: string): Uint8Array {
  if (bytes.length < length) throw new RlpError('input string too short', goType)
  if (bytes.length > length) throw new RlpError('input string too long', goType)
  return bytes
}
