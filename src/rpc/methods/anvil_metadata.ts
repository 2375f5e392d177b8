import { defineMethod } from '../method.ts'
import { CLIENT_VERSION } from './web3_clientVersion.ts'

/**
 * Anvil's node metadata (Hardhat's `hardhat_metadata` shape): the client version (the double's own,
 * as `web3_clientVersion`), the chain id, the head, and for a forked network the upstream's chain
 * id and the fork block (Anvil's `forkedNetwork`).
 */
export const anvil_metadata = defineMethod({
  name: 'anvil_metadata',
  params: [],
  run: (_params, { chain }) => ({
    clientVersion: CLIENT_VERSION,
    chainId: Number(chain.chainId),
    latestBlockNumber: Number(chain.head.number),
    latestBlockHash: chain.head.hash,
    forkedNetwork:
      chain.upstream === undefined
        ? null
        : { chainId: Number(chain.upstream.chainId), forkBlockNumber: Number(chain.upstream.block), forkBlockHash: chain.upstream.hash },
    snapshots: {},
  }),
})
