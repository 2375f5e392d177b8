/**
 * Accounts: keys grouped under one plan, as on the service, where the daily credit balance and
 * the per-second throughput belong to the account and every key of it draws on them. A key may
 * also carry its own caps below them (`limits`: -33300 per second, -33400 per day, in
 * ./credits.ts). A key without an account is an account of its own (its `dailyCredits` and
 * `creditsPerSecond` are its plan), the shape configs had before accounts.
 *
 * Config shape: `"accounts": { "team-a": { "plan": "developer" } }` or with explicit numbers
 * (`dailyCredits`, `creditsPerSecond`, each overriding the plan's; without a plan, 3M a day and
 * no throughput limit unless given, as a key's own numbers), and on a key
 * `"account": "team-a"`, `"limits": { "dailyCredits": 100000, "creditsPerSecond": 50 }`.
 */
import { describe, expectPositiveInteger, expectRecord, fail, onlyFields } from './configFields.ts'

/** The service's plans (shared/reference/infura-behaviors.md §4). */
export const PLANS = Object.freeze({
  free: Object.freeze({ dailyCredits: 3_000_000, creditsPerSecond: 500 }),
  developer: Object.freeze({ dailyCredits: 15_000_000, creditsPerSecond: 4_000 }),
  team: Object.freeze({ dailyCredits: 75_000_000, creditsPerSecond: 40_000 }),
})
export type PlanName = keyof typeof PLANS

/** An account as configured: its plan's balance and throughput. */
export interface AccountSettings {
  readonly name: string
  readonly plan: PlanName | null
  readonly dailyCredits: number
  /** undefined: no throughput limit (only with explicit numbers and no plan). */
  readonly creditsPerSecond?: number
}

/** The shape of an account in a config file (or `createApp`'s `accounts`). */
export interface AccountConfigInput {
  plan?: PlanName
  dailyCredits?: number
  creditsPerSecond?: number
}

/** A key's own caps under its account's (user-defined key settings). */
export interface KeyLimits {
  readonly dailyCredits?: number
  readonly creditsPerSecond?: number
}

const ACCOUNT_NAME_RE = /^[A-Za-z0-9._~-]{1,64}$/

/** Validates `accounts` (an object by name); errors name `accounts.<name>.field`. */
export function parseAccounts(input: unknown, where = 'accounts'): Map<string, AccountSettings> {
  const accounts = new Map<string, AccountSettings>()
  if (input === undefined) return accounts
  const obj = expectRecord(input, where)
  for (const [name, value] of Object.entries(obj)) {
    const at = `${where}.${name}`
    if (!ACCOUNT_NAME_RE.test(name)) fail(at, 'account names are 1-64 letters, digits and . _ ~ -')
    const account = expectRecord(value, at)
    onlyFields(account, ['plan', 'dailyCredits', 'creditsPerSecond'], at)
    let plan: PlanName | null = null
    if (account.plan !== undefined) {
      if (typeof account.plan !== 'string' || !Object.hasOwn(PLANS, account.plan)) {
        fail(`${at}.plan`, `must be one of ${Object.keys(PLANS).join(', ')}, got ${describe(account.plan)}`)
      }
      plan = account.plan as PlanName
    }
    const base = plan === null ? PLANS.free : PLANS[plan]
    const dailyCredits = account.dailyCredits === undefined ? base.dailyCredits : expectPositiveInteger(account.dailyCredits, `${at}.dailyCredits`)
    // Without a plan an account is as a key was: throughput unlimited unless given.
    const perSecond =
      account.creditsPerSecond !== undefined
        ? expectPositiveInteger(account.creditsPerSecond, `${at}.creditsPerSecond`)
        : plan === null
          ? undefined
          : base.creditsPerSecond
    accounts.set(name, perSecond === undefined ? { name, plan, dailyCredits } : { name, plan, dailyCredits, creditsPerSecond: perSecond })
  }
  return accounts
}

/** Validates a key's `limits`. */
export function parseKeyLimits(v: unknown, where: string): KeyLimits | undefined {
  if (v === undefined) return undefined
  const obj = expectRecord(v, where)
  onlyFields(obj, ['dailyCredits', 'creditsPerSecond'], where)
  const limits: { dailyCredits?: number; creditsPerSecond?: number } = {}
  if (obj.dailyCredits !== undefined) limits.dailyCredits = expectPositiveInteger(obj.dailyCredits, `${where}.dailyCredits`)
  if (obj.creditsPerSecond !== undefined) limits.creditsPerSecond = expectPositiveInteger(obj.creditsPerSecond, `${where}.creditsPerSecond`)
  return limits.dailyCredits === undefined && limits.creditsPerSecond === undefined ? undefined : limits
}
