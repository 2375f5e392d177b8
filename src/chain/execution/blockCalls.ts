/**
 * One VM per block for the calls run there (`BlockCalls`): the block's hardfork, a state manager
 * with caches over the block's state root (writes stay in the caches, which each call's rollback
 * discards; reads of the block's own state are remembered, ../vm/blockState.ts), and the block as
 * calls see it. A call pays neither a VM copy nor trie walks for what an earlier call at that
 * block already read. Executions on one VM take turns (one checkpoint at a time).
 *
 * A call with state or block overrides (./overrides.ts) gets a VM of its own, at the fork its
 * block overrides name, with the overrides applied under a checkpoint that is never committed:
 * the shared VM, and the estimator's kept answers, never see them. BLOCKHASH never fails
 * (../blocks/blockHashes.ts).
 */
import { Block, createBlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { AncestorHashes } from '../blocks/blockHashes.ts'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import { guardVm } from '../vm/executionGuard.ts'
import type { ExecutionGuard } from '../vm/executionGuard.ts'
import { stateLibraries, vmLibraries } from '../vm/vmLibraries.ts'
import type { CallOverrides } from './callArgs.ts'
import { traceDecidesUnder, watchGasDependence } from './gasTrace.ts'
import type { GasTrace } from './gasTrace.ts'
import { applyStateOverride, overriddenBlock, OverrideError } from './overrides.ts'
import type { Precompiles } from './overrides.ts'

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
  /** Whether a trace can decide other gas limits under this block's rules (see ./gasTrace.ts). */
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
    this.traceDecides = traceDecidesUnder(common)
    // The VM is this block's own, for calls only: its opcode table may be wrapped.
    if (this.traceDecides) watchGasDependence(vm, () => this.trace)
    guardVm(vm, () => this.guard)
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
    // The first call imports @ethereumjs/vm and @ethereumjs/evm (not at start: see ../vm/vmLibraries.ts).
    const [{ vm: vmLib, evm: evmLib }, { statemanager, blockState }, chainState] = await Promise.all([vmLibraries(), stateLibraries(), chain.getState()])
    const common = chain.common.copy()
    common.setHardforkBy({ blockNumber: block?.number ?? header.number, timestamp: block?.time ?? header.timestamp })
    const state = await blockState.BlockStateManager.at(chainState, chain.stateRootOf(record), { caches: new statemanager.Caches() })
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

/**
 * Each chain's block VMs, most recently used last, by block hash and the state root its calls read
 * (a new block, or a state edit of the head, gets its own).
 */
const blockCalls = new WeakMap<ChainReader, Map<string, Promise<BlockCalls>>>()

/** The calls' VM kept for `record` of `chain` (made on first need; the last few kept). */
export function callsAt(chain: ChainReader, record: BlockRecord): Promise<BlockCalls> {
  let kept = blockCalls.get(chain)
  if (!kept) blockCalls.set(chain, (kept = new Map()))
  const key = `${record.hash}${bytesToHex(chain.stateRootOf(record))}`
  let calls = kept.get(key)
  if (calls) {
    kept.delete(key)
  } else {
    calls = BlockCalls.open(chain, record)
    // A failed open is not kept.
    calls.catch(() => kept.delete(key))
    if (kept.size >= BLOCK_VMS_KEPT) kept.delete(kept.keys().next().value!)
  }
  kept.set(key, calls)
  return calls
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

/** Whether two precompile sets are the same addresses with the same implementations. */
export function samePrecompiles(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  if (a.size !== b.size) return false
  for (const [key, fn] of a) if (b.get(key) !== fn) return false
  return true
}
