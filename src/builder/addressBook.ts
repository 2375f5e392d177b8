/**
 * Names for addresses. A fixture source names every account and contract instance, and any of
 * those names may stand where an address is expected (`to`, address arguments, access lists).
 */
import { createAddressFromPrivateKey, hexToBytes, utf8ToBytes } from '@ethereumjs/util'
import { ADDRESS_RE } from '../encoding/hex.ts'
import { keccak256 } from '../encoding/keccak.ts'
import type { SourceLocation } from './errors.ts'

const KEY_RE = /^0x[0-9a-fA-F]{64}$/
/** secp256k1 group order: a private key must be in [1, n). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * The test key of an account that gives none: keccak256("gateway-double:" + name). Deterministic,
 * so the same name has the same address in every fixture and every run.
 */
export function derivedKey(name: string): Uint8Array {
  return keccak256(utf8ToBytes(`gateway-double:${name}`))
}

/** Lowercase address of a private key. */
export function addressOfKey(key: Uint8Array): string {
  return createAddressFromPrivateKey(key).toString()
}

/** Parses a private key given in a source. */
export function parseKey(value: unknown, loc: SourceLocation): Uint8Array {
  if (typeof value !== 'string' || !KEY_RE.test(value)) throw loc.error('a private key must be 32 bytes of 0x hex')
  const n = BigInt(value)
  if (n === 0n || n >= SECP256K1_N) throw loc.error('not a valid secp256k1 private key')
  return hexToBytes(value as `0x${string}`)
}

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS_RE.test(value)
}

/** A literal address given in a source (not a name), lowercased. */
export function parseAddress(value: unknown, loc: SourceLocation): string {
  if (!isAddress(value)) throw loc.error(`expected a 0x address of 20 bytes, got ${JSON.stringify(value)}`)
  return value.toLowerCase()
}

export interface NamedAddress {
  name: string
  address: string
  /** Private key, for accounts that can sign. */
  key?: Uint8Array
  /** Name of the `contracts` entry whose code is at the address, if known. */
  contract?: string
}

/** All names of a scenario, in the order they were introduced. */
export class AddressBook {
  readonly #byName = new Map<string, NamedAddress>()

  add(entry: NamedAddress, loc: SourceLocation): void {
    if (this.#byName.has(entry.name)) throw loc.error(`the name "${entry.name}" is already taken`)
    if (isAddress(entry.name)) throw loc.error(`"${entry.name}" looks like an address and cannot be a name`)
    this.#byName.set(entry.name, { ...entry, address: entry.address.toLowerCase() })
  }

  get(name: string): NamedAddress | undefined {
    return this.#byName.get(name)
  }

  /** The address a reference stands for: a literal address, or a known name. */
  resolve(ref: unknown, loc: SourceLocation): string {
    if (isAddress(ref)) return ref.toLowerCase()
    if (typeof ref !== 'string') throw loc.error(`expected an address or a name, got ${JSON.stringify(ref)}`)
    const entry = this.#byName.get(ref)
    if (entry === undefined) throw loc.error(`unknown account or contract "${ref}"${this.#suggest(ref)}`)
    return entry.address
  }

  /** The entry of an account that can sign. */
  signer(name: unknown, loc: SourceLocation): NamedAddress & { key: Uint8Array } {
    if (typeof name !== 'string') throw loc.error('expected the name of an account')
    const entry = this.#byName.get(name)
    if (entry === undefined) throw loc.error(`unknown account "${name}"${this.#suggest(name)}`)
    if (entry.key === undefined) throw loc.error(`"${name}" has no private key and cannot send transactions`)
    return entry as NamedAddress & { key: Uint8Array }
  }

  /** The entry whose address this is, for naming things in messages and in accounts.json. */
  nameOf(address: string): NamedAddress | undefined {
    const lower = address.toLowerCase()
    for (const entry of this.#byName.values()) if (entry.address === lower) return entry
    return undefined
  }

  entries(): NamedAddress[] {
    return [...this.#byName.values()]
  }

  #suggest(name: string): string {
    const known = [...this.#byName.keys()]
    return known.length === 0 ? '' : ` (known names: ${known.join(', ')})`
  }
}
