import { InvalidParamsError } from '../errors.ts'
import { defineMethod } from '../method.ts'
import { string } from '../validators.ts'

/**
 * A forked network reads from another upstream from now on (the same chain at the same fork
 * block: what was read stays kept); refused, as Anvil refuses it, on a network that is no fork.
 */
export const anvil_setRpcUrl = defineMethod({
  name: 'anvil_setRpcUrl',
  params: [string],
  run([url], { chain }) {
    if (chain.upstream === undefined) throw new InvalidParamsError('Forking not enabled (this network is not a fork: start it with --fork or networks.<name>.fork)')
    try {
      chain.upstream.setUrl(url)
    } catch (err) {
      throw new InvalidParamsError((err as Error).message)
    }
    return null
  },
})
