import { flag } from '../devParams.ts'
import { defineMethod } from '../method.ts'

/** `true`: `eth_sendTransaction` may send from any account. */
export const anvil_autoImpersonateAccount = defineMethod({
  name: 'anvil_autoImpersonateAccount',
  params: [flag],
  run([on], { chain }) {
    chain.setAutoImpersonate(on)
    return null
  },
})
