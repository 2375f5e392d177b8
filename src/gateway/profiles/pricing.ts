/**
 * A profile's prices, compiled once: a call's price by its method's name (the table, then the
 * families by prefix, then the default), and the prices of what is not a served method.
 */
import type { ProfileSpec } from './profile.ts'

export interface Pricing {
  /** Price of a call to a served method. */
  method(name: string): number
  /** A method that does not exist (or the network leaves out). */
  readonly unknownMethod: number
  /** A message answered with a request error (-32700, -32600). */
  readonly badRequest: number
  /** A batch's envelope, beside its calls. */
  readonly batchEnvelope: number
}

export function compilePricing(prices: ProfileSpec['prices']): Pricing {
  const table = new Map(Object.entries(prices.methods))
  const families = Object.entries(prices.families)
  const fallback = prices.default
  return {
    method(name) {
      const listed = table.get(name)
      if (listed !== undefined) return listed
      for (const [prefix, price] of families) if (name.startsWith(prefix)) return price
      return fallback
    },
    unknownMethod: prices.unknownMethod,
    badRequest: prices.badRequest,
    batchEnvelope: prices.batchEnvelope,
  }
}
