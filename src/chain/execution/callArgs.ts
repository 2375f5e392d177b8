/**
 * A call as eth_call and eth_estimateGas take it (with its overrides), what one execution of it
 * gives, and the failures outside the EVM, in geth's words.
 */
import type { BlockOverrides, StateOverride } from './overrides.ts'

/** eth_call's and eth_estimateGas's third and fourth params. */
export interface CallOverrides {
  state?: StateOverride
  block?: BlockOverrides
}

/** A call as eth_call / eth_estimateGas receive it (geth's `TransactionArgs`), already parsed. */
export interface CallArgs {
  from?: string
  to?: string
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  maxFeePerBlobGas?: bigint
  value?: bigint
  nonce?: bigint
  data?: Uint8Array
  accessList?: { address: string; storageKeys: string[] }[]
  blobVersionedHashes?: string[]
  authorizationList?: {
    chainId: bigint
    address: string
    nonce: bigint
    yParity: bigint
    r: bigint
    s: bigint
  }[]
  chainId?: bigint
}

/** A call's EIP-7702 authorizations as EthereumJS builds a transaction from them (hex quantities). */
export function authorizationListData(list: NonNullable<CallArgs['authorizationList']> = []): Record<string, string>[] {
  return list.map((auth) => ({
    chainId: `0x${auth.chainId.toString(16)}`,
    address: auth.address,
    nonce: `0x${auth.nonce.toString(16)}`,
    yParity: `0x${auth.yParity.toString(16)}`,
    r: `0x${auth.r.toString(16)}`,
    s: `0x${auth.s.toString(16)}`,
  }))
}

/**
 * A failure before or outside EVM execution, in geth's words (code -32000 on the wire).
 * `intrinsic` marks the failures the estimator answers by raising the gas limit.
 */
export class CallError extends Error {
  override readonly name = 'CallError'
  readonly intrinsic: boolean
  constructor(message: string, intrinsic = false) {
    super(message)
    this.intrinsic = intrinsic
  }
}

export interface ExecutionOutcome {
  /** The EVM halted with an error (a revert included). */
  failed: boolean
  /** geth's name of the halt: `execution reverted`, `out of gas`, `invalid opcode: ...`. */
  error?: string
  reverted: boolean
  returnValue: Uint8Array
  /** Gas charged after refunds (geth's UsedGas). */
  usedGas: bigint
  /** Gas consumed before refunds (geth's MaxUsedGas). */
  maxUsedGas: bigint
  /**
   * Only for a traced execution that succeeded (`execute(gas, { trace: true })`) and did nothing
   * whose course depends on the gas limit (see `GAS_DEPENDENT_OPCODES`): the lowest gas limit at
   * which the same call succeeds. Every limit from it up to the one run succeeds with the same
   * trace, and every lower one fails (intrinsic gas, the calldata floor, out of gas, or the
   * EIP-2200 SSTORE sentry), so the estimator need not execute them.
   */
  lowestGas?: bigint
}
