/**
 * Test helper: reads a fixture folder back the way the loader does (geth genesis, concatenated
 * RLP blocks) and replays every block with `runBlock` in validating mode, so EthereumJS itself
 * checks each header's state root, receipts root, bloom and gas used.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createBlockFromBytesArray } from '@ethereumjs/block'
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { runBlock } from '@ethereumjs/vm'
import type { RunBlockResult } from '@ethereumjs/vm'
import { openGenesisChain } from '../../src/chain/loading/genesis.ts'
import type { GenesisFile, OpenChain } from '../../src/chain/loading/genesis.ts'

export function splitRlpBlocks(bytes: Uint8Array): Uint8Array[][] {
  const blocks: Uint8Array[][] = []
  let rest = bytes
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true)
    blocks.push(data as Uint8Array[])
    rest = remainder
  }
  return blocks
}

export interface Replayed {
  chain: OpenChain
  blocks: Block[]
  runs: RunBlockResult[]
}

/** Replays `chainRlp` on `genesis`; throws if any block does not verify. */
export async function replay(genesis: GenesisFile, chainRlp: Uint8Array, name: string): Promise<Replayed> {
  const chain = await openGenesisChain(genesis, name, { validateBlocks: true })
  const blocks: Block[] = []
  const runs: RunBlockResult[] = []
  let parent = chain.genesisBlock
  for (const values of splitRlpBlocks(chainRlp)) {
    const block = createBlockFromBytesArray(values as never, { common: chain.common })
    // putBlock validates the header against its parent (number, timestamp, gas limit, base fee).
    await chain.blockchain.putBlock(block)
    runs.push(await runBlock(chain.vm, { block, root: parent.header.stateRoot }))
    blocks.push(block)
    parent = block
  }
  return { chain, blocks, runs }
}

export function readFixture(dir: string): { genesisText: string; genesis: GenesisFile; chainRlp: Uint8Array; forkchoice: { safe: number; finalized: number }; accounts: FixtureAccounts } {
  const genesisText = readFileSync(join(dir, 'genesis.json'), 'utf8')
  return {
    genesisText,
    genesis: JSON.parse(genesisText) as GenesisFile,
    chainRlp: new Uint8Array(readFileSync(join(dir, 'chain.rlp'))),
    forkchoice: JSON.parse(readFileSync(join(dir, 'forkchoice.json'), 'utf8')),
    accounts: JSON.parse(readFileSync(join(dir, 'accounts.json'), 'utf8')) as FixtureAccounts,
  }
}

export interface FixtureAccounts {
  network: string
  chainId: number
  accounts: { name: string; address: string; privateKey?: string }[]
  contracts: { name: string; contract: string; address: string }[]
  transactions: { block: number; index: number; hash: string; type: number; status: number; summary: string }[]
}
