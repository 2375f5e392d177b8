/**
 * Credits: what each call costs (the real service's table, shared/reference/infura-behaviors.md
 * §4, kept in the default profile: ./profiles/) and the ledger: the daily balance (reset at 00:00 UTC) and optional per-second throughput
 * of each account (a key without one is its own: ./accounts.ts), and each key's own caps below
 * them. Crossing 75, 85 and 100% of a daily quota (the account's, or a key's own cap) is told to
 * `onAlert` once a day each.
 *
 * `CreditLedger.charge` checks and deducts in one synchronous step, so a caller that charges
 * before its first `await` can never overdraw a balance or lose a charge, however many requests
 * are in flight.
 */
import { DailyCreditsExceededError, KeyDailyLimitExceededError, KeyThroughputExceededError, ThroughputExceededError } from './errors.ts'
import type { GatewayError } from './errors.ts'

export { BAD_REQUEST_COST, BATCH_ENVELOPE_COST, CREDIT_COSTS, DEFAULT_COST, DEFAULT_DAILY_CREDITS, INFURA_PRICING, UNKNOWN_METHOD_COST, methodCost } from './prices.ts'

const DAY_MS = 86_400_000
const SECOND_MS = 1_000

/** Injected time source, in milliseconds since the Unix epoch (UTC). */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** The ledger's view of a key: its plan's limits (its account's, when it has one) and its own caps. */
export interface CreditAccount {
  readonly key: string
  readonly dailyCredits: number
  /** Credits per second; undefined: no throughput limit. */
  readonly creditsPerSecond?: number | undefined
  /** The account whose balance the key draws on; undefined: the key is its own account. */
  readonly account?: string | undefined
  /** The key's own caps below the plan's (429 -33400 per day, -33300 per second). */
  readonly limits?: { readonly dailyCredits?: number; readonly creditsPerSecond?: number } | undefined
}

/** The quota levels alerts are told at, as the service's emails (75, 85 and 100%). */
export const ALERT_LEVELS = [75, 85, 100] as const

/** A daily quota crossed a level: the account's balance (`scope` account) or a key's own cap (`key`). */
export interface QuotaAlert {
  readonly scope: 'account' | 'key'
  /** The account's name (a key of its own: the key), or the key. */
  readonly name: string
  readonly level: (typeof ALERT_LEVELS)[number]
  readonly spent: number
  readonly quota: number
  /** The gateway's time, ms. */
  readonly time: number
}

export interface LedgerEntry {
  /** UTC day number; `spent` and `limitReached` belong to it. */
  day: number
  spent: number
  second: number
  secondSpent: number
  /**
   * The key's WebSocket traffic met the daily limit today (a message or notification it could not
   * pay): its sockets were severed, and new upgrades are refused until the balance is restored.
   */
  limitReached: boolean
  /** How many of `ALERT_LEVELS` were told today. */
  alerted: number
  /** A rolling window's spending per second (`LedgerRules.windowSeconds` > 1), by `second % windowSeconds`. */
  slots?: number[]
  slotSeconds?: number[]
}

/**
 * What a ledger meters by, besides each key's plan: the period of its quota and the window its
 * throughput is averaged over, and the refusals (a provider profile's; the service's by default).
 */
export interface LedgerRules {
  /** Seconds the throughput is averaged over: 1 is the current UTC second (a fixed window), more a rolling window of whole seconds. */
  readonly windowSeconds: number
  /** The quota's period: UTC days (reset at 00:00 UTC) or UTC calendar months. */
  readonly period: 'day' | 'month'
  readonly refuseQuota: () => GatewayError
  readonly refuseThroughput: () => GatewayError
}

/** The service's: a fixed one-second window, daily balances, its 402 and 429 -33200. */
export const SERVICE_LEDGER_RULES: LedgerRules = {
  windowSeconds: 1,
  period: 'day',
  refuseQuota: () => new DailyCreditsExceededError(),
  refuseThroughput: () => new ThroughputExceededError(),
}

/** An entry's copy, its rolling window's arrays copied too. */
function copyEntry(e: Readonly<LedgerEntry>): LedgerEntry {
  return e.slots === undefined ? { ...e } : { ...e, slots: [...e.slots], slotSeconds: [...e.slotSeconds!] }
}

function monthOf(now: number): number {
  const date = new Date(now)
  return date.getUTCFullYear() * 12 + date.getUTCMonth()
}

/**
 * The credit ledger. Days are UTC days (`floor(now / 86_400_000)`), so balances are restored at
 * 00:00 UTC; the throughput window is the current UTC second (a fixed window). An account's
 * spending is kept under its name, a key's own under the key (for a key that is its own account,
 * the same entry).
 */
export class CreditLedger {
  readonly #clock: Clock
  readonly #rules: LedgerRules
  readonly #entries = new Map<string, LedgerEntry>()
  readonly #accounts = new Map<string, LedgerEntry>()
  /** Told when a daily quota crosses one of `ALERT_LEVELS` (set by the gateway). */
  onAlert: ((alert: QuotaAlert) => void) | undefined

  constructor(clock: Clock = systemClock, rules: LedgerRules = SERVICE_LEDGER_RULES) {
    this.#clock = clock
    this.#rules = rules
  }

  #entry(key: string, now: number, table = this.#entries): LedgerEntry {
    const day = this.#rules.period === 'day' ? Math.floor(now / DAY_MS) : monthOf(now)
    const second = Math.floor(now / SECOND_MS)
    let entry = table.get(key)
    if (!entry) {
      entry = { day, spent: 0, second, secondSpent: 0, limitReached: false, alerted: 0 }
      if (this.#rules.windowSeconds > 1) this.#windowSpent(entry, second)
      table.set(key, entry)
    }
    if (entry.day !== day) {
      entry.day = day
      entry.spent = 0
      entry.limitReached = false
      entry.alerted = 0
    }
    if (entry.second !== second) {
      entry.second = second
      entry.secondSpent = this.#rules.windowSeconds === 1 ? 0 : this.#windowSpent(entry, second)
    }
    return entry
  }

  /** A rolling window's spending: the seconds of the last `windowSeconds`, this one included. */
  #windowSpent(entry: LedgerEntry, second: number): number {
    const width = this.#rules.windowSeconds
    entry.slots ??= new Array<number>(width).fill(0)
    entry.slotSeconds ??= new Array<number>(width).fill(-Infinity)
    let sum = 0
    for (let i = 0; i < width; i++) if (entry.slotSeconds[i]! > second - width) sum += entry.slots[i]!
    return sum
  }

  /** Adds `credits` to an entry's throughput (its rolling window's current second, when it has one). */
  #spend(entry: LedgerEntry, credits: number): void {
    entry.spent += credits
    entry.secondSpent += credits
    if (this.#rules.windowSeconds === 1) return
    const slots = entry.slots!
    const at = entry.second % this.#rules.windowSeconds
    if (entry.slotSeconds![at] !== entry.second) {
      entry.slotSeconds![at] = entry.second
      slots[at] = 0
    }
    slots[at]! += credits
  }

  /** The entry holding the key's plan spending: its account's, or its own. */
  #pool(account: CreditAccount, now: number): LedgerEntry {
    return account.account === undefined ? this.#entry(account.key, now) : this.#entry(account.account, now, this.#accounts)
  }

  /** Tells the alerts a daily quota's spending reached (`spent` of `quota`), each level once a day. */
  #alert(entry: LedgerEntry, scope: QuotaAlert['scope'], name: string, quota: number, now: number): void {
    while (entry.alerted < ALERT_LEVELS.length && entry.spent * 100 >= ALERT_LEVELS[entry.alerted]! * quota) {
      const level = ALERT_LEVELS[entry.alerted++]!
      this.onAlert?.({ scope, name, level, spent: entry.spent, quota, time: now })
    }
  }

  /** A refusal at a daily quota: the 100% alert, if not told yet (a balance rarely lands on it exactly). */
  #alertFull(entry: LedgerEntry, scope: QuotaAlert['scope'], name: string, quota: number, now: number): void {
    while (entry.alerted < ALERT_LEVELS.length) {
      const level = ALERT_LEVELS[entry.alerted++]!
      if (level === 100) this.onAlert?.({ scope, name, level, spent: entry.spent, quota, time: now })
    }
  }

  /**
   * Checks `credits` against the key's plan and own caps and deducts them, or throws without
   * deducting anything: 402 when the plan's daily balance cannot pay, 429 -33400 when the key's
   * daily cap cannot, 429 -33300 its per-second cap, 429 -33200 the plan's throughput.
   * `event`: a notification, refused only by the plan's daily balance.
   */
  #charge(account: CreditAccount, credits: number, event: boolean): void {
    const now = this.#clock.now()
    const pool = this.#pool(account, now)
    const own = account.account === undefined ? pool : this.#entry(account.key, now)
    const poolName = account.account ?? account.key
    if (pool.spent + credits > account.dailyCredits) {
      this.#alertFull(pool, 'account', poolName, account.dailyCredits, now)
      throw this.#rules.refuseQuota()
    }
    const limits = account.limits
    if (!event) {
      if (limits?.dailyCredits !== undefined && own.spent + credits > limits.dailyCredits) {
        this.#alertFull(own, 'key', account.key, limits.dailyCredits, now)
        throw new KeyDailyLimitExceededError()
      }
      if (limits?.creditsPerSecond !== undefined && own.secondSpent + credits > limits.creditsPerSecond) throw new KeyThroughputExceededError()
      const perSecond = account.creditsPerSecond
      if (perSecond !== undefined && pool.secondSpent + credits > perSecond * this.#rules.windowSeconds) throw this.#rules.refuseThroughput()
    }
    this.#spend(pool, credits)
    if (own !== pool) this.#spend(own, credits)
    if (this.onAlert === undefined) return
    this.#alert(pool, 'account', poolName, account.dailyCredits, now)
    if (limits?.dailyCredits !== undefined) this.#alert(own, 'key', account.key, limits.dailyCredits, now)
  }

  /** Credits spent today on the key's plan (its account's, when it has one). */
  spent(account: CreditAccount): number {
    return this.#pool(account, this.#clock.now()).spent
  }

  /** Credits the key itself spent today. */
  keySpent(account: CreditAccount): number {
    return this.#entry(account.key, this.#clock.now()).spent
  }

  /** Credits left today for the key: its plan's balance, or less under its own daily cap. */
  balance(account: CreditAccount): number {
    const left = account.dailyCredits - this.spent(account)
    const cap = account.limits?.dailyCredits
    return cap === undefined ? left : Math.min(left, cap - this.keySpent(account))
  }

  /**
   * Deducts `credits` from the key, or throws without deducting anything: 402 when today's
   * balance cannot pay them all, else 429 when the key's own caps (-33400 per day, -33300 per
   * second) or this second's throughput (-33200) cannot. Synchronous.
   */
  charge(account: CreditAccount, credits: number): void {
    this.#charge(account, credits, false)
  }

  /**
   * Deducts a notification's `credits` (a WebSocket event), or throws the 402 without deducting
   * anything when today's balance cannot pay them. Events count toward this second's throughput
   * and the key's own caps but are never refused by them: the service pushes them whatever the
   * client asks (a choice).
   */
  chargeEvent(account: CreditAccount, credits: number): void {
    this.#charge(account, credits, true)
  }

  /** Marks the key's sockets as severed at the daily limit today (see `LedgerEntry.limitReached`). */
  markLimitReached(account: CreditAccount): void {
    this.#pool(account, this.#clock.now()).limitReached = true
  }

  /** Whether the key's sockets met the daily limit today and its balance was not restored since. */
  limitReached(account: CreditAccount): boolean {
    return this.#pool(account, this.#clock.now()).limitReached
  }

  /**
   * Sets what the key has left today (a control for tests): today's spending becomes
   * `dailyCredits - remaining` (negative when `remaining` is over the daily balance), and sockets
   * may connect again. The next 00:00 UTC restores the daily balance as usual.
   */
  setBalance(account: CreditAccount, remaining: number): void {
    const now = this.#clock.now()
    const entry = this.#pool(account, now)
    entry.spent = account.dailyCredits - remaining
    entry.limitReached = false
    entry.alerted = ALERT_LEVELS.filter((level) => entry.spent * 100 >= level * account.dailyCredits).length
    // A key's own cap is set with it, when the key has one of its own.
    const cap = account.limits?.dailyCredits
    if (cap !== undefined && account.account !== undefined) this.#entry(account.key, now).spent = Math.max(0, cap - remaining)
  }

  /** A copy of every key's spending, for `restore`. */
  snapshot(): LedgerSnapshot {
    const copy = (table: Map<string, LedgerEntry>) => new Map([...table].map(([key, e]) => [key, copyEntry(e)]))
    return { entries: copy(this.#entries), accounts: copy(this.#accounts) }
  }

  /** Puts back the spending of a `snapshot` (keys charged since then are forgotten). */
  restore(snapshot: LedgerSnapshot): void {
    this.#entries.clear()
    for (const [key, e] of snapshot.entries) this.#entries.set(key, copyEntry(e))
    this.#accounts.clear()
    for (const [name, e] of snapshot.accounts) this.#accounts.set(name, copyEntry(e))
  }
}

/** What `CreditLedger.snapshot` keeps: opaque outside this module. */
export interface LedgerSnapshot {
  readonly entries: ReadonlyMap<string, Readonly<LedgerEntry>>
  readonly accounts: ReadonlyMap<string, Readonly<LedgerEntry>>
}
