import { defineMethod } from '../method.ts'
import { hash } from '../validators.ts'

/** Removes a transaction from the pool (nothing when it is not there). */
export const anvil_dropTransaction = defineMethod({
  name: 'anvil_dropTransaction',
  params: [hash],
  run([txHash], { chain }) {
    chain.dropTransaction(txHash)
    return null
  },
})
