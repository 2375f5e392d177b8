/**
 * Credits: what each call costs (the real service's table, shared/reference/infura-behaviors.md
 * §4) and the per-key ledger (daily balance reset at 00:00 UTC, optional per-second throughput).
 *
 * `CreditLedger.charge` checks and deducts in one synchronous step, so a caller that charges
 * before its first `await` can never overdraw a balance or lose a charge, however many requests
 * are in flight.
 */
import { DailyCreditsExceededError, ThroughputExceededError } from './errors.ts'

/** The real service's per-method prices; any other existing method costs `DEFAULT_COST`. */
export const CREDIT_COSTS: Readonly<Record<string, number>> = Object.freeze({
  // 5 credits
  eth_chainId: 5,
  net_version: 5,
  eth_hashrate: 5,
  eth_mining: 5,
  eth_protocolVersion: 5,
  eth_subscribe: 5,
  eth_syncing: 5,
  net_listening: 5,
  // 10
  eth_unsubscribe: 10,
  // 80 (listed explicitly where the table names them; the default is 80 anyway)
  eth_blockNumber: 80,
  eth_call: 80,
  eth_getStorageAt: 80,
  eth_getBalance: 80,
  eth_sendRawTransaction: 80,
  eth_newFilter: 80,
  eth_newBlockFilter: 80,
  eth_uninstallFilter: 80,
  eth_createAccessList: 80,
  // a documented method without a listed price: the default
  eth_newPendingTransactionFilter: 80,
  // filters
  eth_getFilterChanges: 140,
  eth_getFilterLogs: 255,
  eth_getLogs: 255,
  // 150
  eth_getTransactionByBlockNumberAndIndex: 150,
  eth_getTransactionByBlockHashAndIndex: 150,
  eth_getProof: 150,
  eth_getBlockTransactionCountByHash: 150,
  eth_getBlockTransactionCountByNumber: 150,
  eth_getUncleByBlockHashAndIndex: 150,
  eth_getUncleByBlockNumberAndIndex: 150,
  eth_getUncleCountByBlockHash: 150,
  eth_getUncleCountByBlockNumber: 150,
  // 300
  eth_estimateGas: 300,
  eth_blobBaseFee: 300,
  // 1000
  eth_getBlockReceipts: 1000,
})

/** Price of an existing method not in the table (the service's fallback price). */
export const DEFAULT_COST = 80
/** A method that does not exist (metamask-docs PR #2472: 160, chosen over the 80 fallback). */
export const UNKNOWN_METHOD_COST = 160
/** A call answered with a request error (-32700 parse error, -32600 invalid request): "other 4xx errors cost 5 credits". */
export const BAD_REQUEST_COST = 5
/** The batch envelope itself ("including the batch call itself"; its price is not stated: the default 80 is a choice). */
export const BATCH_ENVELOPE_COST = 80
/** The free plan's daily balance. */
export const DEFAULT_DAILY_CREDITS = 3_000_000

const DAY_MS = 86_400_000
const SECOND_MS = 1_000

/** Price of a call to an existing method, by name (prefix families `trace_`, `debug_` included). */
export function methodCost(method: string): number {
  const listed = CREDIT_COSTS[method]
  if (listed !== undefined) return listed
  if (method.startsWith('trace_')) return 300
  if (method.startsWith('debug_')) return 1000
  return DEFAULT_COST
}

/** Injected time source, in milliseconds since the Unix epoch (UTC). */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** The ledger's view of a key: its limits. */
export interface CreditAccount {
  readonly key: string
  readonly dailyCredits: number
  /** Credits per second; undefined: no throughput limit. */
  readonly creditsPerSecond?: number | undefined
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
}

/**
 * Per-key credit ledger. Days are UTC days (`floor(now / 86_400_000)`), so the balance is restored
 * at 00:00 UTC; the throughput window is the current UTC second (a fixed window).
 */
export class CreditLedger {
  readonly #clock: Clock
  readonly #entries = new Map<string, LedgerEntry>()

  constructor(clock: Clock = systemClock) {
    this.#clock = clock
  }

  #entry(key: string, now: number): LedgerEntry {
    const day = Math.floor(now / DAY_MS)
    const second = Math.floor(now / SECOND_MS)
    let entry = this.#entries.get(key)
    if (!entry) {
      entry = { day, spent: 0, second, secondSpent: 0, limitReached: false }
      this.#entries.set(key, entry)
    }
    if (entry.day !== day) {
      entry.day = day
      entry.spent = 0
      entry.limitReached = false
    }
    if (entry.second !== second) {
      entry.second = second
      entry.secondSpent = 0
    }
    return entry
  }

  /** Credits spent today by the key. */
  spent(account: CreditAccount): number {
    return this.#entry(account.key, this.#clock.now()).spent
  }

  /** Credits left today for the key. */
  balance(account: CreditAccount): number {
    return account.dailyCredits - this.spent(account)
  }

  /**
   * Deducts `credits` from the key, or throws without deducting anything: 402 when today's
   * balance cannot pay them all, else 429 when this second's throughput cannot. Synchronous.
   */
  charge(account: CreditAccount, credits: number): void {
    const entry = this.#entry(account.key, this.#clock.now())
    if (entry.spent + credits > account.dailyCredits) throw new DailyCreditsExceededError()
    const perSecond = account.creditsPerSecond
    if (perSecond !== undefined && entry.secondSpent + credits > perSecond) {
      throw new ThroughputExceededError()
    }
    entry.spent += credits
    entry.secondSpent += credits
  }

  /**
   * Deducts a notification's `credits` (a WebSocket event), or throws the 402 without deducting
   * anything when today's balance cannot pay them. Events count toward this second's throughput
   * but are never refused by it: the service pushes them whatever the client asks (a choice).
   */
  chargeEvent(account: CreditAccount, credits: number): void {
    const entry = this.#entry(account.key, this.#clock.now())
    if (entry.spent + credits > account.dailyCredits) throw new DailyCreditsExceededError()
    entry.spent += credits
    entry.secondSpent += credits
  }

  /** Marks the key's sockets as severed at the daily limit today (see `LedgerEntry.limitReached`). */
  markLimitReached(account: CreditAccount): void {
    this.#entry(account.key, this.#clock.now()).limitReached = true
  }

  /** Whether the key's sockets met the daily limit today and its balance was not restored since. */
  limitReached(account: CreditAccount): boolean {
    return this.#entry(account.key, this.#clock.now()).limitReached
  }

  /**
   * Sets what the key has left today (a control for tests): today's spending becomes
   * `dailyCredits - remaining` (negative when `remaining` is over the daily balance), and sockets
   * may connect again. The next 00:00 UTC restores the daily balance as usual.
   */
  setBalance(account: CreditAccount, remaining: number): void {
    const entry = this.#entry(account.key, this.#clock.now())
    entry.spent = account.dailyCredits - remaining
    entry.limitReached = false
  }

  /** A copy of every key's spending, for `restore`. */
  snapshot(): LedgerSnapshot {
    return { entries: new Map([...this.#entries].map(([key, e]) => [key, { ...e }])) }
  }

  /** Puts back the spending of a `snapshot` (keys charged since then are forgotten). */
  restore(snapshot: LedgerSnapshot): void {
    this.#entries.clear()
    for (const [key, e] of snapshot.entries) this.#entries.set(key, { ...e })
  }
}

/** What `CreditLedger.snapshot` keeps: opaque outside this module. */
export interface LedgerSnapshot {
  readonly entries: ReadonlyMap<string, Readonly<LedgerEntry>>
}
