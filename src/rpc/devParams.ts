/**
 * Parameters of the test methods (`anvil_*`, `evm_*`, `hardhat_*`), decoded as Anvil decodes them:
 * numbers as JSON numbers, 0x hex (leading zeros allowed) or decimal strings; storage slots as
 * numbers up to 32 bytes; storage values as exactly 32 bytes. Errors are -32602 with the position
 * (`parseParams` adds `invalid argument N: `).
 */
import { ArgumentError } from './params.ts'
import type { Param } from './params.ts'

/** A non-negative integer below 2^bits: a JSON number, a 0x hex string or a decimal string. */
export function anvilNumber(bits = 256): Param<bigint> {
  return {
    parse(v) {
      let n: bigint
      if (typeof v === 'number') {
        if (!Number.isSafeInteger(v) || v < 0) throw new ArgumentError(`not a non-negative integer: ${v}`)
        n = BigInt(v)
      } else if (typeof v === 'string' && /^0[xX][0-9a-fA-F]{1,64}$/.test(v)) n = BigInt(v)
      else if (typeof v === 'string' && /^[0-9]{1,78}$/.test(v)) n = BigInt(v)
      else throw new ArgumentError(`not a number (a JSON number, 0x hex or decimal string): ${JSON.stringify(v)?.slice(0, 80)}`)
      if (n >> BigInt(bits) !== 0n) throw new ArgumentError(`number larger than ${bits} bits`)
      return n
    },
  }
}

/** 0x bytes of any length (`0x` is none), returned in lowercase. */
export const anvilBytes: Param<string> = {
  parse(v) {
    if (typeof v !== 'string' || !/^0[xX](?:[0-9a-fA-F]{2})*$/.test(v)) throw new ArgumentError(`not 0x bytes of even length: ${JSON.stringify(v)?.slice(0, 80)}`)
    return v.toLowerCase()
  },
}

/** A storage slot: a number below 2^256, returned as a 32-byte 0x word. */
export const storageSlot: Param<string> = {
  parse: (v) => `0x${anvilNumber(256).parse(v).toString(16).padStart(64, '0')}`,
}

/** A storage value: exactly 32 bytes of 0x hex (Anvil: `invalid string length` otherwise). */
export const storageWord: Param<string> = {
  parse(v) {
    if (typeof v !== 'string' || !/^0[xX][0-9a-fA-F]{64}$/.test(v)) throw new ArgumentError(`a storage value must be 32 bytes of 0x hex, got ${JSON.stringify(v)?.slice(0, 80)}`)
    return v.toLowerCase()
  },
}

/** A JSON boolean. */
export const flag: Param<boolean> = {
  parse(v) {
    if (typeof v !== 'boolean') throw new ArgumentError(`not a boolean: ${JSON.stringify(v)?.slice(0, 80)}`)
    return v
  },
}

/** Any JSON value, handed to the method as it is. */
export const anything: Param<unknown> = { parse: (v) => v }

export const hexQuantity = (n: bigint): string => `0x${n.toString(16)}`
