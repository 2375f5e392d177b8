import { InvalidParamsError } from '../errors.ts'
import { checkSubscribableRange, filterCriteria } from '../filterCriteria.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError, parseParams } from '../params.ts'
import type { Param } from '../params.ts'
import { NotificationsUnsupportedError, SUBSCRIPTION_TYPES, SubscriptionTypeNotFoundError } from '../subscriptions.ts'
import type { SubscriptionSpec, SubscriptionType } from '../subscriptions.ts'

/** Any JSON value: eth_subscribe reads its arguments once it knows the subscription's name. */
const raw: Param<unknown> = { parse: (v) => v, fallback: { value: undefined } }

/** geth's `fullTx *bool`. */
const fullTx: Param<boolean> = {
  parse(v) {
    if (typeof v !== 'boolean') throw new ArgumentError(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type bool`)
    return v
  },
  fallback: { value: false },
}

/**
 * The name, then its arguments, in geth's order and words (`handleSubscribe`): the name first
 * (-32602 when it is not a string, -32601 when no such subscription), then every argument with
 * the name as argument 0, as geth counts them. Absent and null arguments are alike here.
 */
function spec(params: readonly unknown[]): SubscriptionSpec {
  const named = [...params]
  while (named.length > 0 && named[named.length - 1] === undefined) named.pop()
  const name = named[0]
  if (typeof name !== 'string') throw new InvalidParamsError('expected subscription name as first argument')
  if (!(SUBSCRIPTION_TYPES as readonly string[]).includes(name)) throw new SubscriptionTypeNotFoundError(name)
  switch (name as SubscriptionType) {
    case 'newHeads':
      parseParams(named, [raw])
      return { type: 'newHeads' }
    case 'logs': {
      const [, criteria] = parseParams(named, [raw, filterCriteria])
      checkSubscribableRange(criteria)
      return { type: 'logs', criteria }
    }
    case 'newPendingTransactions': {
      const [, full] = parseParams(named, [raw, fullTx])
      return { type: 'newPendingTransactions', fullTransactions: full }
    }
  }
}

/**
 * Starts a subscription on this connection: `newHeads` (each new block's header), `logs`
 * (`address`, `topics`: each matching log, again with `removed: true` when its block leaves the
 * chain), `newPendingTransactions` (each pooled transaction's hash, or the transaction with
 * `true`). Answers the subscription's id; notifications come as `eth_subscription`. Over HTTP:
 * geth's -32601 `notifications not supported`, before anything is read of the params.
 */
export const eth_subscribe = defineMethod({
  name: 'eth_subscribe',
  params: [raw, raw, raw],
  run(params, ctx): string {
    if (!ctx.subscriptions) throw new NotificationsUnsupportedError()
    return ctx.subscriptions.subscribe(spec(params))
  },
})
