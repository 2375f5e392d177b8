/**
 * Gas estimation, ported step by step from geth's `eth/gasestimator` (`Estimate`):
 *
 * 1. The upper bound `hi` is the call's gas (when >= 21000) or the block's gas limit; under
 *    Osaka it is capped at 2^24 (EIP-7825); when the call names a fee, at the balance allowance
 *    `(balance - value) / feeCap` (value >= balance fails with `insufficient funds for transfer`);
 *    and at the gas cap.
 * 2. A plain transfer (no data, to an address without code) tries 21000 first.
 * 3. One run at `hi`: a revert fails at once with its data; out of gas gives
 *    `gas required exceeds allowance (hi)`; another halt gives its own error.
 * 4. `lo` = gas used - 1; one optimistic try at `(maxUsedGas + 2300) * 64 / 63`.
 * 5. Binary search, bisecting at most at `2 * lo`, until `(hi - lo) / hi < 1.5%` (geth's
 *    `estimateGasErrorRatio`); the answer is `hi`, the lowest limit known to succeed.
 *
 * Failures to pay intrinsic gas (or the calldata floor) count as "raise the gas", never as errors.
 *
 * Steps 4 and 5 ask only "does the call succeed with this gas limit?". When the run at `hi`
 * succeeded without doing anything whose course depends on the gas limit (no GAS, no call or
 * creation, no balance read: `ExecutionOutcome.lowestGas`), the answer is "yes from `lowestGas`
 * up, no below": the same search is made, each step answered by that comparison instead of an
 * execution. The answer is the one the executions would give; an ERC-20 transfer runs once.
 *
 * Answers are kept: a block's state never changes, so the same call at the same block (by hash)
 * and state root (a state edit gives the head a new one) with the same gas cap has the same
 * answer, a success or one of geth's errors. A repeated call is answered from the kept answer
 * (concurrent ones share one estimation); blocks added later have their own hashes, so nothing is
 * ever invalidated.
 */
import { bytesToHex } from '@ethereumjs/util'
import { createHash } from 'node:crypto'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { MAX_TX_GAS } from '../vm/gasRules.ts'
import { ExecutionTimeout } from '../vm/executionGuard.ts'
import type { ExecutionBudget } from '../vm/executionGuard.ts'
import { CallError } from './callArgs.ts'
import { CallSession } from './callSession.ts'
import type { CallArgs, CallOverrides, ExecutionOutcome } from './callArgs.ts'

const TX_GAS = 21000n
const CALL_STIPEND = 2300n
const ERROR_RATIO = 0.015

/** The call reverted: geth answers code 3 with the revert data. */
export class EstimateRevert extends Error {
  override readonly name = 'EstimateRevert'
  readonly data: Uint8Array
  constructor(data: Uint8Array) {
    super('execution reverted')
    this.data = data
  }
}

export interface EstimateOptions {
  /** The highest gas any execution may use (the service caps `gas` at 10x the block gas limit). */
  gasCap: bigint
  /** false: execute every step of the search, even where the first run's trace decides it (for tests). Default true. */
  decideFromTrace?: boolean
  /** State and block overrides: estimated on a VM of the call's own, and never kept. */
  overrides?: CallOverrides
  /** The time all the estimate's executions may take together (see ../vm/executionGuard.ts). */
  budget?: ExecutionBudget
}

export interface EstimateResult {
  gas: bigint
  /**
   * How many gas limits geth's search tried, i.e. how many executions geth makes for this call
   * (0 for a kept answer): a figure for benchmarks and tests.
   */
  executions: number
  /** How many of those ran the EVM (the others were decided by the first run's trace); absent for a kept answer. */
  evmRuns?: number
}

/**
 * How many answers each chain keeps (the most recently asked). A kept answer weighs at most about 1.5 KB
 * whatever the call's size: its key is a digest of the call (see `answerKey`), and a revert with
 * more than `KEPT_REVERT_BYTES` of data is not kept: at most about 6 MiB a chain.
 */
const ANSWERS_KEPT = 4096
/** The most revert data a kept answer holds (a revert reason string is a few hundred bytes). */
const KEPT_REVERT_BYTES = 1024

const answers = new WeakMap<ChainReader, Map<string, Promise<EstimateResult>>>()

export function estimateGas(chain: ChainReader, record: BlockRecord, args: CallArgs, opts: EstimateOptions): Promise<EstimateResult> {
  // An overridden call's answer holds for its overrides only: it is not kept.
  if (opts.overrides !== undefined) return estimate(chain, record, args, opts)
  let kept = answers.get(chain)
  if (!kept) answers.set(chain, (kept = new Map()))
  const key = answerKey(record, bytesToHex(chain.stateRootOf(record)), args, opts.gasCap, opts.decideFromTrace)
  const known = kept.get(key)
  if (known) {
    kept.delete(key)
    kept.set(key, known)
    return known.then((r) => ({ gas: r.gas, executions: 0 }))
  }
  const answer = estimate(chain, record, args, opts)
  kept.set(key, answer)
  if (kept.size > ANSWERS_KEPT) kept.delete(kept.keys().next().value!)
  // geth's answers (reverts, its errors) are kept; anything else (a bug) is asked again next time,
  // and so is a revert with more data than KEPT_REVERT_BYTES (megabytes under a high gas cap).
  const forget = kept
  answer.catch((err: unknown) => {
    const keep = err instanceof CallError || (err instanceof EstimateRevert && err.data.length <= KEPT_REVERT_BYTES)
    if (!keep && forget.get(key) === answer) forget.delete(key)
  })
  return answer
}

/**
 * The call as a key: the block's hash and the state root its calls read (state edits change the
 * head's), the cap, every field in one order, addresses in lowercase, as the SHA-256 of their
 * JSON followed by the call's data: a call's data can be megabytes, which 4,096 kept keys would
 * hold whole (5 MiB bodies: 20 GiB). Numbers are written in hex and the data hashed as bytes, so
 * the JSON takes no replacer (which sends `JSON.stringify` off its fast path) and the data no hex
 * string; a JSON array ends where it closes, so the bytes after it cannot make another call's key.
 */
function answerKey(record: BlockRecord, root: string, a: CallArgs, gasCap: bigint, decideFromTrace?: boolean): string {
  const fields = [
    record.hash,
    root,
    hex(gasCap),
    a.from?.toLowerCase(),
    a.to?.toLowerCase(),
    hex(a.gas),
    hex(a.gasPrice),
    hex(a.maxFeePerGas),
    hex(a.maxPriorityFeePerGas),
    hex(a.maxFeePerBlobGas),
    hex(a.value),
    hex(a.nonce),
    a.data?.length,
    a.accessList?.map((e) => [e.address.toLowerCase(), e.storageKeys.map((k) => k.toLowerCase())]),
    a.blobVersionedHashes?.map((h) => h.toLowerCase()),
    a.authorizationList?.map((x) => [hex(x.chainId), x.address.toLowerCase(), hex(x.nonce), hex(x.yParity), hex(x.r), hex(x.s)]),
    hex(a.chainId),
    // A search made in full is kept apart, so that tests can compare the two.
    decideFromTrace === false ? 'searched' : undefined,
  ]
  const hash = createHash('sha256').update(JSON.stringify(fields))
  if (a.data !== undefined) hash.update(a.data)
  return hash.digest('base64')
}

const hex = (n: bigint | undefined): string | undefined => n?.toString(16)

async function estimate(chain: ChainReader, record: BlockRecord, args: CallArgs, opts: EstimateOptions): Promise<EstimateResult> {
  // geth's CallDefaults: a given gas above the cap is lowered to it.
  const capped: CallArgs = args.gas !== undefined && args.gas > opts.gasCap ? { ...args, gas: opts.gasCap } : args
  const session = await CallSession.open(chain, record, capped, opts.overrides)
  const block = opts.overrides?.block
  const blockGasLimit = block?.gasLimit ?? record.block.header.gasLimit
  let executions = 0
  let evmRuns = 0
  /** Set once the run at `hi` has shown the lowest gas limit that succeeds. */
  let lowestGas: bigint | undefined
  const run = async (gas: bigint, trace = false): Promise<{ failed: boolean; outcome?: ExecutionOutcome }> => {
    executions++
    if (lowestGas !== undefined) return { failed: gas < lowestGas }
    evmRuns++
    try {
      const outcome = await session.execute(gas, opts.budget === undefined ? { trace } : { trace, budget: opts.budget })
      return { failed: outcome.failed, outcome }
    } catch (err) {
      if (err instanceof CallError && err.intrinsic) return { failed: true }
      if (err instanceof CallError) throw new CallError(`failed with ${gas} gas: ${err.message}`)
      throw err
    }
  }

  let hi = capped.gas !== undefined && capped.gas >= TX_GAS ? capped.gas : blockGasLimit
  if (hi > MAX_TX_GAS && session.osaka) hi = MAX_TX_GAS

  if (session.feeCap !== 0n) {
    let available = await session.balance()
    const value = capped.value ?? 0n
    if (value >= available) throw new CallError('insufficient funds for transfer')
    available -= value
    const blobs = BigInt(capped.blobVersionedHashes?.length ?? 0)
    if (blobs > 0n) {
      const blobCost = blobs * 131072n * (capped.maxFeePerBlobGas ?? 0n)
      if (blobCost >= available) throw new CallError('insufficient funds for gas * price + value')
      available -= blobCost
    }
    const allowance = available / session.feeCap
    if (allowance < 1n << 64n && hi > allowance) hi = allowance
  }
  if (opts.gasCap !== 0n && hi > opts.gasCap) hi = opts.gasCap

  if ((capped.data?.length ?? 0) === 0 && capped.to !== undefined && !(await session.targetHasCode())) {
    const transfer = await run(TX_GAS).catch((err: unknown) => {
      if (err instanceof ExecutionTimeout) throw err
      return { failed: true }
    })
    if (!transfer.failed) return { gas: TX_GAS, executions, evmRuns }
  }

  const first = await run(hi, opts.decideFromTrace !== false)
  if (first.failed) {
    const outcome = first.outcome
    if (outcome && outcome.error !== 'out of gas') {
      if (outcome.reverted) throw new EstimateRevert(outcome.returnValue)
      throw new CallError(outcome.error ?? 'execution failed')
    }
    throw new CallError(`gas required exceeds allowance (${hi})`)
  }
  const result = first.outcome!
  lowestGas = result.lowestGas
  let lo = result.usedGas - 1n

  const optimistic = ((result.maxUsedGas + CALL_STIPEND) * 64n) / 63n
  if (optimistic < hi) {
    if ((await run(optimistic)).failed) lo = optimistic
    else hi = optimistic
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ERROR_RATIO) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n
    if ((await run(mid)).failed) lo = mid
    else hi = mid
  }
  return { gas: hi, executions, evmRuns }
}
