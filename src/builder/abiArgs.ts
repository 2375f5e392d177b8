/**
 * Calldata from a function signature and JSON arguments. Arguments are converted per ABI type
 * first (names to addresses, amounts to integers, hex to bytes), then encoded by micro-eth-signer.
 */
import { concatBytes, hexToBytes } from '@ethereumjs/util'
import { createContract, parseAbiItem } from 'micro-eth-signer/abi.js'
import { DATA_RE } from '../encoding/hex.ts'
import type { AddressBook } from './addressBook.ts'
import { parseAmount } from './amounts.ts'
import type { SourceLocation } from './errors.ts'

/** An ABI parameter: `type` plus, for tuples, `components`. */
export interface AbiParam {
  type: string
  components?: AbiParam[]
}

/** A function or constructor with its parameter types. */
export interface AbiFunction {
  type: string
  name?: string
  inputs: AbiParam[]
}

/**
 * Parses `"transfer(address,uint256)"` (the `function` keyword and parameter names are optional).
 * Names are dropped: the encoder then takes arguments by position, as the source gives them.
 */
export function parseSignature(signature: unknown, loc: SourceLocation): AbiFunction {
  if (typeof signature !== 'string') throw loc.error('a function signature must be a string like "transfer(address,uint256)"')
  const text = signature.trim()
  let item: { type: string; name?: string; inputs?: AbiParam[] }
  try {
    item = parseAbiItem(/^(function|constructor)\b/.test(text) ? text : `function ${text}`) as typeof item
  } catch (e) {
    throw loc.error(`bad function signature "${signature}": ${(e as Error).message.replace(/^parseAbi: /, '')}`)
  }
  if (item.type !== 'function' && item.type !== 'constructor') throw loc.error(`"${signature}" is not a function signature`)
  return { type: item.type, ...(item.name === undefined ? {} : { name: item.name }), inputs: (item.inputs ?? []).map(stripNames) }
}

/** The canonical signature, `name(type,type)`: what a selector is the hash of. */
export function canonicalSignature(fn: AbiFunction): string {
  return `${fn.name ?? ''}(${fn.inputs.map(canonicalType).join(',')})`
}

function canonicalType(p: AbiParam): string {
  if (p.components === undefined) return p.type
  return `(${p.components.map(canonicalType).join(',')})${p.type.slice('tuple'.length)}`
}

function stripNames(p: AbiParam): AbiParam {
  return { type: p.type, ...(p.components === undefined ? {} : { components: p.components.map(stripNames) }) }
}

/** Selector + encoded arguments. */
export function encodeCall(fn: AbiFunction, args: unknown, book: AddressBook, loc: SourceLocation): Uint8Array {
  const values = convertArgs(fn, args, book, loc)
  const method = (createContract([{ ...fn, type: 'function', name: fn.name ?? 'f' }] as never) as Record<string, { encodeInput(v: unknown): Uint8Array }>)[fn.name ?? 'f']!
  return encodeWith(method, values, loc)
}

/** Creation bytecode followed by the encoded constructor arguments. */
export function encodeDeploy(bytecode: string, ctor: AbiFunction | undefined, args: unknown, book: AddressBook, loc: SourceLocation): Uint8Array {
  const fn = ctor ?? { type: 'constructor', inputs: [] }
  const values = convertArgs(fn, args, book, loc)
  if (fn.inputs.length === 0) return hexToBytes(bytecode as `0x${string}`)
  // The encoder only knows functions: encode as one and drop the 4-byte selector.
  const method = (createContract([{ type: 'function', name: 'ctor', inputs: fn.inputs }] as never) as Record<string, { encodeInput(v: unknown): Uint8Array }>).ctor!
  return concatBytes(hexToBytes(bytecode as `0x${string}`), encodeWith(method, values, loc).subarray(4))
}

function encodeWith(method: { encodeInput(v: unknown): Uint8Array }, values: unknown[], loc: SourceLocation): Uint8Array {
  try {
    // micro-eth-signer takes no argument for zero parameters and a bare value for one.
    return method.encodeInput(values.length === 0 ? undefined : values.length === 1 ? values[0] : values)
  } catch (e) {
    throw loc.error(`cannot encode arguments: ${(e as Error).message}`)
  }
}

function convertArgs(fn: AbiFunction, args: unknown, book: AddressBook, loc: SourceLocation): unknown[] {
  const list = args ?? []
  if (!Array.isArray(list)) throw loc.error('"args" must be an array')
  if (list.length !== fn.inputs.length) {
    throw loc.error(`${describe(fn)} takes ${fn.inputs.length} argument(s), ${list.length} given`)
  }
  return fn.inputs.map((p, i) => convertValue(p, list[i], book, loc.at('args', i)))
}

function describe(fn: AbiFunction): string {
  return fn.type === 'constructor' ? `the constructor (${fn.inputs.map(canonicalType).join(',')})` : canonicalSignature(fn)
}

/** One JSON argument to the value micro-eth-signer expects for `param`. */
function convertValue(param: AbiParam, value: unknown, book: AddressBook, loc: SourceLocation): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type)
  if (array !== null) {
    const [, inner = '', size] = array
    if (!Array.isArray(value)) throw loc.error(`expected an array for ${param.type}`)
    if (size !== '' && value.length !== Number(size)) throw loc.error(`expected ${size} elements for ${param.type}, got ${value.length}`)
    const element = { type: inner, ...(param.components === undefined ? {} : { components: param.components }) }
    return value.map((v, i) => convertValue(element, v, book, loc.at(i)))
  }
  if (param.type === 'tuple') {
    const components = param.components ?? []
    if (!Array.isArray(value) || value.length !== components.length) {
      throw loc.error(`expected an array of ${components.length} values for a tuple`)
    }
    return components.map((c, i) => convertValue(c, value[i], book, loc.at(i)))
  }
  if (param.type === 'address') return book.resolve(value, loc)
  if (param.type === 'bool') {
    if (typeof value === 'boolean') return value
    if (value === 'true' || value === 'false') return value === 'true'
    throw loc.error(`expected true or false, got ${JSON.stringify(value)}`)
  }
  if (param.type === 'string') {
    if (typeof value !== 'string') throw loc.error(`expected a string, got ${JSON.stringify(value)}`)
    return value
  }
  if (/^u?int\d*$/.test(param.type)) return parseAmount(value, loc, param.type.startsWith('int'))
  if (/^bytes\d*$/.test(param.type)) {
    if (typeof value !== 'string' || !DATA_RE.test(value)) throw loc.error(`expected 0x hex bytes for ${param.type}, got ${JSON.stringify(value)}`)
    return hexToBytes(value as `0x${string}`)
  }
  throw loc.error(`unsupported ABI type ${param.type}`)
}

/**
 * The functions of a compiled ABI, so a call to a function the contract lacks is caught at build
 * time rather than showing up as an unexplained revert.
 */
export function functionsOf(abi: unknown[]): AbiFunction[] {
  return (abi as AbiFunction[]).filter((item) => item.type === 'function').map((f) => ({ ...f, inputs: (f.inputs ?? []).map(stripNames) }))
}

export function constructorOf(abi: unknown[]): AbiFunction | undefined {
  const ctor = (abi as AbiFunction[]).find((item) => item.type === 'constructor')
  return ctor === undefined ? undefined : { type: 'constructor', inputs: (ctor.inputs ?? []).map(stripNames) }
}

/** A source's `abi` (JSON items or human-readable signatures) as JSON items. */
export function parseAbi(abi: unknown, loc: SourceLocation): unknown[] {
  if (!Array.isArray(abi)) throw loc.error('"abi" must be an array')
  return abi.map((item, i) => {
    if (typeof item !== 'string') return item
    try {
      return parseAbiItem(item)
    } catch (e) {
      throw loc.at(i).error(`bad ABI signature "${item}": ${(e as Error).message.replace(/^parseAbi: /, '')}`)
    }
  })
}
