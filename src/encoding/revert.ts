/**
 * Revert data to geth's error message (`abi.UnpackRevert` + `newRevertError`): `Error(string)`
 * gives its reason, `Panic(uint256)` geth's text for the code, anything else (custom errors,
 * empty or malformed data) plain `execution reverted`.
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
  return new TextDecoder().decode(body.subarray(start + 32, start + 32 + Number(size)))
}

/** `execution reverted` or `execution reverted: <reason>`. */
export function revertMessage(data: Uint8Array): string {
  const reason = unpackRevert(data)
  return reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`
}
