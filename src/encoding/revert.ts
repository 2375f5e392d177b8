/**
 * Revert data to geth's error message (`abi.UnpackRevert` + `newRevertError`): `Error(string)`
 * gives its reason, `Panic(uint256)` geth's text for the code, anything else (custom errors,
 * empty or malformed data) plain `execution reverted`. A reason that is not valid UTF-8 reads as
 * geth's JSON writes it (`goString`).
 */
import { bytesToBigInt, bytesToHex } from '@ethereumjs/util'

const ERROR_SELECTOR = '0x08c379a0'
const PANIC_SELECTOR = '0x4e487b71'

/** geth's `panicReasons` (accounts/abi/abi.go). */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
])

/** The decoded reason, or undefined where geth's `UnpackRevert` fails. */
export function unpackRevert(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const selector = bytesToHex(data.subarray(0, 4))
  const body = data.subarray(4)
  if (selector === ERROR_SELECTOR) return unpackString(body)
  if (selector === PANIC_SELECTOR) {
    if (body.length < 32) return undefined
    const code = bytesToBigInt(body.subarray(0, 32))
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`
  }
  return undefined
}

function unpackString(body: Uint8Array): string | undefined {
  if (body.length < 32) return undefined
  const offset = bytesToBigInt(body.subarray(0, 32))
  if (offset + 32n > BigInt(body.length)) return undefined
  const start = Number(offset)
  const size = bytesToBigInt(body.subarray(start, start + 32))
  if (BigInt(start) + 32n + size > BigInt(body.length)) return undefined
  return goString(body.subarray(start + 32, start + 32 + Number(size)))
}

/**
 * Bytes as geth's JSON shows them: Go's encoding/json writes a string "coerced to valid UTF-8,
 * replacing invalid bytes with the Unicode replacement rune", one U+FFFD for each byte that does
 * not start a valid sequence (`utf8.DecodeRuneInString` answering size 1). A truncated sequence is
 * so one U+FFFD per byte, where TextDecoder (WHATWG) gives one per maximal subpart.
 */
export function goString(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  while (i < bytes.length) {
    const size = runeLength(bytes, i)
    if (size === 0) {
      out += '\ufffd'
      i++
    } else {
      out += new TextDecoder().decode(bytes.subarray(i, i + size))
      i += size
    }
  }
  return out
}

/** The length of the valid UTF-8 sequence at `i` (Go's `utf8.DecodeRune` rules), 0 if none. */
function runeLength(b: Uint8Array, i: number): number {
  const c = b[i]!
  if (c < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c >= 0xe0 && c <= 0xef) {
    const [lo, hi] = c === 0xe0 ? [0xa0, 0xbf] : c === 0xed ? [0x80, 0x9f] : [0x80, 0xbf]
    return cont(1, lo, hi) && cont(2) ? 3 : 0
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const [lo, hi] = c === 0xf0 ? [0x90, 0xbf] : c === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf]
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}

/** `execution reverted` or `execution reverted: <reason>`. */
export function revertMessage(data: Uint8Array): string {
  const reason = unpackRevert(data)
  return reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`
}
