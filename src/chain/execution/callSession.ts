/**
 * Runs a call (an unsigned message from any sender) on top of a block's state, the way geth's
 * eth_call and eth_estimateGas do: full transaction semantics through `runTx` (intrinsic gas,
 * access lists, refunds, the EIP-7623 calldata floor, fee and balance checks), nonce and EOA
 * checks skipped, and the base fee zeroed when the call names no fee at all. Every execution
 * is rolled back: nothing touches the chain's state.
 *
 * A session runs on the VM kept for its block (./blockCalls.ts), or on a VM of its own when it has
 * state or block overrides; its transaction is built once (./callTransaction.ts). A plain call
 * (./plainCall.ts: no fee, value, nonce or lists, no overrides) without a tracer runs through
 * `evm.runCall` with runTx's set-up made there, and builds no transaction. Calls run from
 * any address, as geth's do: the sender is exempt from EIP-3607 (see
 * `BlockStateManager.exemptFromEip3607`).
 */
import type { Block } from '@ethereumjs/block'
import { TransactionType } from '@ethereumjs/tx'
import { createAddressFromString, createZeroAddress, toChecksumAddress } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { collectLines } from '../vm/consoleTap.ts'
import { checkpointsOf, endGuard, ExecutionTimeout, guardFor, restoreVm } from '../vm/executionGuard.ts'
import { ForkReadError } from '../vm/forkState.ts'
import type { ExecutionBudget } from '../vm/executionGuard.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'
import { BlockCalls, callsAt } from './blockCalls.ts'
import { CallError } from './callArgs.ts'
import type { CallArgs, CallOverrides, ExecutionOutcome } from './callArgs.ts'
import { CallTransaction, callType } from './callTransaction.ts'
import { balanceRefusal, coverBlobFee, feeCapRefusal } from './feeChecks.ts'
import { lowestGasOf, txGasFloor } from './gasTrace.ts'
import { plainCallOf, plainRuns, runPlainCall } from './plainCall.ts'
import { callLayerOver } from '../vm/callLayer.ts'
import type { PlainCall } from './plainCall.ts'
import type { GasTrace } from './gasTrace.ts'
import { gethCallError, gethHaltName } from './gethErrors.ts'

const BLOB_GAS_PER_BLOB = 131072n

/**
 * Attached to the VM for one execution (a tracer: ../tracing/), with the block it runs in; returns
 * what detaches it. Executions on a VM take turns, so nothing else runs meanwhile.
 */
export type ExecutionObserver = (vm: VM, block: Block) => () => void

/** A prepared call at one block: `execute(gasLimit)` runs it, as often as the estimator needs. */
export class CallSession {
  readonly record: BlockRecord
  readonly args: CallArgs
  readonly from: Address
  readonly #calls: BlockCalls
  readonly #block: Block
  readonly #transaction: CallTransaction
  /** The fee cap the call is willing to pay per gas (geth's normalized `feeCap`). */
  readonly feeCap: bigint
  /** A VM of the call's own (it has overrides), not the block's shared one. */
  readonly #ownVm: boolean
  /**
   * geth's refusal of the fee fields (`preCheck`), answered by every execution as geth's are: each
   * method frames it its own way (`err: ... (supplied gas N)`, `failed with N gas: ...`).
   */
  #refusal: string | undefined
  /** What EthereumJS charges for the blobs of a call that names no blob fee, and geth does not (see `coverBlobFee`). */
  #blobCredit = 0n
  /** The call when it can run without runTx (./plainCall.ts): an untraced execution of it does. */
  #plain: PlainCall | undefined

  private constructor(calls: BlockCalls, block: Block, args: CallArgs, type: number, feeCap: bigint, ownVm: boolean) {
    this.#ownVm = ownVm
    this.#calls = calls
    this.record = calls.record
    this.#block = block
    this.args = args
    this.feeCap = feeCap
    this.from = args.from ? createAddressFromString(args.from) : createZeroAddress()
    this.#transaction = new CallTransaction(args, type, this.from, block, calls.txCommon)
  }

  /**
   * Checks the fee fields as geth's `CallDefaults` does and prepares the call on the VM kept for
   * `record`'s state, with `record`'s header as the block context.
   */
  static async open(chain: ChainReader, record: BlockRecord, args: CallArgs, overrides?: CallOverrides): Promise<CallSession> {
    const header = overrides?.block === undefined ? record.block.header : { baseFeePerGas: overrides.block.baseFeePerGas ?? record.block.header.baseFeePerGas }
    if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)) {
      throw new CallError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
    }
    if (args.chainId !== undefined && args.chainId !== chain.chainId) {
      throw new CallError(`chainId does not match node's (have=${args.chainId}, want=${chain.chainId})`)
    }
    const baseFee = header.baseFeePerGas
    const type = callType(args, baseFee)
    const feeCap = args.maxFeePerGas ?? args.gasPrice ?? 0n
    const tip = args.maxPriorityFeePerGas ?? args.gasPrice ?? 0n
    if (type === TransactionType.BlobEIP4844 && args.to === undefined) throw new CallError('blob transaction of type create')
    if (type === TransactionType.EOACodeEIP7702 && args.to === undefined) throw new CallError('set code transaction of type create')

    const calls = overrides === undefined ? await callsAt(chain, record) : await BlockCalls.open(chain, record, overrides)
    const zeroFees = feeCap === 0n && tip === 0n && baseFee !== undefined
    const session = new CallSession(calls, calls.blockFor(zeroFees), args, type, feeCap, overrides !== undefined)
    if (baseFee !== undefined) session.#refusal = feeCapRefusal(() => toChecksumAddress(session.from.toString()), feeCap, tip, true)
    if (overrides === undefined) session.#plain = plainCallOf(args, calls.txCommon, type, feeCap, tip)
    if (type === TransactionType.BlobEIP4844 && !args.maxFeePerBlobGas) {
      session.#blobCredit = BigInt(args.blobVersionedHashes!.length) * BLOB_GAS_PER_BLOB * session.#block.header.getBlobGasPrice()
    }
    return session
  }

  /** Whether the call runs under Osaka (at the overridden block's height and time, with block overrides). */
  get osaka(): boolean {
    return this.#calls.osaka
  }

  /** The sender's balance at the block (state overrides included). */
  async balance(): Promise<bigint> {
    return (await this.#account(this.from))?.balance ?? 0n
  }

  /** Whether `to` has code (geth's plain-transfer shortcut needs to know). */
  async targetHasCode(): Promise<boolean> {
    if (this.args.to === undefined) return false
    return (await this.#account(createAddressFromString(this.args.to)))?.isContract() ?? false
  }

  /** An account at the block; on a VM of the call's own, as its state overrides left it. */
  #account(address: Address): Promise<Account | undefined> {
    const state = this.#calls.state
    // Between executions the shared VM's caches may hold nothing but the block; a VM of the call's
    // own holds the overrides under its open checkpoint.
    return this.#ownVm ? state.getAccount(address) : state.blockAccount(address)
  }

  /**
   * Runs the call with `gasLimit`; throws `CallError` for failures outside the EVM. With `trace`,
   * a success answers `lowestGas` when the trace decides it. With `budget`, the execution lets
   * other requests take turns and throws `ExecutionTimeout` once the budget's time is up (the VM
   * restored as it was). With `observe`, a tracer watches this execution. With `console`, the
   * contracts' `console.log` lines go there (../vm/consoleTap.ts).
   */
  execute(gasLimit: bigint, opts: { trace?: boolean; budget?: ExecutionBudget; observe?: ExecutionObserver; console?: string[] } = {}): Promise<ExecutionOutcome> {
    const lines = opts.console
    return this.#calls.inTurn(() => {
      const run = () => this.#execute(gasLimit, opts.trace === true, opts.budget, opts.observe)
      return lines === undefined ? run() : collectLines(this.#calls.vm, lines, run)
    })
  }

  async #execute(gasLimit: bigint, traced: boolean, budget: ExecutionBudget | undefined, observe: ExecutionObserver | undefined): Promise<ExecutionOutcome> {
    if (this.#refusal !== undefined) throw new CallError(this.#refusal)
    const calls = this.#calls
    const vm = calls.vm
    // Creations and EIP-7702 calls are left to the search: their setup has gas rules of its own.
    const trace: GasTrace | undefined =
      traced && calls.traceDecides && this.args.to !== undefined && this.args.authorizationList === undefined
        ? { gasDependent: false, minGasLeftAtSstore: undefined }
        : undefined
    // An observed execution goes through runTx (the tracers follow runTx's events).
    const plain = observe === undefined && this.#plain !== undefined && plainRuns(this.#plain, gasLimit) ? this.#plain : undefined
    const tx = plain === undefined ? this.#transaction.at(gasLimit) : undefined
    const guard = budget === undefined ? undefined : guardFor(budget)
    // A plain call's writes go to a layer of its own, dropped with it: the block's state needs no checkpoint.
    const layer = plain === undefined ? undefined : callLayerOver(vm.stateManager, vm.common)
    const checkpoints = checkpointsOf(vm)
    calls.trace = trace
    calls.guard = guard
    if (layer === undefined) await vm.evm.journal.checkpoint()
    if (this.#blobCredit > 0n) await coverBlobFee(calls.state, this.from, this.#blobCredit)
    // runTx refuses a sender with code (EIP-3607), geth does not; a plain call makes no such check.
    if (plain === undefined) calls.state.exemptFromEip3607(this.from)
    let failure: CallError | undefined
    /** An execution cut short: its time ran out, or a forked state's upstream read failed (said as is). */
    let timedOut: ExecutionTimeout | ForkReadError | undefined
    const detach = observe?.(vm, this.#block)
    try {
      const result =
        plain !== undefined
          ? await runPlainCall(vm, plain, this.from, gasLimit, this.#block, layer)
          : await loadedVmLibraries().vm.runTx(vm, {
              tx: tx!,
              block: this.#block,
              skipNonce: true,
              skipBlockGasLimitValidation: true,
              skipHardForkValidation: true,
            })
      const halt = result.execResult.exceptionError?.error
      const outcome: ExecutionOutcome = {
        failed: halt !== undefined,
        error: halt === undefined ? undefined : gethHaltName(vm, halt, result.execResult.runState?.opCode),
        reverted: halt === 'revert',
        returnValue: result.execResult.returnValue,
        usedGas: result.totalGasSpent,
        maxUsedGas: result.totalGasSpent + result.gasRefund,
      }
      if (trace !== undefined && !trace.gasDependent && halt === undefined) {
        outcome.lowestGas = lowestGasOf(plain ?? txGasFloor(tx!, this.from), gasLimit, result.execResult.executionGasUsed, trace, vm.common)
      }
      return outcome
    } catch (err) {
      if (err instanceof ExecutionTimeout || err instanceof ForkReadError) timedOut = err
      else failure = gethCallError(err, gasLimit, this.from.toString())
    } finally {
      detach?.()
      calls.trace = undefined
      if (guard !== undefined) endGuard(guard)
      calls.guard = undefined
      calls.state.endEip3607Exemption()
      // A timeout left the nested frames' checkpoints open, and so may anything a plain call's EVM
      // throws (runTx closes its own on a throw): back to the count before this execution.
      if (timedOut !== undefined || (plain !== undefined && failure !== undefined)) await restoreVm(vm, checkpoints)
      else if (layer === undefined) await vm.evm.journal.revert()
    }
    if (timedOut !== undefined) throw timedOut
    const refused = failure!
    if (refused.message.startsWith('insufficient funds')) throw new CallError((await this.fundsShortfall(gasLimit)) ?? refused.message)
    throw refused
  }

  /**
   * geth's balance check (`buyGas`): `balance >= gas * feeCap + value (+ blob gas * blob fee cap)`,
   * in its words, or undefined when the sender can pay. EthereumJS checks with the effective price
   * and words it otherwise.
   */
  async fundsShortfall(gasLimit: bigint): Promise<string | undefined> {
    const a = this.args
    const blobGas = BigInt(a.blobVersionedHashes?.length ?? 0) * 131072n
    const want = gasLimit * this.feeCap + (a.value ?? 0n) + blobGas * (a.maxFeePerBlobGas ?? 0n)
    return balanceRefusal(toChecksumAddress(this.from.toString()), await this.balance(), want)
  }
}
