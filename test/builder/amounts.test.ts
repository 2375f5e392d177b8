import { describe, expect, it } from 'vitest'
import { formatWei, parseAmount } from '../../src/builder/amounts.ts'
import { SourceLocation } from '../../src/builder/errors.ts'

const loc = new SourceLocation('f.json', 'x')

describe('parseAmount', () => {
  it.each([
    [1000, 1000n],
    ['1000', 1000n],
    ['0x3e8', 1000n],
    ['7 wei', 7n],
    ['30 gwei', 30_000_000_000n],
    ['1.5 gwei', 1_500_000_000n],
    ['1 ether', 10n ** 18n],
    ['0.25 ETHER', 25n * 10n ** 16n],
    ['1000000 ether', 10n ** 24n],
    ['1.50 gwei', 1_500_000_000n],
    ['2.0 wei', 2n],
  ])('%j is %s', (input, expected) => {
    expect(parseAmount(input, loc)).toBe(expected)
  })

  it('refuses fractions of a wei', () => {
    expect(() => parseAmount('1.5 wei', loc)).toThrow(/whole number of wei/)
    expect(() => parseAmount('0.0000000001 gwei', loc)).toThrow(/whole number of wei/)
  })

  it.each(['', 'lots', '1 eth', '1e18', '0x', '1.5', '-1', 1.5, 2 ** 60, null, true])('refuses %j naming the entry', (input) => {
    expect(() => parseAmount(input, loc)).toThrow(/^f\.json: x: /)
  })

  it('takes negative values only where signed', () => {
    expect(parseAmount('-5', loc, true)).toBe(-5n)
    expect(parseAmount('-1 gwei', loc, true)).toBe(-1_000_000_000n)
  })
})

describe('formatWei', () => {
  it.each([
    [0n, '0 wei'],
    [21000n, '21000 wei'],
    [1_500_000_000n, '1.5 gwei'],
    [10n ** 18n, '1 ether'],
    [99_999_617_405_287_500_000n, '99.9996174052875 ether'],
  ])('%s is %s', (wei, text) => expect(formatWei(wei)).toBe(text))
})
