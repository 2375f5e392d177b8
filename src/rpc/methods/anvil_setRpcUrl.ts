import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { string } from '../validators.ts'

/**
 * A forked network reads from another upstream from now on (the same chain at the same fork
 * block: what was read stays kept; a later `anvil_reset` with `forking` forks from it). Refused on
 * a network that is no fork, where Anvil 1.7.1 answers null and does nothing.
 */
export const anvil_setRpcUrl = defineMethod({
  name: 'anvil_setRpcUrl',
  params: [string],
  run([url], { chain }) {
    if (chain.upstream === undefined) throw new InvalidParamsError('Forking not enabled (this network is not a fork: fork it with anvil_reset {forking: {jsonRpcUrl}}, or start it with --fork)')
    try {
      chain.upstream.setUrl(url)
    } catch (err) {
      throw new InvalidParamsError((err as Error).message)
    }
    return null
  },
})
