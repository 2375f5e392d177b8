/**
 * A connection's subscriptions (eth_subscribe): fed by its network's chain events, each event
 * becomes notifications for the subscriptions it concerns, with what the service charges for them:
 * - `newHeads`: 50 credits per block;
 * - `logs`: 300 credits per block with at least one matching log (its logs sent one notification
 *   each; the logs of a block that leaves the chain sent again with `removed: true`, charged the same);
 * - `newPendingTransactions`: 200 credits per aggregated event: the first hash starts a window of
 *   `PENDING_WINDOW_MS`, and hashes within it are free (the service aggregates them about every
 *   0.7-1 s; here each hash is sent at once, one notification each, as geth sends them).
 * The session carries them out (a fault, the charge, the log, the send: ./session.ts `notify`).
 */
import { randomBytes } from 'node:crypto'
import type { Chain } from '../../chain/chain.ts'
import type { ChainEvent } from '../../chain/events/chainEvents.ts'
import { blockLogs } from '../../chain/blocks/logs.ts'
import { criteriaBytes } from '../../chain/filters/changes.ts'
import type { FilterBlock } from '../../chain/blocks/logs.ts'
import type { BlockRecord } from '../../chain/blocks/types.ts'
import type { LogJson } from '../../chain/blocks/render.ts'
import { LimitExceededError } from '../../rpc/errors.ts'
import { newHeadFrame, notificationFrame, notificationPrefix } from '../../rpc/notifications.ts'
import type { SubscriptionHost, SubscriptionSpec, SubscriptionType } from '../../rpc/subscriptions.ts'
import type { FrameData } from './frames.ts'

export const EVENT_PRICES: Readonly<Record<SubscriptionType, number>> = Object.freeze({ newHeads: 50, logs: 300, newPendingTransactions: 200 })
/** How long one charged pending-transaction event covers (the service aggregates about every 0.7-1 s). */
export const PENDING_WINDOW_MS = 800

/** Notifications of one subscription for one event, charged together. */
export interface Notification {
  readonly subscription: { readonly id: string; readonly type: SubscriptionType }
  readonly credits: number
  /** The frames, in order (text frames: text, or its UTF-8 bytes whole or in parts). */
  readonly frames: readonly FrameData[]
}

interface Subscription {
  readonly id: string
  readonly spec: SubscriptionSpec
  /** What its criteria weigh, estimated as a filter's (../../chain/filters/changes.ts). */
  readonly bytes: number
  /** newPendingTransactions: when its current window opened (the gateway's clock). */
  windowStart: number
  /** newHeads: its frames' bytes up to the header (../../rpc/notifications.ts), made once. */
  readonly prefix: Buffer | undefined
}

/** geth's `rpc.NewID`: 16 random bytes as a quantity (leading zeros dropped). */
function newId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '')
  return `0x${hex === '' ? '0' : hex}`
}

/** geth's `filterLogs` bounds: a numeric fromBlock/toBlock keeps the logs of blocks within them. */
function withinRange(number: bigint, from: FilterBlock | undefined, to: FilterBlock | undefined): boolean {
  if (from?.kind === 'number' && number < from.number) return false
  if (to?.kind === 'number' && number > to.number) return false
  return true
}

export interface SubscriptionsOptions {
  readonly chain: Chain
  readonly maxSubscriptions: number
  /** Bytes of criteria the connection's subscriptions may hold together. */
  readonly maxSubscriptionBytes: number
  /** The gateway's clock, in ms (pending windows). */
  now(): number
  /** Hands a subscription's notifications for one event to the session. */
  notify(notification: Notification): void
  /** A failure of the subscriptions' own (a bug), logged by the gateway. */
  onError(err: unknown): void
}

export class SessionSubscriptions implements SubscriptionHost {
  readonly #options: SubscriptionsOptions
  readonly #subscriptions = new Map<string, Subscription>()
  #bytes = 0
  #unlisten: (() => void) | undefined

  constructor(options: SubscriptionsOptions) {
    this.#options = options
  }

  get size(): number {
    return this.#subscriptions.size
  }

  /** The subscriptions held, as `control.sockets()` lists them. */
  list(): { id: string; type: SubscriptionType }[] {
    return [...this.#subscriptions.values()].map((s) => ({ id: s.id, type: s.spec.type }))
  }

  subscribe(spec: SubscriptionSpec): string {
    const max = this.#options.maxSubscriptions
    if (this.#subscriptions.size >= max) throw new LimitExceededError(`too many subscriptions on this connection (limit ${max})`)
    const bytes = criteriaBytes(spec.type === 'logs' ? spec.criteria : undefined)
    const maxBytes = this.#options.maxSubscriptionBytes
    if (this.#bytes + bytes > maxBytes) throw new LimitExceededError(`subscriptions on this connection too large (limit ${maxBytes} bytes of criteria)`)
    let id = newId()
    while (this.#subscriptions.has(id)) id = newId()
    this.#subscriptions.set(id, { id, spec, bytes, windowStart: -Infinity, prefix: spec.type === 'newHeads' ? notificationPrefix(id) : undefined })
    this.#bytes += bytes
    this.#unlisten ??= this.#options.chain.events.listen((event) => this.#onEvent(event), { onError: (err) => this.#options.onError(err) })
    return id
  }

  unsubscribe(id: string): boolean {
    this.#bytes -= this.#subscriptions.get(id)?.bytes ?? 0
    const had = this.#subscriptions.delete(id)
    if (this.#subscriptions.size === 0) this.close()
    return had
  }

  /** Ends them all and stops listening to the chain. */
  close(): void {
    this.#subscriptions.clear()
    this.#bytes = 0
    this.#unlisten?.()
    this.#unlisten = undefined
  }

  #onEvent(event: ChainEvent): void {
    // A subscription made by a notification's receiver hears from the next event on.
    for (const sub of [...this.#subscriptions.values()]) {
      if (!this.#subscriptions.has(sub.id)) continue
      // One group per block (logs are charged per block) or per transaction.
      for (const frames of this.#groups(sub, event)) {
        if (frames.length === 0) continue
        const credits = this.#price(sub)
        this.#options.notify({ subscription: { id: sub.id, type: sub.spec.type }, credits, frames })
      }
    }
  }

  #price(sub: Subscription): number {
    if (sub.spec.type !== 'newPendingTransactions') return EVENT_PRICES[sub.spec.type]
    const now = this.#options.now()
    if (now - sub.windowStart < PENDING_WINDOW_MS && now >= sub.windowStart) return 0
    sub.windowStart = now
    return EVENT_PRICES.newPendingTransactions
  }

  /** An event's frames for a subscription, in groups charged alike. */
  #groups(sub: Subscription, event: ChainEvent): FrameData[][] {
    const spec = sub.spec
    switch (event.type) {
      case 'blockAdded':
        if (spec.type === 'newHeads') return [[newHeadFrame(this.#options.chain, sub.prefix!, event.record)]]
        if (spec.type === 'logs') return [this.#logFrames(sub.id, event.record, spec, false)]
        return []
      case 'blocksRemoved':
        // The removed blocks oldest first, as geth sends their logs again.
        return spec.type === 'logs' ? event.records.map((record) => this.#logFrames(sub.id, record, spec, true)) : []
      case 'transactionPooled':
        if (spec.type !== 'newPendingTransactions') return []
        return [[notificationFrame(sub.id, JSON.stringify(spec.fullTransactions ? event.transaction.json : event.transaction.hash))]]
    }
  }

  /** A block's matching logs for a subscription, one notification each. */
  #logFrames(id: string, record: BlockRecord, spec: SubscriptionSpec & { type: 'logs' }, removed: boolean): string[] {
    if (!withinRange(record.number, spec.criteria.fromBlock, spec.criteria.toBlock)) return []
    return blockLogs(record, spec.criteria).map((log) => {
      // Spread keeps `removed` where it was: geth's field order.
      const shown: Omit<LogJson, 'removed'> & { removed: boolean } = removed ? { ...log, removed: true } : log
      return notificationFrame(id, JSON.stringify(shown))
    })
  }
}
