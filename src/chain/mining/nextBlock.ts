/**
 * What the next block on a chain's head is made of now: its header fields (the mining settings'
 * timestamp, fee recipient, gas limit and base fee), the executable pooled transactions geth's
 * miner would choose, and how to mine them on the head's state. The miner mines it and appends it
 * (`mineExecutable`), or builds it as the pending block without appending it (`pendingBlock`).
 */
import type { BlockRecord } from '../blocks/types.ts'
import type { PoolTransaction } from '../pool/poolTransaction.ts'
import { selectExecutable } from '../pool/selection.ts'
import type { TxPool } from '../pool/txPool.ts'
import type { ChainStore } from '../store/chainStore.ts'
import { childHeaderFields, mineChild } from './mining.ts'
import type { MiningSettingsState } from './settings.ts'

export async function nextBlock(store: ChainStore, pool: TxPool, settings: MiningSettingsState, timestamp: bigint) {
  // First: the block's Common must have the VM's parameters (see ChainStore.getVm).
  const vm = await store.getVm()
  const parent = store.head
  const parentRoot = store.stateRootOf(parent)
  const common = store.commonAt(parent.number + 1n, timestamp)
  const fields = childHeaderFields(parent, common, timestamp, settings.coinbase ?? store.genesis.block.header.coinbase.toString(), {
    gasLimit: settings.gasLimit,
    baseFee: settings.nextBaseFee,
  })
  const nonces = new Map<string, bigint>()
  for (const p of pool.entries) if (!nonces.has(p.from)) nonces.set(p.from, (await store.accountAt(parent, p.from))?.nonce ?? 0n)
  const baseFee = fields.baseFeePerGas === undefined ? undefined : BigInt(fields.baseFeePerGas as bigint)
  const chosen = selectExecutable(pool.entries, (from) => nonces.get(from)!, baseFee, BigInt(fields.gasLimit as bigint))
  const mine = (txs: readonly PoolTransaction[]): Promise<BlockRecord> => mineChild(vm, parent, parentRoot, common, fields, txs)
  return { parent, parentRoot, settings, timestamp, chosen, mine }
}
