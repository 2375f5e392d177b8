/**
 * eth_call's execution, as geth's `DoCall` runs it: the call's gas is its `gas` field or, when it
 * names none, the gas cap, and never more than the cap (`CallDefaults`). Under Osaka it is not held
 * to EIP-7825's 2^24 transaction cap: geth's calls skip the transaction checks
 * (`SkipTransactionChecks`), and so do these (see callTransaction.ts). One execution through
 * `CallSession`, rolled back.
 *
 * Failures outside the EVM come back in geth's words: the argument checks of `CallDefaults` as
 * they are, and the checks `ApplyMessage` makes (balance, intrinsic gas, the EIP-7623 calldata
 * floor, fee caps) as `err: <reason> (supplied gas <gas>)`, in geth's order (the balance first)
 * and with the sender checksummed, as geth's `Address.Hex()` writes it.
 */
import { toChecksumAddress } from '@ethereumjs/util'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { intrinsicGas } from '../vm/gasRules.ts'
import type { ExecutionBudget } from '../vm/executionGuard.ts'
import { CallError } from './callArgs.ts'
import { CallSession } from './callSession.ts'
import type { ExecutionObserver } from './callSession.ts'
import type { CallArgs, CallOverrides, ExecutionOutcome } from './callArgs.ts'

/** A call geth refuses before or around execution; the message is geth's, complete. */
export class CallRejected extends Error {
  override readonly name = 'CallRejected'
}

export interface CallResult {
  outcome: ExecutionOutcome
  /** The gas the call ran with (geth's "supplied gas"). */
  gas: bigint
  /** The lines the call's contracts logged with `console.log` (../vm/consoleTap.ts). */
  console: readonly string[]
}

/** geth's `CallDefaults` errors, which eth_call answers without the `err: ... (supplied gas)` frame. */
const ARGUMENT_ERRORS = [/^both gasPrice and \(maxFeePerGas or maxPriorityFeePerGas\) specified/, /^chainId does not match/]

/**
 * Throws `CallRejected`, or `OverrideError` for overrides geth refuses. With `budget`, the
 * execution runs within its time (see ../vm/executionGuard.ts). `observe` watches the execution
 * (a tracer: ../tracing/).
 */
export async function runCall(
  chain: ChainReader,
  record: BlockRecord,
  args: CallArgs,
  gasCap: bigint,
  overrides?: CallOverrides,
  budget?: ExecutionBudget,
  observe?: ExecutionObserver,
): Promise<CallResult> {
  const gas = args.gas === undefined || args.gas > gasCap ? gasCap : args.gas
  const number = overrides?.block?.number ?? record.number
  const time = overrides?.block?.time ?? record.timestamp
  // `{ ...args, gas }` made by assignment: on Node 20 a literal adding properties after a spread takes V8's slow path (~1 µs here).
  const capped: CallArgs = Object.assign({}, args)
  capped.gas = gas

  let session: CallSession
  try {
    session = await CallSession.open(chain, record, capped, overrides)
  } catch (err) {
    if (!(err instanceof CallError)) throw err
    if (ARGUMENT_ERRORS.some((re) => re.test(err.message))) throw new CallRejected(err.message)
    throw new CallRejected(applyMessageError(err.message, gas))
  }
  try {
    const lines: string[] = []
    return { outcome: await session.execute(gas, { budget, observe, console: lines }), gas, console: lines }
  } catch (err) {
    if (!(err instanceof CallError)) throw err
    const gethOrder = err.intrinsic || err.message.startsWith('insufficient funds')
    const reason = gethOrder ? await buyGasOrIntrinsic(chain, { number, timestamp: time }, capped, session, gas, err) : err.message
    throw new CallRejected(applyMessageError(reason, gas))
  }
}

function applyMessageError(reason: string, gas: bigint): string {
  const checksummed = reason.replace(/address (0x[0-9a-fA-F]{40})/g, (_m, a: string) => `address ${toChecksumAddress(a)}`)
  return `err: ${checksummed} (supplied gas ${gas})`
}

/**
 * geth buys the gas (checks the balance) before it checks the intrinsic cost; EthereumJS does the
 * opposite, and words its balance check with the effective price rather than the fee cap. So both
 * failures are answered here with geth's own checks: `balance >= gas * feeCap + value (+ blob gas
 * * blob fee cap)`, then the intrinsic cost, then (Prague) the calldata floor.
 */
async function buyGasOrIntrinsic(
  chain: ChainReader,
  record: { number: bigint; timestamp: bigint },
  args: CallArgs,
  session: CallSession,
  gas: bigint,
  original: CallError,
): Promise<string> {
  const shortfall = await session.fundsShortfall(gas)
  if (shortfall !== undefined) return shortfall
  if (!original.intrinsic) return original.message
  const common = chain.common.copy()
  common.setHardforkBy({ blockNumber: record.number, timestamp: record.timestamp })
  const { intrinsic, floor } = intrinsicGas(common, args)
  if (gas < intrinsic) return `intrinsic gas too low: have ${gas}, want ${intrinsic}`
  if (floor !== undefined && gas < floor) return `insufficient gas for floor data gas cost: have ${gas}, want ${floor}`
  return `intrinsic gas too low: have ${gas}, want ${intrinsic > (floor ?? 0n) ? intrinsic : floor}`
}
