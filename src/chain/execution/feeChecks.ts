/**
 * geth's fee checks of a message (`preCheck` in core/state_transition.go, and `buyGas`'s 256-bit
 * bound), in its order and words, made before EthereumJS builds the transaction: EthereumJS refuses
 * the same fields at construction, in its own words ("maxFeePerGas cannot be less than
 * maxPriorityFeePerGas", "gasLimit * maxFeePerGas cannot exceed MAX_INTEGER"). Plain bigint
 * comparisons: nothing is allocated for a call that passes.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Account } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'

const MAX_UINT256 = (1n << 256n) - 1n

/**
 * The London fee checks: caps past 256 bits, then a tip above the fee cap. `skippable`: geth's
 * `NoBaseFee` calls (no validation) skip them when both caps are zero. `from` answers the sender as
 * geth's `Address.Hex()` writes it (checksummed: a keccak, made only for a refusal). Returns geth's
 * message, or undefined.
 */
export function feeCapRefusal(from: () => string, feeCap: bigint, tip: bigint, skippable: boolean): string | undefined {
  if (skippable && feeCap === 0n && tip === 0n) return undefined
  if (feeCap > MAX_UINT256) return `max fee per gas higher than 2^256-1: address ${from()}, maxFeePerGas bit length: ${feeCap.toString(2).length}`
  if (tip > MAX_UINT256) return `max priority fee per gas higher than 2^256-1: address ${from()}, maxPriorityFeePerGas bit length: ${tip.toString(2).length}`
  if (tip > feeCap) return `max priority fee per gas higher than max fee per gas: address ${from()}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`
  return undefined
}

/**
 * `buyGas`'s balance check, `balance >= want` where want is `gas * feeCap + value (+ blob gas *
 * blob fee cap)`: geth's words when it fails (a want past 256 bits has its own), else undefined.
 */
export function balanceRefusal(from: string, have: bigint, want: bigint): string | undefined {
  if (want > MAX_UINT256) return `insufficient funds for gas * price + value: address ${from} required balance exceeds 256 bits`
  if (have < want) return `insufficient funds for gas * price + value: address ${from} have ${have} want ${want}`
  return undefined
}

/**
 * Gives `address` what EthereumJS will charge for a call's blobs at the block's blob price, which
 * geth does not charge when the call names no blob fee (its calls then run with a blob base fee of
 * 0): EthereumJS debits it before execution, so the sender's balance reads as geth's throughout.
 * Made inside the execution's checkpoint, so it is rolled back with it.
 */
export async function coverBlobFee(state: StateManagerInterface, address: Address, amount: bigint): Promise<void> {
  const account = (await state.getAccount(address)) ?? new Account()
  account.balance += amount
  await state.putAccount(address, account)
}
