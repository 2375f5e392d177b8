/**
 * Amounts in fixture sources: integers written the way people write them in tests.
 */
import type { SourceLocation } from './errors.ts'

const UNITS: Record<string, number> = { wei: 0, gwei: 9, ether: 18 }
const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/

/**
 * Parses an amount: a JSON integer, a decimal or `0x` hex string, or a decimal with a unit
 * (`"1.5 ether"`, `"30 gwei"`, `"7 wei"`). Negative values only when `signed` (for `int` ABI arguments).
 *
 * @example parseAmount('1.5 gwei', loc) === 1_500_000_000n
 */
export function parseAmount(value: unknown, loc: SourceLocation, signed = false): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw loc.error(`${value} is not an exact integer; write large amounts as strings ("1000000000000000000" or "1 ether")`)
    }
    return checkSign(BigInt(value), loc, signed)
  }
  if (typeof value !== 'string') throw loc.error(`expected an amount (number or string), got ${JSON.stringify(value)}`)
  const text = value.trim()
  const negative = text.startsWith('-')
  const body = negative ? text.slice(1).trim() : text
  let result: bigint
  if (/^0x[0-9a-fA-F]+$/.test(body)) {
    result = BigInt(body)
  } else {
    const [, number = '', unit] = /^(\S+?)(?:\s+(\w+))?$/.exec(body) ?? []
    const decimals = unit === undefined ? 0 : UNITS[unit.toLowerCase()]
    const match = DECIMAL_RE.exec(number)
    if (decimals === undefined || match === null) {
      throw loc.error(`"${value}" is not an amount: use an integer, 0x hex, or "<number> ether|gwei|wei"`)
    }
    const [, whole = '', rawFraction = ''] = match
    const fraction = rawFraction.replace(/0+$/, '')
    if (fraction.length > decimals) {
      throw loc.error(`"${value}" has more decimals than ${unit ?? 'an integer'} allows; it must be a whole number of wei`)
    }
    result = BigInt(whole + fraction.padEnd(decimals, '0'))
  }
  return checkSign(negative ? -result : result, loc, signed)
}

function checkSign(n: bigint, loc: SourceLocation, signed: boolean): bigint {
  if (n < 0n && !signed) throw loc.error(`amount must not be negative, got ${n}`)
  return n
}

/** Formats wei for messages: `1.5 ether`, `30 gwei`, `12 wei`. */
export function formatWei(wei: bigint): string {
  for (const [unit, decimals] of [['ether', 18], ['gwei', 9]] as const) {
    const scale = 10n ** BigInt(decimals)
    if (wei >= scale / 1000n) {
      const whole = wei / scale
      const fraction = (wei % scale).toString().padStart(decimals, '0').replace(/0+$/, '')
      return `${whole}${fraction === '' ? '' : `.${fraction}`} ${unit}`
    }
  }
  return `${wei} wei`
}
