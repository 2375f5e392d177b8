import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** Ends `anvil_impersonateAccount` for this account. */
export const anvil_stopImpersonatingAccount = defineMethod({
  name: 'anvil_stopImpersonatingAccount',
  params: [address],
  run([account], { chain }) {
    chain.setImpersonated(account, false)
    return null
  },
})
