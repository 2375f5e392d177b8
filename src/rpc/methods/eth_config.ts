import { chainConfig } from '../../chain/vm/forkConfig.ts'
import { defineMethod } from '../method.ts'

/**
 * EIP-7910: the fork configuration of the head's fork, the next scheduled fork and the last one
 * (activation time, blob schedule, chain id, fork id, precompiles and system contracts by name).
 */
export const eth_config = defineMethod({
  name: 'eth_config',
  params: [],
  run(_params, { chain }) {
    return chainConfig({
      common: chain.common,
      chainId: chain.chainId,
      genesisHash: chain.genesis.block.hash(),
      genesisTime: chain.genesis.timestamp,
      headTime: chain.head.timestamp,
    })
  },
})
