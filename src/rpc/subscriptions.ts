/**
 * Subscriptions as the JSON-RPC layer sees them (eth_subscribe, eth_unsubscribe): what a
 * connection that can carry notifications offers the methods (`SubscriptionHost`: the gateway's
 * WebSocket session), the types the service documents, and geth's errors around them. Over HTTP
 * there is no host, and eth_subscribe answers geth's `notifications not supported`.
 */
import type { FilterCriteria } from '../chain/blocks/logs.ts'
import { RpcError } from './errors.ts'

/** The types the service documents (geth also has `syncing` and `transactionReceipts`: refused, as unknown names). */
export const SUBSCRIPTION_TYPES = ['newHeads', 'logs', 'newPendingTransactions'] as const
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number]

export type SubscriptionSpec =
  | { readonly type: 'newHeads' }
  /** `address` and `topics`; a numeric `fromBlock`/`toBlock` bounds the blocks whose logs are sent. */
  | { readonly type: 'logs'; readonly criteria: FilterCriteria }
  /** Hashes, or (geth's `fullTx`) the transactions as eth_getTransactionByHash shows them pending. */
  | { readonly type: 'newPendingTransactions'; readonly fullTransactions: boolean }

export interface SubscriptionHost {
  /** Starts a subscription and returns its id; throws an `RpcError` when the connection holds its most. */
  subscribe(spec: SubscriptionSpec): string
  /** Ends one; false when the connection has none with that id. */
  unsubscribe(id: string): boolean
}

/** geth's answer to eth_subscribe on a connection without notifications (HTTP): -32601. */
export class NotificationsUnsupportedError extends RpcError {
  override readonly name = 'NotificationsUnsupportedError'
  constructor() {
    super(-32601, 'notifications not supported')
  }
}

/** geth's answer to a subscription name it does not serve: -32601 `no "x" subscription in eth namespace`. */
export class SubscriptionTypeNotFoundError extends RpcError {
  override readonly name = 'SubscriptionTypeNotFoundError'
  constructor(name: string) {
    super(-32601, `no ${JSON.stringify(name)} subscription in eth namespace`)
  }
}
