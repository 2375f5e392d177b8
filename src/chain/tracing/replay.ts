/**
 * Re-executing mined transactions for a trace, as geth's `StateAtTransaction` and `traceBlock` do:
 * the block is replayed on its parent's state (the block's own rules and header as context, the
 * system writes of EIP-4788 and EIP-2935 first, as `PreExecution` makes them, untraced), each
 * transaction in order until the ones traced. Everything runs on a VM of its own over a state
 * fixed at the parent's root, in one checkpoint rolled back at the end: the chain is untouched.
 *
 * With the chain's replay points (./replayPoints.ts: the state root before each transaction of a
 * block, recorded on the block's first trace), a trace starts at the state before its first
 * transaction instead: one transaction replayed, not the block up to it.
 */
import type { Block } from '@ethereumjs/block'
import { Address, bigIntToAddressBytes, bigIntToBytes, bytesToHex, createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import { loadedVmLibraries, stateLibraries, vmLibraries } from '../vm/vmLibraries.ts'
import type { TracerFactory } from './hooks.ts'
import { ExecutionTimeout, guardFor, guardVm } from '../vm/executionGuard.ts'
import type { ExecutionGuard } from '../vm/executionGuard.ts'
import { TraceAbort } from './limits.ts'
import type { TraceBudget } from './limits.ts'
import { Observer } from './observer.ts'
import type { BlockPoints, ReplayPoints } from './replayPoints.ts'

/** A failure that names the block or transaction not found, or why it cannot be traced (geth's words). */
export class TraceError extends Error {
  override readonly name = 'TraceError'
}

const BEACON_ROOTS = createAddressFromString('0x000f3df6d732807ef1319fb7b8bb8522d0beac02')

export interface TracedTransaction {
  txHash: string
  /** The tracer's result, JSON text. */
  result: string
}

/**
 * Traces the transactions of `record` from `first` to `last` (indexes, inclusive) with a tracer
 * each, after replaying the ones before `first` untraced; with `points`, from the state before
 * `first` as they hold it (recording the block's points first when they have none).
 */
export async function traceMined(
  chain: ChainReader,
  record: BlockRecord,
  range: { first: number; last: number },
  tracer: TracerFactory,
  budget: TraceBudget,
  points?: ReplayPoints,
): Promise<TracedTransaction[]> {
  if (record.number === 0n) throw new TraceError('genesis is not traceable')
  const parent = chain.byHash(bytesToHex(record.block.header.parentHash)) ?? chain.byNumber(record.number - 1n)
  if (!parent) throw new TraceError(`parent block of #${record.number} not found`)
  const from = points !== undefined && range.first > 0 ? await points.of(record, chain.stateRootOf(parent), () => recordPoints(chain, record, parent, budget)) : undefined
  const [{ blockState }, chainState] = await Promise.all([stateLibraries(), chain.getState()])
  const base = from?.state ?? chainState
  const vm = await blockVm(chain, record.block, await blockState.BlockStateManager.at(base, from?.roots[range.first] ?? chain.stateRootOf(parent), { caches: await newCaches() }))
  // Executions let other requests in between slices, and stop at the trace's time (../vm/executionGuard.ts).
  let guard: ExecutionGuard | undefined
  guardVm(vm, () => guard)
  const { runTx } = loadedVmLibraries().vm
  const block = record.block
  await vm.evm.journal.checkpoint()
  const traced: TracedTransaction[] = []
  try {
    if (from === undefined) await preExecution(vm, block)
    let gasUsed = from?.gasBefore[range.first] ?? 0n
    let logs = 0
    if (from !== undefined) for (let i = 0; i < range.first; i++) logs += record.receipts[i]!.logs.length
    for (let i = from === undefined ? 0 : range.first; i <= range.last; i++) {
      budget.checkTime()
      const tx = block.transactions[i]!
      let observer: Observer | undefined
      let made: ReturnType<TracerFactory> | undefined
      if (i >= range.first) {
        budget.startTransaction()
        made = tracer(budget)
        observer = new Observer(vm, { tracer: made, budget, coinbase: block.header.coinbase.toString(), firstLogIndex: logs })
      }
      let result
      try {
        guard = guardFor(budget.executionBudget())
        result = await runTx(vm, { tx, block, skipHardForkValidation: true, skipBlockGasLimitValidation: true, blockGasUsed: gasUsed })
      } catch (err) {
        if (err instanceof ExecutionTimeout) throw new TraceAbort('execution timeout')
        throw budget.aborted ?? observer?.failure ?? err
      } finally {
        guard = undefined
        observer?.detach()
      }
      if (observer?.failure !== undefined) throw observer.failure
      gasUsed += result.totalGasSpent
      logs += record.receipts[i]!.logs.length
      if (made) traced.push({ txHash: record.transactions[i]!.hash, result: made.result() })
    }
  } finally {
    await vm.evm.journal.revert()
  }
  return traced
}

const newCaches = async () => new (await stateLibraries()).statemanager.Caches()

/** A VM of its own over `state` (a block's state: its parent's, with any state edits made on it, or a replay point's), under `block`'s rules. */
async function blockVm(chain: ChainReader, block: Block, state: BlockStateManager): Promise<VM> {
  const { vm: vmLib, evm: evmLib } = await vmLibraries()
  const common = chain.common.copy()
  common.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp })
  const evm = await evmLib.createEVM({ common, stateManager: state, blockchain: chain.blockchain })
  return vmLib.createVM({ common, stateManager: state, blockchain: chain.blockchain, evm })
}

/**
 * The block replayed once on a state of its own (its trie nodes in an overlay of the chain's
 * database: the chain never sees them), its state root taken after the system writes and after
 * each transaction: the state before each transaction, and the gas the block used before it.
 */
async function recordPoints(chain: ChainReader, record: BlockRecord, parent: BlockRecord, budget: TraceBudget): Promise<BlockPoints> {
  const [{ blockState }, chainState] = await Promise.all([stateLibraries(), chain.getState()])
  const state = await blockState.BlockStateManager.at(chainState, chain.stateRootOf(parent), { caches: await newCaches(), isolated: true })
  const vm = await blockVm(chain, record.block, state)
  let guard: ExecutionGuard | undefined
  guardVm(vm, () => guard)
  const { runTx } = loadedVmLibraries().vm
  const block = record.block
  await preExecution(vm, block)
  const roots = [await state.getStateRoot()]
  const gasBefore: bigint[] = [0n]
  for (const tx of block.transactions) {
    budget.checkTime()
    let result
    try {
      guard = guardFor(budget.executionBudget())
      result = await runTx(vm, { tx, block, skipHardForkValidation: true, skipBlockGasLimitValidation: true, blockGasUsed: gasBefore.at(-1)! })
    } catch (err) {
      throw err instanceof ExecutionTimeout ? new TraceAbort('execution timeout') : (budget.aborted ?? err)
    } finally {
      guard = undefined
    }
    gasBefore.push(gasBefore.at(-1)! + result.totalGasSpent)
    roots.push(await state.getStateRoot())
  }
  return { state, roots, gasBefore }
}

/**
 * The writes a block makes before its transactions: the parent beacon root (EIP-4788) and the
 * parent's hash (EIP-2935) into their system contracts, when those have code (as EthereumJS's
 * `runBlock` makes them).
 */
async function preExecution(vm: VM, block: Block): Promise<void> {
  const common = vm.common
  const header = block.header
  const sm = vm.stateManager
  if (common.isActivatedEIP(4788) && (await sm.getCode(BEACON_ROOTS)).length > 0) {
    const length = common.param('historicalRootsLength')
    const index = header.timestamp % length
    await sm.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(index), 32), bigIntToBytes(header.timestamp))
    await sm.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(index + length), 32), header.parentBeaconBlockRoot!)
  }
  if (common.isActivatedEIP(2935)) {
    const history = new Address(bigIntToAddressBytes(common.param('historyStorageAddress')))
    if ((await sm.getCode(history)).length > 0) {
      const slot = (header.number - 1n) % common.param('historyServeWindow')
      await sm.putStorage(history, setLengthLeft(bigIntToBytes(slot), 32), header.parentHash)
    }
  }
  await vm.evm.journal.cleanup()
}
