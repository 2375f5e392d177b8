/**
 * Contracts' `console.log` (hardhat/console.sol, forge-std's console and console2): a call to
 * `CONSOLE_ADDRESS` whose input is `abi.encodeWithSignature(signature, args...)`. `consoleLine`
 * turns such an input into the line Anvil prints: the arguments joined by spaces, or, when the
 * first is a string, that string as a format (`%s %d %i %o %x %e`, `%%`) with the rest after it.
 *
 * The signatures are built, not listed: `log()`; one argument of every type the libraries log
 * (`logInt`, `logBytes7`, ... encode as `log(<type>)`); two to four of uint256, string, bool and
 * address in every order; and `log(string,int256)`. Each also under the old spellings `uint` and
 * `int`, which console.sol used before it wrote `uint256` (their selectors differ).
 */
import { keccak256 } from './keccak.ts'

/** `0x000000000000000000636F6e736F6c652e6c6f67`: "console.log" in ASCII. */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67'

type ArgType = 'uint256' | 'int256' | 'string' | 'bool' | 'address' | 'bytes' | `bytes${number}`

/** Selector (first 4 bytes, as an unsigned int) to argument types. Built on first use. */
let table: Map<number, readonly ArgType[]> | undefined

function signatures(): (readonly ArgType[])[] {
  const single: ArgType[] = ['uint256', 'int256', 'string', 'bool', 'address', 'bytes']
  for (let n = 1; n <= 32; n++) single.push(`bytes${n}`)
  const basic: ArgType[] = ['uint256', 'string', 'bool', 'address']
  const all: (readonly ArgType[])[] = [[], ...single.map((t) => [t])]
  let level: ArgType[][] = basic.map((t) => [t])
  for (let arity = 2; arity <= 4; arity++) {
    level = level.flatMap((prefix) => basic.map((t) => [...prefix, t]))
    all.push(...level)
  }
  all.push(['string', 'int256'])
  return all
}

function selectorOf(text: string): number {
  const hash = keccak256(new TextEncoder().encode(text))
  return ((hash[0]! << 24) | (hash[1]! << 16) | (hash[2]! << 8) | hash[3]!) >>> 0
}

function selectorTable(): Map<number, readonly ArgType[]> {
  if (table !== undefined) return table
  const made = new Map<number, readonly ArgType[]>()
  for (const types of signatures()) {
    const canonical = `log(${types.join(',')})`
    made.set(selectorOf(canonical), types)
    const old = `log(${types.map((t) => (t === 'uint256' ? 'uint' : t === 'int256' ? 'int' : t)).join(',')})`
    if (old !== canonical) made.set(selectorOf(old), types)
  }
  table = made
  return made
}

/** How many signatures (with their old spellings) are recognised. */
export function consoleSignatureCount(): number {
  return selectorTable().size
}

type Value = { type: ArgType; text: string; number?: bigint }

function word(data: Uint8Array, offset: number): bigint {
  if (offset + 32 > data.length) throw new RangeError('short')
  let n = 0n
  for (let i = offset; i < offset + 32; i++) n = (n << 8n) | BigInt(data[i]!)
  return n
}

function hex(bytes: Uint8Array): string {
  let s = '0x'
  for (const b of bytes) s += b.toString(16).padStart(2, '0')
  return s
}

/** EIP-55 checksummed. */
export function checksumAddress(bytes: Uint8Array): string {
  const lower = hex(bytes).slice(2)
  const hash = keccak256(new TextEncoder().encode(lower))
  let out = '0x'
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  }
  return out
}

function dynamic(data: Uint8Array, head: number): Uint8Array {
  const offset = Number(word(data, head))
  const length = Number(word(data, offset))
  if (offset + 32 + length > data.length) throw new RangeError('short')
  return data.subarray(offset + 32, offset + 32 + length)
}

function decodeArg(type: ArgType, args: Uint8Array, head: number): Value {
  switch (type) {
    case 'uint256': {
      const n = word(args, head)
      return { type, text: n.toString(), number: n }
    }
    case 'int256': {
      const raw = word(args, head)
      const n = raw >= 1n << 255n ? raw - (1n << 256n) : raw
      return { type, text: n.toString(), number: n }
    }
    case 'bool':
      return { type, text: word(args, head) === 0n ? 'false' : 'true' }
    case 'address':
      word(args, head)
      return { type, text: checksumAddress(args.subarray(head + 12, head + 32)) }
    case 'string':
      return { type, text: new TextDecoder().decode(dynamic(args, head)) }
    case 'bytes':
      return { type, text: hex(dynamic(args, head)) }
    default: {
      word(args, head)
      return { type, text: hex(args.subarray(head, head + Number(type.slice(5)))) }
    }
  }
}

/** `%e` as Foundry writes it: the digits with a point after the first, then `e` and the exponent. */
function exponent(n: bigint): string {
  const negative = n < 0n
  const digits = (negative ? -n : n).toString()
  const mantissa = digits.slice(1).replace(/0+$/, '')
  return `${negative ? '-' : ''}${digits[0]}${mantissa === '' ? '' : `.${mantissa}`}e${digits.length - 1}`
}

function formatted(value: Value, spec: string): string {
  switch (spec) {
    case 'd':
    case 'i':
      return value.number !== undefined ? value.number.toString() : value.text
    case 'x':
      return value.number !== undefined ? (value.number < 0n ? `-0x${(-value.number).toString(16)}` : `0x${value.number.toString(16)}`) : value.text
    case 'e':
      return value.number !== undefined ? exponent(value.number) : value.text
    default:
      return value.text
  }
}

/** The first string as a format for the others; unused values follow, space-separated. */
function render(values: Value[]): string {
  if (values.length === 0) return ''
  const [first, ...rest] = values
  if (first!.type !== 'string') return values.map((v) => v.text).join(' ')
  let next = 0
  const line = first!.text.replace(/%([%sdioxe])/g, (whole, spec: string) => {
    if (spec === '%') return '%'
    if (next >= rest.length) return whole
    return formatted(rest[next++]!, spec)
  })
  return [line, ...rest.slice(next).map((v) => v.text)].join(' ')
}

/**
 * The line a call to the console address logs, or undefined when its input is no console.log
 * call this knows (an unknown selector, arguments that do not decode).
 */
export function consoleLine(input: Uint8Array): string | undefined {
  if (input.length < 4) return undefined
  const selector = ((input[0]! << 24) | (input[1]! << 16) | (input[2]! << 8) | input[3]!) >>> 0
  const types = selectorTable().get(selector)
  if (types === undefined) return undefined
  const args = input.subarray(4)
  try {
    return render(types.map((type, i) => decodeArg(type, args, i * 32)))
  } catch {
    return undefined
  }
}
