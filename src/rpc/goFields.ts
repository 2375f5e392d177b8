/**
 * Fields of JSON objects decoded as Go's encoding/json decodes a geth struct: keys matched
 * case-insensitively (an exact match first), unknown keys ignored, `null` as absent, and
 * hexutil's rules and words for each field type (`json: cannot unmarshal ... into Go struct field
 * <Struct>.<field> of type <type>`). The call object, state and block overrides and
 * eth_simulateV1's options share them.
 */
import { decodeQuantity } from './validators.ts'
import { ArgumentError } from './params.ts'
import { bytesOfHexDigits } from '../encoding/hex.ts'

export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'null'
  return typeof v === 'object' ? 'object' : typeof v
}

/** A JSON object's fields for one Go struct. */
export class GoFields {
  readonly #o: Record<string, unknown>
  readonly #struct: string
  readonly #as: string | undefined
  /** The object's keys, listed at the first field not found by its exact name. */
  #keys: string[] | undefined

  /**
   * `v` must be an object; otherwise Go's error for `goType`. `as`: the field name Go's errors give
   * for every field (an element of a list field is named by the list).
   */
  constructor(v: unknown, struct: string, goType = struct, as?: string) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new ArgumentError(`json: cannot unmarshal ${jsonKind(v)} into Go ${as === undefined ? 'value' : `struct field ${struct}.${as}`} of type ${goType}`)
    }
    this.#o = v as Record<string, unknown>
    this.#struct = struct
    this.#as = as
  }

  /**
   * The value of `name` (exact key first, then any case), undefined when absent or null. Only a key
   * of the name's length can fold to it: the names asked are ASCII, and the one character whose
   * lower case is longer (U+0130) lowers to a non-ASCII pair. Most of a call object's fields are
   * absent, and lowering every key for each (14 fields, a list of keys each time) was most of
   * parseCallArgs.
   */
  get(name: string): unknown {
    let v = this.#o[name]
    if (v === undefined) {
      let lower: string | undefined
      // Go takes the last of several keys that fold to the same name.
      for (const key of (this.#keys ??= Object.keys(this.#o))) {
        if (key.length === name.length && key.toLowerCase() === (lower ??= name.toLowerCase())) v = this.#o[key]
      }
    }
    return v === null ? undefined : v
  }

  error(field: string, goType: string, reason: string): ArgumentError {
    return new ArgumentError(`json: cannot unmarshal ${reason} into Go struct field ${this.#struct}.${this.#as ?? field} of type ${goType}`)
  }

  #hex(field: string, goType: string): string | undefined {
    const v = this.get(field)
    if (v === undefined) return undefined
    if (typeof v !== 'string') throw this.error(field, goType, jsonKind(v))
    if (!/^0[xX]/.test(v)) throw this.error(field, goType, 'hex string without 0x prefix')
    return v
  }

  address(field: string): string | undefined {
    const text = this.#hex(field, 'common.Address')
    if (text === undefined) return undefined
    if (text.length !== 42) throw new ArgumentError(`hex string has length ${text.length - 2}, want 40 for common.Address`)
    if (!/^0[xX][0-9a-fA-F]{40}$/.test(text)) throw new ArgumentError('invalid hex string')
    return text.toLowerCase()
  }

  hash(field: string): Uint8Array | undefined {
    const text = this.#hex(field, 'common.Hash')
    return text === undefined ? undefined : hashBytes(text)
  }

  quantity(field: string, bits: 64 | 256): bigint | undefined {
    const goType = bits === 64 ? 'hexutil.Uint64' : '*hexutil.Big'
    const text = this.#hex(field, goType)
    if (text === undefined) return undefined
    try {
      return decodeQuantity(text, bits)
    } catch (err) {
      throw this.error(field, goType, (err as Error).message)
    }
  }

  bytes(field: string): Uint8Array | undefined {
    const text = this.#hex(field, 'hexutil.Bytes')
    if (text === undefined) return undefined
    const digits = text.slice(2)
    if (digits.length % 2 === 1) throw this.error(field, 'hexutil.Bytes', 'hex string of odd length')
    if (!/^[0-9a-fA-F]*$/.test(digits)) throw this.error(field, 'hexutil.Bytes', 'invalid hex string')
    return bytesOfHexDigits(digits)
  }

  bool(field: string): boolean | undefined {
    const v = this.get(field)
    if (v === undefined) return undefined
    if (typeof v !== 'boolean') throw this.error(field, 'bool', jsonKind(v))
    return v
  }

  list(field: string, goType: string): unknown[] | undefined {
    const v = this.get(field)
    if (v === undefined) return undefined
    if (!Array.isArray(v)) throw this.error(field, goType, jsonKind(v))
    return v
  }

  object(field: string, goType: string): Record<string, unknown> | undefined {
    const v = this.get(field)
    if (v === undefined) return undefined
    if (typeof v !== 'object' || Array.isArray(v)) throw this.error(field, goType, jsonKind(v))
    return v as Record<string, unknown>
  }
}

/** A `common.Hash` from its text form (exactly 32 bytes, 0x-prefixed). */
export function hashBytes(text: string): Uint8Array {
  if (!/^0[xX]/.test(text)) throw new ArgumentError('hex string without 0x prefix')
  const digits = text.slice(2)
  if (digits.length !== 64) throw new ArgumentError(`hex string has length ${digits.length}, want 64 for common.Hash`)
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new ArgumentError('invalid hex string')
  return bytesOfHexDigits(digits)
}

/** A `common.Address` map key (text form), in lowercase. */
export function addressKey(text: string): string {
  if (!/^0[xX]/.test(text)) throw new ArgumentError('hex string without 0x prefix')
  if (text.length !== 42) throw new ArgumentError(`hex string has length ${text.length - 2}, want 40 for common.Address`)
  if (!/^0[xX][0-9a-fA-F]{40}$/.test(text)) throw new ArgumentError('invalid hex string')
  return text.toLowerCase()
}
