import { FixtureError } from '../../chain/loading/fixtureFiles.ts'
import { redactUrl, UpstreamError } from '../../chain/loading/fork/upstream.ts'
import { InvalidParamsError, ServerError } from '../errors.ts'
import { devOf } from '../dev.ts'
import { anvilNumber, anything } from '../devParams.ts'
import { defineMethod } from '../method.ts'
import { ArgumentError, optional } from '../params.ts'

/** Anvil's refusal of `forking` without a URL on a network that is no fork. */
const NO_FORK_NO_URL = 'Forking not enabled and RPC URL not provided to start forking'

/**
 * Without `forking`: back to the chain as it was loaded (or forked): its blocks, state, pool,
 * mining mode and settings, no impersonation, no interval mining, numbered snapshots forgotten.
 *
 * With `forking` (as Anvil): the network forks again, in place, at `blockNumber` (default: the
 * upstream's head now) of `jsonRpcUrl` (default: its upstream), with what it was forked with
 * (headers, cache folder, rules); a network that is no fork starts forking from `jsonRpcUrl`.
 * The new fork is opened whole (its block read, its cache found or made) before it replaces the
 * old one, so a failure (an unreachable upstream, a block it lacks) leaves the network as it was.
 * Filters and subscriptions stay, and follow the new chain from its next block.
 */
export const anvil_reset = defineMethod({
  name: 'anvil_reset',
  params: [optional(anything, undefined)],
  async run([options], ctx) {
    const forking = (options as { forking?: unknown } | null | undefined)?.forking
    const dev = devOf(ctx)
    if (forking === undefined || forking === null) {
      await dev.reset()
      return null
    }
    if (typeof forking !== 'object' || Array.isArray(forking)) throw new InvalidParamsError('forking: expected an object ({jsonRpcUrl?, blockNumber?})')
    const { jsonRpcUrl, blockNumber } = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown }
    const url = jsonRpcUrl === undefined || jsonRpcUrl === null ? undefined : forkUrl(jsonRpcUrl)
    const block = blockNumber === undefined || blockNumber === null ? undefined : forkBlock(blockNumber)
    if (ctx.chain.upstream === undefined && url === undefined) throw new InvalidParamsError(NO_FORK_NO_URL)
    // Imported on first use, as a fork is at start (src/http/server.ts): most networks never fork.
    const { forkAgain } = await import('../../chain/loading/fork/forkAgain.ts')
    let next
    try {
      next = await forkAgain(ctx.chain, { ...(url === undefined ? {} : { url }), ...(block === undefined ? {} : { block }) })
    } catch (err) {
      if (err instanceof FixtureError || err instanceof UpstreamError) throw new ServerError(`anvil_reset: ${err.message}`)
      throw err
    }
    await dev.reset(next)
    return null
  },
})

function forkUrl(v: unknown): string {
  if (typeof v !== 'string') throw new InvalidParamsError(`forking.jsonRpcUrl: expected a URL string, got ${JSON.stringify(v)?.slice(0, 80)}`)
  let protocol: string
  try {
    protocol = new URL(v).protocol
  } catch {
    throw new InvalidParamsError(`forking.jsonRpcUrl: not a URL: ${redactUrl(v)}`)
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new InvalidParamsError(`forking.jsonRpcUrl: expected an http(s) URL, got ${redactUrl(v)}`)
  return v
}

function forkBlock(v: unknown): bigint {
  try {
    return anvilNumber(64).parse(v)
  } catch (err) {
    if (err instanceof ArgumentError) throw new InvalidParamsError(`forking.blockNumber: ${err.message}`)
    throw err
  }
}
