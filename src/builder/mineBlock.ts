/**
 * Sealing one block: the transactions are run once through `runBlock({generate: true})` on a
 * header shell, and the real header is assembled from what that run computed. (BlockBuilder gives
 * the same hashes but is quadratic in the number of transactions; see the v10 notes, §2 and §5.)
 */
import { Block, createBlockHeader } from '@ethereumjs/block'
import type { HeaderData } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { KECCAK256_RLP } from '@ethereumjs/util'
import type { OpenChain } from '../chain/loading/genesis.ts'
import { sealBlock } from '../chain/mining/mining.ts'
import { runBlock } from '@ethereumjs/vm'
import type { RunBlockResult } from '@ethereumjs/vm'

/** The header fields the builder chooses; everything else follows from the parent or the run. */
export interface BlockPlan {
  timestamp: bigint
  coinbase: string
  prevRandao: Uint8Array
  extraData: Uint8Array
  /** Default: the parent's. */
  gasLimit?: bigint
}

/** The header fields of the child of `parent`, before execution; those of later forks only when the chain runs them. */
export function headerShellFields(chain: OpenChain, parent: Block, plan: BlockPlan): HeaderData {
  const { common } = chain
  const cancun = common.isActivatedEIP(4844)
  return {
    parentHash: parent.hash(),
    number: parent.header.number + 1n,
    timestamp: plan.timestamp,
    coinbase: plan.coinbase as `0x${string}`,
    gasLimit: plan.gasLimit ?? parent.header.gasLimit,
    difficulty: 0n,
    mixHash: plan.prevRandao,
    extraData: plan.extraData,
    baseFeePerGas: parent.header.calcNextBaseFee(),
    // No blob transactions and no beacon chain: no blob gas, zero beacon root, no withdrawals.
    ...(cancun ? { excessBlobGas: parent.header.calcNextExcessBlobGas(common), blobGasUsed: 0n, parentBeaconBlockRoot: new Uint8Array(32) } : {}),
    ...(common.isActivatedEIP(4895) ? { withdrawalsRoot: KECCAK256_RLP } : {}),
  }
}

/** Executes `txs` on the chain's VM (which must be at the parent's state), appends the block and returns it with the run's results. */
export async function mineBlock(chain: OpenChain, parent: Block, plan: BlockPlan, txs: TypedTransaction[]): Promise<{ block: Block; run: RunBlockResult }> {
  const { common, vm, blockchain } = chain
  const fields = headerShellFields(chain, parent, plan)
  const shell = new Block(createBlockHeader(fields, { common }), txs, [], [], { common })
  const run = await runBlock(vm, { block: shell, generate: true, skipBlockValidation: true, skipHeaderValidation: true })
  const block = await sealBlock(fields, run, txs, [], common)
  await blockchain.putBlock(block)
  return { block, run }
}
