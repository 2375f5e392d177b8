/**
 * The calls run at one block (`BlockCalls`): a state manager with caches over the block's state
 * root (writes stay in the caches, which each call's rollback discards; reads of the block's own
 * state are remembered, ../vm/blockState.ts), and the block as calls see it. A call pays no trie
 * walks for what an earlier call at that block already read. Executions at one block take turns
 * (one checkpoint at a time).
 *
 * The VM an execution runs on is lent for its turn (./callEngines.ts): kept per chain and fork,
 * pointed at the block's state and block hashes when lent.
 *
 * A call with state or block overrides (./overrides.ts) gets a VM of its own, at the fork its
 * block overrides name, with the overrides applied under a checkpoint that is never committed:
 * the shared VM, and the estimator's kept answers, never see them. BLOCKHASH never fails
 * (../blocks/blockHashes.ts).
 */
import { Block, createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import { Hardfork } from '@ethereumjs/common'
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import { AncestorHashes } from '../blocks/blockHashes.ts'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import { guardVm } from '../vm/executionGuard.ts'
import type { ExecutionGuard } from '../vm/executionGuard.ts'
import { stateLibraries, vmLibraries } from '../vm/vmLibraries.ts'
import type { CallOverrides } from './callArgs.ts'
import { enginesFor, makeVm, sharedTxCommon } from './callEngines.ts'
import type { CallEngine, ForkEngines } from './callEngines.ts'
import { traceDecidesUnder, watchGasDependence } from './gasTrace.ts'
import type { GasTrace } from './gasTrace.ts'
import { applyStateOverride, overriddenBlock, OverrideError } from './overrides.ts'
import type { Precompiles } from './overrides.ts'
import { latin1Of } from '../../encoding/hex.ts'

/** How many blocks keep their calls' state (the most recently used ones). */
const BLOCK_VMS_KEPT = 4

export class BlockCalls {
  readonly state: BlockStateManager
  readonly record: BlockRecord
  /** The block calls execute in: the record's, or the record's with block overrides. */
  readonly block: Block
  #zeroFeeBlock: Block | undefined
  /** The fork's shared VMs, or undefined for a VM of the calls' own (`#own`: overrides). */
  readonly #engines: ForkEngines | undefined
  readonly #own: CallEngine | undefined
  /** The VM lent for the turn under way. */
  #lent: CallEngine | undefined
  readonly #blockchain: AncestorHashes
  readonly #common: Common
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
  /**
   * Whether the calls run under Osaka (EIP-7825's cap on a transaction's gas), read once from the
   * fork's Common: `getHardforkBy` for the block's height and time, per estimate, was ~2% of a
   * distinct eth_estimateGas.
   */
  readonly osaka: boolean

  private constructor(state: BlockStateManager, record: BlockRecord, block: Block, blockchain: AncestorHashes, vms: { engines: ForkEngines } | { own: VM }) {
    this.state = state
    this.record = record
    this.block = block
    this.#blockchain = blockchain
    if ('engines' in vms) {
      this.#engines = vms.engines
      this.#common = vms.engines.common
      this.txCommon = vms.engines.txCommon
      this.traceDecides = vms.engines.traceDecides
    } else {
      const vm = vms.own
      this.#common = vm.common
      this.txCommon = sharedTxCommon(vm.common)
      this.traceDecides = traceDecidesUnder(vm.common)
      // The VM is these calls' own: its opcode table may be wrapped.
      if (this.traceDecides) watchGasDependence(vm, () => this.trace)
      guardVm(vm, () => this.guard)
      this.#own = { vm, user: this }
    }
    this.osaka = this.#common.gteHardfork(Hardfork.Osaka)
  }

  /** The VM of the turn under way (a VM of the calls' own: always). */
  get vm(): VM {
    const engine = this.#own ?? this.#lent
    if (engine === undefined) throw new Error('BlockCalls.vm read outside a turn')
    return engine.vm
  }

  /**
   * The calls at `record`'s state. With `overrides` (a VM of the call's own): at the fork of the
   * overridden number and time, executing in the overridden block, its state overrides applied
   * under a checkpoint that stays open (each execution checkpoints and reverts on top of it).
   */
  static async open(chain: ChainReader, record: BlockRecord, overrides?: CallOverrides): Promise<BlockCalls> {
    const header = record.block.header
    const block = overrides?.block
    if (block?.beaconRoot !== undefined) throw new OverrideError('block override "beaconRoot" is not supported for this RPC method')
    if (block?.withdrawals !== undefined) throw new OverrideError('block override "withdrawals" is not supported for this RPC method')
    // The first call imports @ethereumjs/vm and @ethereumjs/evm (not at start: see ../vm/vmLibraries.ts).
    const [{ statemanager, blockState }, chainState] = await Promise.all([stateLibraries(), chain.getState(), vmLibraries()])
    const state = await blockState.BlockStateManager.at(chainState, chain.stateRootOf(record), { caches: new statemanager.Caches() })
    // BLOCKHASH walks back from the block's real header, as geth's GetHashFn does under overrides.
    const blockchain = new AncestorHashes(chain.blockchain, header)
    if (overrides === undefined) {
      const engines = enginesFor(chain, chain.common.getHardforkBy({ blockNumber: header.number, timestamp: header.timestamp }))
      return new BlockCalls(state, record, record.block, blockchain, { engines })
    }
    const common = chain.common.copy()
    common.setHardforkBy({ blockNumber: block?.number ?? header.number, timestamp: block?.time ?? header.timestamp })
    const vm = await makeVm(common, state, blockchain)
    const calls = new BlockCalls(state, record, block === undefined ? record.block : overriddenBlock(record.block, common, block), blockchain, { own: vm })
    if (overrides.state !== undefined) {
      await vm.evm.journal.checkpoint()
      const precompiles: Precompiles = new Map(vm.evm.precompiles)
      await applyStateOverride(state, overrides.state, precompiles)
      if (!samePrecompiles(precompiles, vm.evm.precompiles)) calls.#executeWith(vm, precompiles)
    }
    return calls
  }

  /** Runs the EVM with `precompiles` once runTx has warmed the fork's own. */
  #executeWith(vm: VM, precompiles: Precompiles): void {
    this.#executedPrecompiles = precompiles
    const evm = vm.evm as unknown as { _precompiles: Precompiles; runCall: (opts: unknown) => Promise<unknown> }
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
    this.#zeroFeeBlock ??= withZeroBaseFee(this.block, this.#common)
    return this.#zeroFeeBlock
  }

  /**
   * Runs `fn` when every earlier turn has finished: one execution (checkpoint) at a time, on a VM
   * lent for the turn (`vm`), which `fn` leaves with no checkpoint open.
   */
  inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#turn.then(async () => {
      const engines = this.#engines
      if (engines === undefined) return fn()
      const engine = await engines.lend(this, this.state, this.#blockchain)
      this.#lent = engine
      try {
        return await fn()
      } finally {
        this.#lent = undefined
        engines.giveBack(engine)
      }
    })
    this.#turn = result.catch(() => undefined)
    return result
  }
}

/**
 * Each chain's block calls, most recently used last, by block hash and the state root its calls read
 * (a new block, or a state edit of the head, gets its own).
 */
const blockCalls = new WeakMap<ChainReader, Map<string, Promise<BlockCalls>>>()

/** The calls kept for `record` of `chain` (made on first need; the last few kept). */
export function callsAt(chain: ChainReader, record: BlockRecord): Promise<BlockCalls> {
  let kept = blockCalls.get(chain)
  if (!kept) blockCalls.set(chain, (kept = new Map()))
  // The root as one flat Latin-1 string (a character a byte): `bytesToHex` built 64 characters by
  // concatenation on every call, which the map lookup then flattened.
  const key = record.hash + latin1Of(chain.stateRootOf(record))
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
 * The block as a fee-less call sees it: base fee 0. The header is built as it is and the fee
 * changed afterwards, since the constructor refuses any base fee but the initial one on the
 * London fork block. It is built from the header's raw fields, not its JSON: the same values
 * without writing every field as hex and parsing it back (paid once per head, by its first
 * fee-less call: 42 -> 15-19 us warm, 110 -> 58 cold).
 */
function withZeroBaseFee(block: Block, common: Common): Block {
  const header = createBlockHeaderFromBytesArray(block.header.raw(), { common, freeze: false, skipConsensusFormatValidation: true })
  ;(header as { baseFeePerGas?: bigint }).baseFeePerGas = 0n
  // A blob base fee given as a block override stays (geth zeroes it only for a blob fee cap of 0).
  if (Object.hasOwn(block.header, 'getBlobGasPrice')) header.getBlobGasPrice = block.header.getBlobGasPrice
  return new Block(header, [], [], block.withdrawals, { common })
}

/** Whether two precompile sets are the same addresses with the same implementations. */
export function samePrecompiles(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  if (a.size !== b.size) return false
  for (const [key, fn] of a) if (b.get(key) !== fn) return false
  return true
}
