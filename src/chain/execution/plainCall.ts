/**
 * A plain call run through `evm.runCall` with runTx's set-up made here, not through `runTx`: a
 * message call (not a creation) that pays nothing (no fee fields, or zero ones, so its gas price
 * is 0), sends no value, names no nonce, access list, blobs or authorizations, and has no
 * overrides. What most `eth_call`s are (a view function read), and most `eth_estimateGas` runs
 * (traced or not: the gas trace watches the EVM's opcodes, not runTx). A tracer's execution
 * (debug_traceCall) goes through runTx, whose events it follows.
 *
 * For such a call, what runTx does around the EVM changes nothing the EVM sees but the sender's
 * nonce: the fee checks pass (the block's base fee is 0 for a fee-less call, see
 * ./blockCalls.ts `blockFor`), the gas bought and refunded costs 0, the coinbase earns 0. So the
 * execution is runTx's when it gets, in runTx's order: the journal cleaned up, the precompiles,
 * the sender, the target and (EIP-3651) the coinbase warm, the gas limit less the intrinsic gas,
 * the sender's nonce raised (`runCall` does that itself at depth 0), gas price 0, origin the
 * sender; and after it runTx's gas accounting (refund capped at a fifth, the EIP-7623 floor). It
 * spares the transaction object (built and checked per call), runTx's two checkpoints and its
 * account reads and writes: about a third of a distinct `balanceOf`'s CPU. A limit below the
 * intrinsic gas or the floor is left to runTx, which refuses it in its words. Under the
 * experimental EIPs that change runTx's set-up (EIP-7864's witness, EIP-8037's state gas, EIP-2780,
 * EIP-7928's access lists) every call goes through runTx.
 *
 * test/rpc/plainCall.test.ts runs calls both ways and compares them.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { TransactionType } from '@ethereumjs/tx'
import { bytesToUnprefixedHex, createAddressFromString } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { CallLayer } from '../vm/callLayer.ts'
import type { CallArgs } from './callArgs.ts'

/** What runPlainCall reaches of EthereumJS 10.1.3's `Journal` (private there). */
interface JournalInternals {
  alwaysWarmJournal: Map<string, Set<string>>
  touched: Set<string>
  accessList?: unknown
  preimages?: unknown
}

/** The EIPs under which runTx's set-up, or its intrinsic gas or calldata floor, differs from the one made here. */
const RUNTX_ONLY_EIPS = [7864, 8037, 2780, 7928, 7976, 7981]

/** A call that can run plain: its target and data, and the gas its transaction would pay before execution. */
export interface PlainCall {
  readonly to: Address
  readonly data: Uint8Array
  readonly intrinsic: bigint
  /** The EIP-7623 floor (Prague), or 0. */
  readonly floor: bigint
}

/** What runTx answers that the callers read: the execution's result and the gas, as runTx counts it. */
export interface PlainResult {
  execResult: Awaited<ReturnType<VM['evm']['runCall']>>['execResult']
  totalGasSpent: bigint
  gasRefund: bigint
}

/**
 * The call as a plain one, or undefined when runTx must run it. `type` is the transaction type it
 * executes as (./callTransaction.ts `callType`), `feeCap` and `tip` its fees as geth normalizes
 * them, `common` its transaction's (which has the transaction parameters).
 */
export function plainCallOf(args: CallArgs, common: Common, type: number, feeCap: bigint, tip: bigint): PlainCall | undefined {
  if (args.to === undefined || feeCap !== 0n || tip !== 0n || (args.value !== undefined && args.value !== 0n)) return undefined
  if (args.nonce !== undefined || (args.accessList !== undefined && args.accessList.length > 0)) return undefined
  if (type !== TransactionType.Legacy && type !== TransactionType.AccessListEIP2930 && type !== TransactionType.FeeMarketEIP1559) return undefined
  if (RUNTX_ONLY_EIPS.some((eip) => common.isActivatedEIP(eip))) return undefined
  const data = args.data ?? new Uint8Array()
  // EthereumJS's getIntrinsicGas and getCalldataFloorGas for a message call without an access list.
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  const nonZeros = BigInt(data.length - zeros)
  const txGas = common.param('txGas')
  const intrinsic = txGas + BigInt(zeros) * common.param('txDataZeroGas') + nonZeros * common.param('txDataNonZeroGas')
  const floor = common.isActivatedEIP(7623) ? txGas + common.param('totalCostFloorPerToken') * (BigInt(zeros) + nonZeros * 4n) : 0n
  return { to: createAddressFromString(args.to), data, intrinsic, floor }
}

/** Whether runTx would run the call with `gasLimit` (not refuse it before execution). */
export function plainRuns(call: PlainCall, gasLimit: bigint): boolean {
  return gasLimit >= call.intrinsic && gasLimit >= call.floor && gasLimit < 1n << 64n
}

/**
 * Runs the call from `caller` with `gasLimit` (`plainRuns`) in `block`, as runTx would. With
 * `layer` (../vm/callLayer.ts), on it: the caller takes no checkpoint of the VM's state manager,
 * which the call does not touch; without, under the caller's checkpoint.
 */
export async function runPlainCall(vm: VM, call: PlainCall, caller: Address, gasLimit: bigint, block: Block, layer?: CallLayer): Promise<PlainResult> {
  const evm = vm.evm
  const common = vm.common
  const journal = evm.journal
  // The EVM and its journal hold the state manager; each frame's interpreter takes the EVM's.
  const holders = [evm, journal] as unknown as { stateManager: unknown }[]
  const state = evm.stateManager
  await cleanedUp(journal)
  if (layer !== undefined) for (const holder of holders) holder.stateManager = layer
  try {
    if (common.isActivatedEIP(2929)) {
      // What `addAlwaysWarmAddress` does with an address (unprefixed hex, as the precompiles' keys
      // are), without the hex check of every address by a regular expression (~1% of a distinct
      // eth_call for the 18 precompiles): a set of warm slots for it in the journal, which
      // cleanup has just emptied. One empty set for them all: only runTx's access list puts slots
      // in these sets (`addAlwaysWarmSlot`), and a plain call has none; a set per address was
      // 21 sets per call, ~5% of a distinct eth_call to an address with no code.
      const warm = (journal as unknown as JournalInternals).alwaysWarmJournal
      const none = new Set<string>()
      for (const address of evm.precompiles.keys()) warm.set(address, none)
      warm.set(bytesToUnprefixedHex(caller.bytes), none)
      warm.set(bytesToUnprefixedHex(call.to.bytes), none)
      if (common.isActivatedEIP(3651)) warm.set(bytesToUnprefixedHex(block.header.coinbase.bytes), none)
    }
    const { execResult } = await evm.runCall({ block, gasPrice: 0n, caller, gasLimit: gasLimit - call.intrinsic, to: call.to, value: 0n, data: call.data })
    // runTx's accounting: the refund (the uncapped one is what it answers as `gasRefund`) capped
    // at the gas spent over maxRefundQuotient, then the calldata floor.
    let totalGasSpent = execResult.executionGasUsed + call.intrinsic
    let gasRefund = execResult.gasRefund ?? 0n
    if (gasRefund !== 0n) {
      const maxRefund = totalGasSpent / common.param('maxRefundQuotient')
      totalGasSpent -= gasRefund < maxRefund ? gasRefund : maxRefund
    }
    if (common.isActivatedEIP(7623) && totalGasSpent < call.floor) {
      gasRefund = 0n
      totalGasSpent = call.floor
    }
    return { execResult, totalGasSpent, gasRefund }
  } finally {
    journal.cleanJournal()
    if (layer === undefined) vm.stateManager.originalStorageCache.clear()
    for (const holder of holders) holder.stateManager = state
  }
}

/**
 * `journal.cleanup()` as runTx makes it before a transaction: the touched accounts left empty
 * deleted (from Spurious Dragon), then the journal cleared. Each call ends with the journal
 * cleared (`cleanJournal`), so there is mostly nothing touched, and then only the clearing is
 * made: cleanup's hardfork check (`gteHardfork`, which lists the chain's hardforks) was ~4% of a
 * distinct eth_call to an address with no code. EthereumJS's own runs when anything was touched.
 */
async function cleanedUp(journal: VM['evm']['journal']): Promise<void> {
  const internals = journal as unknown as JournalInternals
  if (internals.touched.size > 0) return journal.cleanup()
  journal.cleanJournal()
  delete internals.accessList
  delete internals.preimages
}
