import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** `eth_sendTransaction` may send from this account from now on, without its key. */
export const anvil_impersonateAccount = defineMethod({
  name: 'anvil_impersonateAccount',
  params: [address],
  run([account], { chain }) {
    chain.setImpersonated(account, true)
    return null
  },
})
