import { InvalidParamsError } from '../errors.ts'
import { devOf } from '../dev.ts'
import { anything } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'

/**
 * Back to the chain as it was loaded (or forked): its blocks, state, pool, mining mode and settings,
 * no impersonation, no interval mining, numbered snapshots forgotten. Forking from a URL is
 * refused (the double is offline), as Anvil refuses it without a fork.
 */
export const anvil_reset = defineMethod({
  name: 'anvil_reset',
  params: [optional(anything, undefined)],
  async run([options], ctx) {
    const forking = (options as { forking?: { jsonRpcUrl?: unknown } } | undefined)?.forking
    if (forking?.jsonRpcUrl !== undefined && forking.jsonRpcUrl !== null) {
      throw new InvalidParamsError('Forking not enabled and RPC URL not provided to start forking (the double does not fork from a URL)')
    }
    await devOf(ctx).reset()
    return null
  },
})
