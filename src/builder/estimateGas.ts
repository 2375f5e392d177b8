/**
 * Gas limits for transactions whose source gives none, found by trial runs against the state the
 * transaction will see (after the earlier transactions of its block), in the manner of geth's
 * `eth_estimateGas`: one run at the highest possible limit, then an optimistic guess, then a
 * binary search if the guess was too low.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { runTx } from '@ethereumjs/vm'
import type { RunTxResult, VM } from '@ethereumjs/vm'

/** Runs `tx` on `vm` and undoes its effects. Throws when the transaction cannot be included at all. */
export async function trialRun(vm: VM, block: Block, tx: TypedTransaction, reportAccessList = false): Promise<RunTxResult> {
  await vm.evm.journal.checkpoint()
  try {
    return await runTx(vm, { tx, block, skipBlockGasLimitValidation: true, reportAccessList })
  } finally {
    await vm.evm.journal.revert()
  }
}

/**
 * The gas limit to give a transaction built by `txWithGas`, at most `hi`.
 * - No code runs (`noExecution`: the recipient has no code): exactly the intrinsic gas the trial
 *   used, 21,000 for a plain transfer, as geth answers.
 * - Success at `hi`: the optimistic limit `(used + refund + 2300) * 64/63` (geth's guess, which
 *   covers the 1/64 a call must keep back and a stipend), raised by binary search if that fails.
 * - Failure at `hi` (only reached for transactions expected to fail): the same margin over what
 *   the failing run used, so it fails the same way without burning `hi`.
 *
 * The first trial's result is returned too, so callers can explain an unexpected failure.
 */
export async function estimateGas(
  vm: VM,
  block: Block,
  txWithGas: (gas: bigint) => TypedTransaction,
  hi: bigint,
  noExecution: boolean,
): Promise<{ gas: bigint; first: RunTxResult }> {
  const first = await trialRun(vm, block, txWithGas(hi))
  if (noExecution) return { gas: first.totalGasSpent, first }
  const guess = min(hi, ((first.totalGasSpent + first.gasRefund + 2300n) * 64n) / 63n + 1n)
  if (first.execResult.exceptionError !== undefined) return { gas: guess, first }
  if (!failed(await trialRun(vm, block, txWithGas(guess)))) return { gas: guess, first }
  // Too low: search (guess, hi], stopping within 1.5% like geth.
  let lo = guess
  let high = hi
  while (high - lo > 1n && (high - lo) * 1000n > high * 15n) {
    const mid = (lo + high) / 2n
    if (failed(await trialRun(vm, block, txWithGas(mid)))) lo = mid
    else high = mid
  }
  return { gas: high, first }
}

function failed(result: RunTxResult): boolean {
  return result.execResult.exceptionError !== undefined
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}
