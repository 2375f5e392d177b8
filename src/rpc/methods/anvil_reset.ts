import { InvalidParamsError } from '../errors.ts'
import { devOf } from '../dev.ts'
import { anything } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { optional } from '../params.ts'

/**
 * Back to the chain as it was loaded (or forked): its blocks, state, pool, mining mode and settings,
 * no impersonation, no interval mining, numbered snapshots forgotten. With `forking`, on a forked
 * network: back to its fork block, reading from `jsonRpcUrl` from now on when given; another
 * block is refused (a network forks at one block, at start). On a network that is no fork,
 * forking from a URL is refused, as Anvil refuses it without a fork.
 */
export const anvil_reset = defineMethod({
  name: 'anvil_reset',
  params: [optional(anything, undefined)],
  async run([options], ctx) {
    const forking = (options as { forking?: { jsonRpcUrl?: unknown; blockNumber?: unknown } } | undefined)?.forking
    const upstream = ctx.chain.upstream
    if (upstream === undefined && forking?.jsonRpcUrl !== undefined && forking.jsonRpcUrl !== null) {
      throw new InvalidParamsError('Forking not enabled and RPC URL not provided to start forking (this network is not a fork: start it with --fork)')
    }
    if (upstream !== undefined && forking !== undefined && forking !== null) {
      const block = forking.blockNumber
      if (block !== undefined && block !== null && !(typeof block === 'number' || typeof block === 'string')) throw new InvalidParamsError('forking.blockNumber: expected a block number')
      if (block !== undefined && block !== null && BigInt(block as number | string) !== upstream.block) {
        throw new InvalidParamsError(`anvil_reset: this network forks at block ${upstream.block}; forking at block ${String(block)} needs a restart (--fork <network>=<url>@${String(block)})`)
      }
      if (typeof forking.jsonRpcUrl === 'string') {
        try {
          upstream.setUrl(forking.jsonRpcUrl)
        } catch (err) {
          throw new InvalidParamsError((err as Error).message)
        }
      }
    }
    await devOf(ctx).reset()
    return null
  },
})
