/**
 * The VMs calls run on (../execution/blockCalls.ts), kept per chain and fork and lent to one
 * block's execution at a time: pointed at that block's state manager and block hashes when lent
 * (the VM, its EVM and the EVM's journal each hold the state manager), so a new head costs a
 * state manager, not an EVM (its opcode and precompile tables) and a Common copy per block.
 */
import type { Common } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import type { VM } from '@ethereumjs/vm'
import type { AncestorHashes } from '../blocks/blockHashes.ts'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import { guardVm } from '../vm/executionGuard.ts'
import type { ExecutionGuard } from '../vm/executionGuard.ts'
import { vmLibraries } from '../vm/vmLibraries.ts'
import { traceDecidesUnder, watchGasDependence } from './gasTrace.ts'
import type { GasTrace } from './gasTrace.ts'

/** What an engine's opcode wrappers read of the execution it is lent to. */
export interface EngineUser {
  readonly trace: GasTrace | undefined
  readonly guard: ExecutionGuard | undefined
}

/** How many idle VMs a chain keeps per fork (more are made while executions at several blocks overlap). */
const IDLE_ENGINES_KEPT = 4

/** A VM for calls, lent to one block's execution at a time (`user`); its opcode wrappers read the user's trace and guard. */
export interface CallEngine {
  readonly vm: VM
  user: EngineUser | undefined
}

/**
 * What the calls at blocks of one fork share: the fork's Common, the Common of their transactions
 * (see `sharedTxCommon`), and the idle VMs.
 */
export class ForkEngines {
  readonly common: Common
  readonly txCommon: Common
  readonly traceDecides: boolean
  readonly #idle: CallEngine[] = []

  constructor(common: Common) {
    this.common = common
    this.txCommon = sharedTxCommon(common)
    this.traceDecides = traceDecidesUnder(common)
  }

  /** An idle VM (or a new one) pointed at `state` and `blockchain`, lent to `user`. */
  async lend(user: EngineUser, state: BlockStateManager, blockchain: AncestorHashes): Promise<CallEngine> {
    const engine = this.#idle.pop() ?? (await this.#make(state, blockchain))
    const vm = engine.vm as unknown as { stateManager: unknown; blockchain: unknown }
    vm.stateManager = state
    vm.blockchain = blockchain
    const evm = engine.vm.evm as unknown as { stateManager: unknown; blockchain: unknown; journal: { stateManager: unknown } }
    evm.stateManager = state
    evm.blockchain = blockchain
    evm.journal.stateManager = state
    engine.user = user
    return engine
  }

  /** Back from its turn (every checkpoint closed). */
  giveBack(engine: CallEngine): void {
    engine.user = undefined
    if (this.#idle.length < IDLE_ENGINES_KEPT) this.#idle.push(engine)
  }

  /** A VM over `state`, for calls only: its opcode table wrapped for the user's trace and guard. */
  async #make(state: BlockStateManager, blockchain: AncestorHashes): Promise<CallEngine> {
    const vm = await makeVm(this.common, state, blockchain)
    const engine: CallEngine = { vm, user: undefined }
    if (this.traceDecides) watchGasDependence(vm, () => engine.user?.trace)
    guardVm(vm, () => engine.user?.guard)
    return engine
  }
}

/** A VM over `state`, its BLOCKHASH reading `blockchain`. */
export async function makeVm(common: Common, state: BlockStateManager, blockchain: AncestorHashes): Promise<VM> {
  const { vm: vmLib, evm: evmLib } = await vmLibraries()
  const evm = await evmLib.createEVM({ common, stateManager: state, blockchain })
  return vmLib.createVM({ common, stateManager: state, blockchain, evm })
}

/** Each chain's fork engines, by hardfork name. */
const forkEngines = new WeakMap<ChainReader, Map<string, ForkEngines>>()

export function enginesFor(chain: ChainReader, hardfork: string): ForkEngines {
  let forks = forkEngines.get(chain)
  if (!forks) forkEngines.set(chain, (forks = new Map()))
  let engines = forks.get(hardfork)
  if (!engines) {
    const common = chain.common.copy()
    common.setHardfork(hardfork)
    forks.set(hardfork, (engines = new ForkEngines(common)))
  }
  return engines
}

/**
 * A Common for the transactions of calls, shared by all of them. A transaction's constructor copies
 * the Common it is given and adds the transaction parameters to the copy, which rebuilds the
 * parameter cache: about 0.4 ms, as much as executing an ERC-20 transfer. This one has them
 * already, and answers a copy with itself and the same parameters with nothing. Nothing changes a
 * call transaction's Common: runTx runs calls with `skipHardForkValidation`, so it never sets
 * the transaction's hardfork.
 */
export function sharedTxCommon(common: Common): Common {
  const shared = common.copy()
  shared.updateParams(paramsTx)
  const update = shared.updateParams.bind(shared)
  shared.copy = () => shared
  shared.updateParams = (params) => {
    if (params !== paramsTx) update(params)
  }
  return shared
}
