/**
 * Runs a call (an unsigned message from any sender) on top of a block's state, the way geth's
 * eth_call and eth_estimateGas do: full transaction semantics through `runTx` (intrinsic gas,
 * access lists, refunds, the EIP-7623 calldata floor, fee and balance checks), nonce and EOA
 * checks skipped, and the base fee zeroed when the call names no fee at all. Every execution
 * is rolled back: nothing touches the chain's state.
 *
 * Calls at one block share one VM (`BlockCalls`): its state manager keeps writes in EthereumJS's
 * caches, which the rollback discards, and remembers the block's state as read (./blockState.ts),
 * so a call pays neither a VM copy nor trie walks for what an earlier call already read. Executions
 * on a shared VM take turns (one checkpoint at a time).
 *
 * A call with state or block overrides (./overrides.ts) gets a VM of its own, at the fork its
 * block overrides name, with the overrides applied under a checkpoint that is never committed:
 * the shared VM, and the estimator's kept answers, never see them.
 *
 * Calls run from any address, as geth's do: the sender is exempt from EIP-3607 (see
 * `BlockStateManager.exemptFromEip3607`). BLOCKHASH never fails (../blocks/blockHashes.ts).
 */
import { Block, createBlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createTx, getCalldataFloorGas, paramsTx, TransactionType } from '@ethereumjs/tx'
import type { TypedTransaction, TypedTxData } from '@ethereumjs/tx'
import { createAddressFromString, createZeroAddress, toChecksumAddress } from '@ethereumjs/util'
import type { Account, Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { BlockStateManager } from '../vm/blockState.ts'
import { AncestorHashes } from '../blocks/blockHashes.ts'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { checkpointsOf, ExecutionTimeout, guardFor, guardVm, restoreVm } from '../vm/executionGuard.ts'
import type { ExecutionBudget, ExecutionGuard } from '../vm/executionGuard.ts'
import { loadedVmLibraries, stateLibraries, vmLibraries } from '../vm/vmLibraries.ts'
import { applyStateOverride, overriddenBlock, OverrideError } from './overrides.ts'
import type { BlockOverrides, Precompiles, StateOverride } from './overrides.ts'

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
interface GasTrace {
  gasDependent: boolean
  /** The least gas left when an SSTORE began (the EIP-2200 sentry fails it at 2300 or less). */
  minGasLeftAtSstore: bigint | undefined
}

type OpcodeEntry = { opHandler: (...a: unknown[]) => unknown; gasHandler?: (...a: unknown[]) => unknown }

/** geth's names for the EVM's halts (core/vm/errors.go), keyed by EthereumJS's. */
const GETH_HALT_NAMES: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode',
  revert: 'execution reverted',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value out of range': 'return data out of bounds',
}

/** How many blocks keep a VM for calls (the most recently used ones). */
const BLOCK_VMS_KEPT = 4

/**
 * One VM at one block's state for every call there: the block's hardfork, a state manager with
 * caches over the block's state root, and the block as calls see it. Executions take turns.
 */
export class BlockCalls {
  readonly vm: VM
  readonly state: BlockStateManager
  readonly record: BlockRecord
  /** The block calls execute in: the record's, or the record's with block overrides. */
  readonly block: Block
  #zeroFeeBlock: Block | undefined
  /**
   * The precompiles the EVM runs while a call executes, when state overrides moved or replaced
   * some: runTx warms the fork's own (as geth's `Prepare` warms `ActivePrecompiles(rules)`), then
   * the EVM runs these.
   */
  #executedPrecompiles: Precompiles | undefined
  #turn: Promise<unknown> = Promise.resolve()
  /** The trace of the execution under way, when it is traced (executions take turns). */
  trace: GasTrace | undefined
  /** The time limit of the execution under way, when it has one (see ../vm/executionGuard.ts). */
  guard: ExecutionGuard | undefined
  /** Whether a trace can decide other gas limits under this block's rules (see `lowestGas`). */
  readonly traceDecides: boolean
  /** The Common every call's transaction here shares (see `sharedTxCommon`). */
  readonly txCommon: Common

  private constructor(vm: VM, state: BlockStateManager, record: BlockRecord, block: Block) {
    this.vm = vm
    this.state = state
    this.record = record
    this.block = block
    const common = vm.common
    this.txCommon = sharedTxCommon(common)
    this.traceDecides = common.gteHardfork('istanbul') && !UNDECIDED_EIPS.some((eip) => common.isActivatedEIP(eip))
    if (this.traceDecides) this.#watchOpcodes()
    guardVm(vm, () => this.guard)
  }

  /**
   * Wraps this VM's handlers of the gas-dependent opcodes and of SSTORE so that a traced execution
   * notes them; an untraced one pays a property check per such opcode. The VM is this block's
   * own, for calls only.
   */
  #watchOpcodes(): void {
    // Element access: the opcode table is internal to the EVM; the interpreter looks handlers up in it.
    const map = (this.vm.evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap
    const invalid = map[0xfe]
    for (const op of GAS_DEPENDENT_OPCODES) {
      const entry = map[op]
      if (entry === undefined || entry === invalid) continue
      const handler = entry.opHandler
      map[op] = {
        ...entry,
        opHandler: (...a: unknown[]) => {
          if (this.trace !== undefined) this.trace.gasDependent = true
          return handler(...a)
        },
      }
    }
    const sstore = map[SSTORE]
    const gasHandler = sstore?.gasHandler
    if (sstore === undefined || gasHandler === undefined) return
    map[SSTORE] = {
      ...sstore,
      gasHandler: (...a: unknown[]) => {
        const trace = this.trace
        if (trace !== undefined) {
          const left = (a[0] as { interpreter: { getGasLeft(): bigint } }).interpreter.getGasLeft()
          if (trace.minGasLeftAtSstore === undefined || left < trace.minGasLeftAtSstore) trace.minGasLeftAtSstore = left
        }
        return gasHandler(...a)
      },
    }
  }

  /**
   * A VM at `record`'s state. With `overrides` (a VM of the call's own): at the fork of the
   * overridden number and time, executing in the overridden block, its state overrides applied
   * under a checkpoint that stays open (each execution checkpoints and reverts on top of it).
   */
  static async open(chain: ChainReader, record: BlockRecord, overrides?: CallOverrides): Promise<BlockCalls> {
    const header = record.block.header
    const block = overrides?.block
    if (block?.beaconRoot !== undefined) throw new OverrideError('block override "beaconRoot" is not supported for this RPC method')
    if (block?.withdrawals !== undefined) throw new OverrideError('block override "withdrawals" is not supported for this RPC method')
    // The first call imports @ethereumjs/vm and @ethereumjs/evm (not at start: see vmLibraries.ts).
    const [{ vm: vmLib, evm: evmLib }, { statemanager, blockState }, chainState] = await Promise.all([vmLibraries(), stateLibraries(), chain.getState()])
    const common = chain.common.copy()
    common.setHardforkBy({ blockNumber: block?.number ?? header.number, timestamp: block?.time ?? header.timestamp })
    const state = await blockState.BlockStateManager.at(chainState, header.stateRoot, { caches: new statemanager.Caches() })
    // BLOCKHASH walks back from the block's real header, as geth's GetHashFn does under overrides.
    const blockchain = new AncestorHashes(chain.blockchain, header)
    const evm = await evmLib.createEVM({ common, stateManager: state, blockchain })
    const vm = await vmLib.createVM({ common, stateManager: state, blockchain, evm })
    const calls = new BlockCalls(vm, state, record, block === undefined ? record.block : overriddenBlock(record.block, common, block))
    if (overrides?.state !== undefined) {
      await vm.evm.journal.checkpoint()
      const precompiles: Precompiles = new Map(vm.evm.precompiles)
      await applyStateOverride(state, overrides.state, precompiles)
      if (!samePrecompiles(precompiles, vm.evm.precompiles)) calls.#executeWith(precompiles)
    }
    return calls
  }

  /** Runs the EVM with `precompiles` once runTx has warmed the fork's own. */
  #executeWith(precompiles: Precompiles): void {
    this.#executedPrecompiles = precompiles
    const evm = this.vm.evm as unknown as { _precompiles: Precompiles; runCall: (opts: unknown) => Promise<unknown> }
    const rules = evm._precompiles
    const runCall = evm.runCall.bind(evm)
    // runTx warms `evm.precompiles`, then calls runCall for the top frame (inner frames come with a
    // message): the EVM runs the overridden set, and the next execution warms the fork's again.
    evm.runCall = async (opts) => {
      if ((opts as { message?: unknown }).message !== undefined) return runCall(opts)
      evm._precompiles = precompiles
      try {
        return await runCall(opts)
      } finally {
        evm._precompiles = rules
      }
    }
  }

  /**
   * The block a call executes in: the block itself, or for a call that pays no fee the block with
   * base fee 0 (geth zeroes it, and the blob base fee, so that a fee-less call can run at all;
   * BASEFEE then reads 0, as it does on geth).
   */
  blockFor(zeroFees: boolean): Block {
    if (!zeroFees) return this.block
    this.#zeroFeeBlock ??= withZeroBaseFee(this.block, this.vm)
    return this.#zeroFeeBlock
  }

  /** Runs `fn` when every earlier turn has finished: one execution (checkpoint) at a time. */
  inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#turn.then(fn)
    this.#turn = result.catch(() => undefined)
    return result
  }
}

/** Each chain's block VMs, most recently used last. A new block (a new record) gets its own. */
const blockCalls = new WeakMap<ChainReader, Map<BlockRecord, Promise<BlockCalls>>>()

function callsAt(chain: ChainReader, record: BlockRecord): Promise<BlockCalls> {
  let kept = blockCalls.get(chain)
  if (!kept) blockCalls.set(chain, (kept = new Map()))
  let calls = kept.get(record)
  if (calls) {
    kept.delete(record)
  } else {
    calls = BlockCalls.open(chain, record)
    // A failed open is not kept.
    calls.catch(() => kept.delete(record))
    if (kept.size >= BLOCK_VMS_KEPT) kept.delete(kept.keys().next().value!)
  }
  kept.set(record, calls)
  return calls
}

/** A prepared call at one block: `execute(gasLimit)` runs it, as often as the estimator needs. */
export class CallSession {
  readonly record: BlockRecord
  readonly args: CallArgs
  readonly from: Address
  readonly #calls: BlockCalls
  readonly #vm: VM
  readonly #block: Block
  readonly #type: number
  /** The fee cap the call is willing to pay per gas (geth's normalized `feeCap`). */
  readonly feeCap: bigint
  /** The call's transaction, built once, and the highest gas limit it was built (checked) with. */
  #tx: TypedTransaction | undefined
  #checkedGas = -1n
  /** A VM of the call's own (it has overrides), not the block's shared one. */
  readonly #ownVm: boolean

  private constructor(calls: BlockCalls, block: Block, args: CallArgs, type: number, feeCap: bigint, ownVm: boolean) {
    this.#ownVm = ownVm
    this.#calls = calls
    this.#vm = calls.vm
    this.record = calls.record
    this.#block = block
    this.args = args
    this.#type = type
    this.feeCap = feeCap
    this.from = args.from ? createAddressFromString(args.from) : createZeroAddress()
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
    if (args.maxFeePerGas !== undefined && tip > args.maxFeePerGas) {
      throw new CallError(
        `max priority fee per gas higher than max fee per gas: address ${(args.from ?? createZeroAddress().toString())}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${args.maxFeePerGas}`,
      )
    }
    if (type === TransactionType.BlobEIP4844 && args.to === undefined) throw new CallError('blob transaction of type create')
    if (type === TransactionType.EOACodeEIP7702 && args.to === undefined) throw new CallError('set code transaction of type create')

    const calls = overrides === undefined ? await callsAt(chain, record) : await BlockCalls.open(chain, record, overrides)
    const zeroFees = feeCap === 0n && tip === 0n && baseFee !== undefined
    return new CallSession(calls, calls.blockFor(zeroFees), args, type, feeCap, overrides !== undefined)
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
   * restored as it was).
   */
  execute(gasLimit: bigint, opts: { trace?: boolean; budget?: ExecutionBudget } = {}): Promise<ExecutionOutcome> {
    return this.#calls.inTurn(() => this.#execute(gasLimit, opts.trace === true, opts.budget))
  }

  async #execute(gasLimit: bigint, traced: boolean, budget: ExecutionBudget | undefined): Promise<ExecutionOutcome> {
    const tx = this.#transaction(gasLimit)
    const vm = this.#vm
    const calls = this.#calls
    // Creations and EIP-7702 calls are left to the search: their setup has gas rules of its own.
    const trace: GasTrace | undefined =
      traced && calls.traceDecides && this.args.to !== undefined && this.args.authorizationList === undefined
        ? { gasDependent: false, minGasLeftAtSstore: undefined }
        : undefined
    const guard = budget === undefined ? undefined : guardFor(budget)
    const checkpoints = checkpointsOf(vm)
    calls.trace = trace
    calls.guard = guard
    await vm.evm.journal.checkpoint()
    calls.state.exemptFromEip3607(this.from)
    let failure: CallError | undefined
    let timedOut: ExecutionTimeout | undefined
    try {
      const result = await loadedVmLibraries().vm.runTx(vm, {
        tx,
        block: this.#block,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      })
      const halt = result.execResult.exceptionError?.error
      const outcome: ExecutionOutcome = {
        failed: halt !== undefined,
        error: halt === undefined ? undefined : this.#haltName(halt, result.execResult.runState?.opCode),
        reverted: halt === 'revert',
        returnValue: result.execResult.returnValue,
        usedGas: result.totalGasSpent,
        maxUsedGas: result.totalGasSpent + result.gasRefund,
      }
      if (trace !== undefined && !trace.gasDependent && halt === undefined) {
        outcome.lowestGas = this.#lowestGas(tx, gasLimit, result.execResult.executionGasUsed, trace)
      }
      return outcome
    } catch (err) {
      if (err instanceof ExecutionTimeout) timedOut = err
      else failure = this.#gethError(err, gasLimit)
    } finally {
      calls.trace = undefined
      calls.guard = undefined
      calls.state.endEip3607Exemption()
      // A timeout left the nested frames' checkpoints open: back to the count before this execution.
      if (timedOut !== undefined) await restoreVm(vm, checkpoints)
      else await vm.evm.journal.revert()
    }
    if (timedOut !== undefined) throw timedOut
    const refused = failure!
    if (refused.message.startsWith('insufficient funds')) throw new CallError((await this.fundsShortfall(gasLimit)) ?? refused.message)
    throw refused
  }

  /**
   * The lowest gas limit at which a gas-independent trace that succeeded with `gasLimit` succeeds:
   * the intrinsic gas plus what the EVM used (it only ever adds up), the EIP-7623 calldata floor,
   * and more than the 2300 sentry gas left at every SSTORE (gas left there is `gasLimit` less a
   * fixed amount).
   */
  #lowestGas(tx: TypedTransaction, gasLimit: bigint, executionGasUsed: bigint, trace: GasTrace): bigint {
    let lowest = tx.getIntrinsicGas() + executionGasUsed
    const floor = getCalldataFloorGas(tx, this.from)
    if (floor > lowest) lowest = floor
    if (trace.minGasLeftAtSstore !== undefined) {
      const sentry = gasLimit - trace.minGasLeftAtSstore + this.#vm.common.param('sstoreSentryEIP2200Gas') + 1n
      if (sentry > lowest) lowest = sentry
    }
    return lowest
  }

  #haltName(halt: string, opcode: number | undefined): string {
    return gethHaltName(this.#vm, halt, opcode)
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
    const have = await this.balance()
    if (have >= want) return undefined
    return `insufficient funds for gas * price + value: address ${toChecksumAddress(this.from.toString())} have ${have} want ${want}`
  }

  /**
   * The call as a transaction with `gasLimit`. It is built (and checked by EthereumJS) once per
   * higher limit; a lower limit reuses it, since every check of the gas limit at construction
   * (below 2^64, the EIP-7825 cap, `gas * price` below 2^256) holds for a lower limit if it held
   * for a higher one. Executions take turns, so changing the limit in place is safe.
   */
  #transaction(gasLimit: bigint): TypedTransaction {
    if (this.#tx !== undefined && gasLimit <= this.#checkedGas) {
      ;(this.#tx as { gasLimit: bigint }).gasLimit = gasLimit
      return this.#tx
    }
    const tx = this.#build(gasLimit)
    this.#tx = tx
    this.#checkedGas = gasLimit
    return tx
  }

  #build(gasLimit: bigint): TypedTransaction {
    const a = this.args
    const data: Record<string, unknown> = {
      type: this.#type,
      nonce: a.nonce ?? 0n,
      gasLimit,
      to: a.to,
      value: a.value ?? 0n,
      data: a.data ?? new Uint8Array(),
    }
    if (this.#type === TransactionType.Legacy || this.#type === TransactionType.AccessListEIP2930) {
      data.gasPrice = a.gasPrice ?? 0n
    } else {
      data.maxFeePerGas = a.maxFeePerGas ?? a.gasPrice ?? 0n
      data.maxPriorityFeePerGas = a.maxPriorityFeePerGas ?? a.gasPrice ?? 0n
    }
    if (this.#type !== TransactionType.Legacy) data.accessList = a.accessList ?? []
    if (this.#type === TransactionType.BlobEIP4844) {
      data.blobVersionedHashes = a.blobVersionedHashes
      // EthereumJS insists the fee cover the block's blob price; geth zeroes that price instead
      // when the call names no blob fee. Paying the minimum makes the same execution possible.
      data.maxFeePerBlobGas = a.maxFeePerBlobGas || this.#block.header.getBlobGasPrice()
    }
    if (this.#type === TransactionType.EOACodeEIP7702) {
      data.authorizationList = (a.authorizationList ?? []).map((auth) => ({
        chainId: `0x${auth.chainId.toString(16)}`,
        address: auth.address,
        nonce: `0x${auth.nonce.toString(16)}`,
        yParity: `0x${auth.yParity.toString(16)}`,
        r: `0x${auth.r.toString(16)}`,
        s: `0x${auth.s.toString(16)}`,
      }))
    }
    let tx: TypedTransaction
    try {
      tx = createTx(data as TypedTxData, { common: this.#calls.txCommon, freeze: false })
    } catch (err) {
      throw this.#gethError(err, gasLimit)
    }
    const from = this.from
    // An unsigned message from any address: geth's calls are not signed either.
    tx.getSenderAddress = () => from
    return tx
  }

  /** EthereumJS's validation failures in geth's words, as geth's estimator wraps them. */
  #gethError(err: unknown, gasLimit: bigint): CallError {
    const message = withoutEthereumJsContext(err)
    const from = this.from.toString()
    if (/INTRINSIC_GAS_TOO_LOW|gasLimit is too low|floor/i.test(message)) {
      return new CallError(`intrinsic gas too low: have ${gasLimit}`, true)
    }
    let m: RegExpMatchArray | null
    if ((m = message.match(/(?:upfront|max) cost is: (\d+) and the sender's account \(\S+\) only has: (\d+)/))) {
      return new CallError(`insufficient funds for gas * price + value: address ${from} have ${m[2]} want ${m[1]}`)
    }
    if ((m = message.match(/(?:maxFeePerGas|gasPrice) \((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/))) {
      return new CallError(`max fee per gas less than block base fee: address ${from}, maxFeePerGas: ${m[1]}, baseFee: ${m[2]}`)
    }
    if (/maxFeePerBlobGas/.test(message)) return new CallError('max fee per blob gas less than block blob gas fee')
    if (/gas limit.*(?:EIP-7825|exceeds|maximum)/i.test(message)) {
      return new CallError(`transaction gas limit too high (cap: 16777216, tx: ${gasLimit})`)
    }
    return new CallError(message)
  }
}

/**
 * A Common for the transactions of calls, shared by all of them. A transaction's constructor copies
 * the Common it is given and adds the transaction parameters to the copy, which rebuilds the
 * parameter cache: about 0.4 ms, as much as executing an ERC-20 transfer. This one has them
 * already, and answers a copy with itself and the same parameters with nothing. Nothing changes a
 * call transaction's Common: runTx runs calls with `skipHardForkValidation`, so it never sets
 * the transaction's hardfork.
 */
function sharedTxCommon(common: Common): Common {
  const shared = common.copy()
  shared.updateParams(paramsTx)
  const update = shared.updateParams.bind(shared)
  shared.copy = () => shared
  shared.updateParams = (params) => {
    if (params !== paramsTx) update(params)
  }
  return shared
}

/**
 * The block as a fee-less call sees it: base fee 0. The header is built as it is and the fee
 * changed afterwards, since the constructor refuses any base fee but the initial one on the
 * London fork block.
 */
function withZeroBaseFee(block: Block, vm: VM): Block {
  const header = createBlockHeader(block.header.toJSON(), { common: vm.common, freeze: false, skipConsensusFormatValidation: true })
  ;(header as { baseFeePerGas?: bigint }).baseFeePerGas = 0n
  // A blob base fee given as a block override stays (geth zeroes it only for a blob fee cap of 0).
  if (Object.hasOwn(block.header, 'getBlobGasPrice')) header.getBlobGasPrice = block.header.getBlobGasPrice
  return new Block(header, [], [], block.withdrawals, { common: vm.common })
}

/** geth's wording of an EVM halt. EthereumJS adds the location to a bad jump and omits the opcode. */
export function gethHaltName(vm: VM, halt: string, opcode: number | undefined): string {
  if (halt.startsWith('invalid JUMP')) return 'invalid jump destination'
  if (halt === 'invalid opcode') return `invalid opcode: ${opcodeName(vm, opcode)}`
  return GETH_HALT_NAMES[halt] ?? halt
}

/** Whether two precompile sets are the same addresses with the same implementations. */
export function samePrecompiles(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  if (a.size !== b.size) return false
  for (const [key, fn] of a) if (b.get(key) !== fn) return false
  return true
}

/** geth's name of the halting opcode (`core/vm/opcodes.go`): `INVALID`, or `opcode 0xc not defined`. */
function opcodeName(vm: VM, opcode: number | undefined): string {
  if (opcode === undefined) return 'INVALID'
  const known = loadedVmLibraries().evm.getOpcodesForHF(vm.common).opcodes.get(opcode)
  return known ? known.name : `opcode 0x${opcode.toString(16)} not defined`
}

/** The transaction type geth would execute the call as. */
function callType(args: CallArgs, baseFee: bigint | undefined): number {
  if (args.authorizationList !== undefined) return TransactionType.EOACodeEIP7702
  if (args.blobVersionedHashes !== undefined) return TransactionType.BlobEIP4844
  if (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined) return TransactionType.FeeMarketEIP1559
  if (baseFee !== undefined && args.gasPrice === undefined) return TransactionType.FeeMarketEIP1559
  if (args.accessList !== undefined) return TransactionType.AccessListEIP2930
  return TransactionType.Legacy
}
