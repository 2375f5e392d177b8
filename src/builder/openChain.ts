/**
 * A fresh in-memory chain at the genesis of a genesis file: Common, blockchain and a VM whose
 * state holds the genesis alloc. The builder mines on it; tests replay on it.
 */
import type { Block } from '@ethereumjs/block'
import { createBlockchain } from '@ethereumjs/blockchain'
import type { Blockchain } from '@ethereumjs/blockchain'
import type { Common } from '@ethereumjs/common'
import { createVM } from '@ethereumjs/vm'
import type { VM } from '@ethereumjs/vm'
import { commonFromGenesis, genesisStateOf } from '../chain/genesis.ts'
import type { GenesisFile } from '../chain/genesis.ts'

export interface OpenChain {
  common: Common
  blockchain: Blockchain
  vm: VM
  genesisBlock: Block
}

export async function openChain(genesis: GenesisFile, name: string): Promise<OpenChain> {
  const common = commonFromGenesis(genesis, name)
  const genesisState = genesisStateOf(genesis)
  // No consensus checks (post-merge headers carry none), but block data is validated on putBlock.
  const blockchain = await createBlockchain({ common, genesisState, validateConsensus: false, validateBlocks: true })
  const vm = await createVM({ common, blockchain })
  // createBlockchain only computes the genesis state root; the VM's state must be seeded separately.
  await vm.stateManager.generateCanonicalGenesis!(genesisState)
  return { common, blockchain, vm, genesisBlock: blockchain.genesisBlock }
}
