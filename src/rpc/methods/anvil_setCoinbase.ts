import { defineMethod } from '../method.ts'
import { address } from '../validators.ts'

/** The fee recipient (`miner`) of the next blocks. */
export const anvil_setCoinbase = defineMethod({
  name: 'anvil_setCoinbase',
  params: [address],
  run([account], { chain }) {
    chain.setMiningSettings({ coinbase: account })
    return null
  },
})
