import { ServerError } from '../errors.ts'
import { filterId } from '../filters.ts'
import { defineMethod } from '../method.ts'

/**
 * Ends a subscription of this connection: true, or geth's -32000 `subscription not found` for an
 * id it does not hold (another connection's, one already ended, or any id over HTTP, where there
 * are none).
 */
export const eth_unsubscribe = defineMethod({
  name: 'eth_unsubscribe',
  params: [filterId],
  run([id], ctx): boolean {
    if (!ctx.subscriptions?.unsubscribe(id)) throw new ServerError('subscription not found')
    return true
  },
})
