/**
 * Why a transaction failed, in words, for build errors: the decoded revert reason or panic, or
 * the EVM error (out of gas, invalid opcode...).
 */
import { bytesToBigInt, bytesToHex, bytesToUtf8 } from '@ethereumjs/util'
import type { EVMResult } from '@ethereumjs/evm'

const ERROR_SELECTOR = '0x08c379a0'
const PANIC_SELECTOR = '0x4e487b71'

/** Solidity's panic codes (docs: "Panic via assert and Error via require"). */
const PANIC_CODES: Record<number, string> = {
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
}

export function failureReason(result: EVMResult): string {
  const error = result.execResult.exceptionError
  if (error === undefined) return 'succeeded'
  if (error.error !== 'revert') return error.error
  const data = result.execResult.returnValue
  if (data.length === 0) return 'reverted without data'
  const selector = bytesToHex(data.subarray(0, 4))
  if (selector === ERROR_SELECTOR && data.length >= 68) {
    const length = Number(bytesToBigInt(data.subarray(36, 68)))
    return `reverted: ${JSON.stringify(bytesToUtf8(data.subarray(68, 68 + length)))}`
  }
  if (selector === PANIC_SELECTOR && data.length === 36) {
    const code = Number(bytesToBigInt(data.subarray(4, 36)))
    return `panicked: 0x${code.toString(16)} (${PANIC_CODES[code] ?? 'unknown panic code'})`
  }
  return `reverted with custom error data ${bytesToHex(data)}`
}
