/**
 * The service's prices, as the default profile (config/profiles/infura.json, ./profiles/) writes
 * them: the per-method table (shared/reference/infura-behaviors.md §4) and the prices of what is
 * not a served method. docs/providers.md gives each one's source.
 */
import { compilePricing } from './profiles/pricing.ts'
import type { Pricing } from './profiles/pricing.ts'
import { DEFAULT_PROFILE, builtinProfile } from './profiles/profile.ts'

const INFURA = builtinProfile(DEFAULT_PROFILE).prices
/** The service's prices, as the default profile (config/profiles/infura.json) writes them. */
export const INFURA_PRICING: Pricing = compilePricing(INFURA)

/** The real service's per-method prices (docs/providers.md); any other existing method costs `DEFAULT_COST`. */
export const CREDIT_COSTS: Readonly<Record<string, number>> = Object.freeze({ ...INFURA.methods })

/** Price of an existing method not in the table (the service's fallback price). */
export const DEFAULT_COST = INFURA.default
/** A method that does not exist (metamask-docs PR #2472: 160, chosen over the 80 fallback). */
export const UNKNOWN_METHOD_COST = INFURA.unknownMethod
/** A call answered with a request error (-32700 parse error, -32600 invalid request): "other 4xx errors cost 5 credits". */
export const BAD_REQUEST_COST = INFURA.badRequest
/** The batch envelope itself ("including the batch call itself"; its price is not stated: the default 80 is a choice). */
export const BATCH_ENVELOPE_COST = INFURA.batchEnvelope
/** The free plan's daily balance. */
export const DEFAULT_DAILY_CREDITS = 3_000_000

/** Price of a call to an existing method, by name (prefix families `trace_`, `debug_` included). */
export function methodCost(method: string): number {
  return INFURA_PRICING.method(method)
}

