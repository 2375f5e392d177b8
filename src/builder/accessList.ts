/**
 * Access lists for `"accessList": "auto"`: what a trial run touched, trimmed the way geth's
 * `eth_createAccessList` trims it.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { VM } from '@ethereumjs/vm'
import { trialRun } from './estimateGas.ts'

type AccessList = { address: string; storageKeys: string[] }[]

/**
 * Everything `tx` reads or writes, without the sender, the fee recipient and precompiles (warm
 * anyway, so listing them only costs gas), and without the recipient unless its storage is
 * touched. Sorted, so the list reads well and never depends on execution order.
 */
export async function createAccessList(vm: VM, block: Block, tx: TypedTransaction): Promise<AccessList> {
  const result = await trialRun(vm, block, tx, true)
  const sender = tx.getSenderAddress().toString()
  const coinbase = block.header.coinbase.toString()
  const to = tx.to?.toString()
  return (result.accessList ?? [])
    .map((item) => ({ address: item.address.toLowerCase(), storageKeys: [...item.storageKeys].sort() }))
    // Precompiles live at 0x01..0x11 and 0x100 (P256VERIFY); nothing else is that low.
    .filter((item) => item.address !== sender && item.address !== coinbase && BigInt(item.address) > 0x1ffn)
    .filter((item) => item.address !== to || item.storageKeys.length > 0)
    .sort((a, b) => (a.address < b.address ? -1 : 1))
}
