/**
 * What a traced execution did that bears on other gas limits: whether it did anything whose course
 * depends on the gas limit, and the least gas left at an SSTORE. From it, the lowest gas limit at
 * which the same call succeeds (`lowestGasOf`), so the estimator need not execute the others.
 *
 * It is noted by wrapping the handlers of the block VM's opcode table (`watchGasDependence`): the
 * VM is the calls' own (./blockCalls.ts), and the trace is set for one execution's turn only. A
 * tracer (debug_traceCall's) is the same pattern: an observer per execution, over handlers wrapped
 * once per block VM.
 */
import type { Common } from '@ethereumjs/common'
import { getCalldataFloorGas } from '@ethereumjs/tx'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { opcodeMap, wrapOpcodes } from '../vm/opcodeMap.ts'

/**
 * Opcodes whose course depends on the gas limit: GAS reads it; calls and creations forward 63/64 of
 * the gas left (and the callee may run out where the caller does not); BALANCE, SELFBALANCE and
 * EXTCODEHASH may read the sender, whose balance is less the gas bought (an empty account hashes
 * to 0). EOF's EXTCALL, EXTDELEGATECALL and EXTSTATICCALL too. A trace without them runs the same
 * at every gas limit it fits in.
 */
const GAS_DEPENDENT_OPCODES = [0x5a, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa, 0x31, 0x47, 0x3f, 0xf8, 0xf9, 0xfb]
const SSTORE = 0x55

/** EIPs under which gas is metered otherwise (state gas, stateless code chunks, access lists in blocks). */
const UNDECIDED_EIPS = [6800, 7864, 7928, 8037, 8038]

/** What a traced execution did that bears on other gas limits. */
export interface GasTrace {
  gasDependent: boolean
  /** The least gas left when an SSTORE began (the EIP-2200 sentry fails it at 2300 or less). */
  minGasLeftAtSstore: bigint | undefined
}


/** Whether a trace can decide other gas limits under a block's rules (see `lowestGasOf`). */
export function traceDecidesUnder(common: Common): boolean {
  return common.gteHardfork('istanbul') && !UNDECIDED_EIPS.some((eip) => common.isActivatedEIP(eip))
}

/**
 * Wraps `vm`'s handlers of the gas-dependent opcodes and of SSTORE so that a traced execution
 * notes them in `current()`; an untraced one pays a property check per such opcode. `vm` must be
 * a VM for calls only (its table is changed for good).
 */
export function watchGasDependence(vm: VM, current: () => GasTrace | undefined): void {
  wrapOpcodes(vm, GAS_DEPENDENT_OPCODES, (entry) => ({
    ...entry,
    opHandler: (...a: unknown[]) => {
      const trace = current()
      if (trace !== undefined) trace.gasDependent = true
      return entry.opHandler(...a)
    },
  }))
  const map = opcodeMap(vm)
  const sstore = map[SSTORE]
  const gasHandler = sstore?.gasHandler
  if (sstore === undefined || gasHandler === undefined) return
  map[SSTORE] = {
    ...sstore,
    gasHandler: (...a: unknown[]) => {
      const trace = current()
      if (trace !== undefined) {
        const left = (a[0] as { interpreter: { getGasLeft(): bigint } }).interpreter.getGasLeft()
        if (trace.minGasLeftAtSstore === undefined || left < trace.minGasLeftAtSstore) trace.minGasLeftAtSstore = left
      }
      return gasHandler(...a)
    },
  }
}

/** What a transaction pays before execution: its intrinsic gas, and its EIP-7623 calldata floor (0 before Prague). */
export interface TxGasFloor {
  intrinsic: bigint
  floor: bigint
}

/** EthereumJS's figures for `tx` from `from`. */
export function txGasFloor(tx: TypedTransaction, from: Address): TxGasFloor {
  return { intrinsic: tx.getIntrinsicGas(), floor: getCalldataFloorGas(tx, from) }
}

/**
 * The lowest gas limit at which a gas-independent trace that succeeded with `gasLimit` succeeds:
 * the intrinsic gas plus what the EVM used (it only ever adds up), the EIP-7623 calldata floor,
 * and more than the 2300 sentry gas left at every SSTORE (gas left there is `gasLimit` less a
 * fixed amount).
 */
export function lowestGasOf(paid: TxGasFloor, gasLimit: bigint, executionGasUsed: bigint, trace: GasTrace, common: Common): bigint {
  let lowest = paid.intrinsic + executionGasUsed
  if (paid.floor > lowest) lowest = paid.floor
  if (trace.minGasLeftAtSstore !== undefined) {
    const sentry = gasLimit - trace.minGasLeftAtSstore + common.param('sstoreSentryEIP2200Gas') + 1n
    if (sentry > lowest) lowest = sentry
  }
  return lowest
}
