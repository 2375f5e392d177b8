/**
 * One simulated block, as geth's `processBlock` builds it: the header's parent hash, base fee (the
 * override; else with validation EIP-1559's from the parent, without it 0) and excess blob gas;
 * the block's state overrides (precompiles moved for this block only); the system calls; each
 * call (./callMessage.ts); the requests, withdrawals and (before the Merge) the miner's reward;
 * then the block sealed with its roots, bloom and gas, and its record rendered as any block's.
 */
import { Block, createBlockHeader, genTransactionsTrieRoot, genWithdrawalsTrieRoot } from '@ethereumjs/block'
import type { HeaderData } from '@ethereumjs/block'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { paramsTx } from '@ethereumjs/tx'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, createAddressFromString, createWithdrawal, KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import type { TxReceipt, VM } from '@ethereumjs/vm'
import { AncestorHashes } from '../blocks/blockHashes.ts'
import type { ChainReader } from '../blocks/chainReader.ts'
import { recordFromExecution } from '../blocks/record.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { samePrecompiles } from '../execution/blockCalls.ts'
import { applyStateOverride, OverrideError } from '../execution/overrides.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import { endGuard, ExecutionTimeout, guardFor, guardVm } from '../vm/executionGuard.ts'
import type { ExecutionGuard } from '../vm/executionGuard.ts'
import { loadedVmLibraries, stateLibraries, vmLibraries } from '../vm/vmLibraries.ts'
import { simulateCall } from './callMessage.ts'
import type { CallBlock } from './callMessage.ts'
import { LogTracer } from './logTracer.ts'
import { beforeTransactions, finalize, requestsHash } from './systemCalls.ts'
import { SimulateError } from './types.ts'
import type { SimBlockInput, SimCallResult, SimLog, SimulatedBlock, SimulateOptions } from './types.ts'

/** The simulation's own VM and state, at the base block's state root. */
export interface Simulation {
  vm: VM
  state: BlockStateManager
  tracer: LogTracer | undefined
  /** The time limit of the call under way (see ../vm/executionGuard.ts). */
  guard: ExecutionGuard | undefined
  /** The opcode table the guard wraps (a fork change makes a new one). */
  guarded: unknown
}

/** What a header inherits from the one before it (geth's `makeHeaders`). */
export interface SimHeader {
  coinbase: Address
  gasLimit: bigint
  difficulty: bigint
}

export async function openSimulation(chain: ChainReader, base: BlockRecord): Promise<Simulation> {
  const [{ vm: vmLib, evm: evmLib }, { statemanager, blockState }, chainState] = await Promise.all([vmLibraries(), stateLibraries(), chain.getState()])
  const common = chain.common.copy()
  common.setHardforkBy({ blockNumber: base.number, timestamp: base.timestamp })
  const state = await blockState.BlockStateManager.at(chainState, chain.stateRootOf(base), { caches: new statemanager.Caches(), isolated: true })
  const blockchain = new AncestorHashes(chain.blockchain, base.block.header)
  const evm = await evmLib.createEVM({ common, stateManager: state, blockchain })
  const vm = await vmLib.createVM({ common, stateManager: state, blockchain, evm })
  return { vm, state, tracer: undefined, guard: undefined, guarded: undefined }
}

interface BlockRun {
  input: SimBlockInput
  header: SimHeader
  parent: Block
  /** Hashes of the blocks simulated so far, by number (BLOCKHASH reads them). */
  hashes: Map<bigint, Uint8Array>
  budget: { remaining: bigint }
  opts: SimulateOptions
}

export async function runSimulatedBlock(chain: ChainReader, sim: Simulation, run: BlockRun): Promise<SimulatedBlock> {
  const { vm, state } = sim
  const o = run.input.blockOverrides!
  const number = o.number!
  const timestamp = o.time!
  vm.common.setHardforkBy({ blockNumber: number, timestamp })
  const common = vm.common
  const tracer = (sim.tracer ??= new LogTracer(run.opts.traceTransfers))
  tracer.install(vm)
  const opcodes = (vm.evm as unknown as { _opcodeMap: unknown })._opcodeMap
  if (sim.guarded !== opcodes) {
    guardVm(vm, () => sim.guard)
    sim.guarded = opcodes
  }
  tracer.newBlock()

  const parent = run.parent.header
  const fields = headerFields(vm, run, parent)
  const execution = createBlockHeader(fields, { common, freeze: false, skipConsensusFormatValidation: true })
  if (o.blobBaseFee !== undefined) {
    const blobBaseFee = o.blobBaseFee
    execution.getBlobGasPrice = () => blobBaseFee
  }
  const block = new Block(execution, [], [], common.isActivatedEIP(4895) ? [] : undefined, { common })

  const evm = vm.evm as unknown as { _precompiles: Map<string, unknown>; blockchain: unknown }
  const precompiles = new Map(evm._precompiles)
  try {
    await applyStateOverride(state, run.input.stateOverrides, precompiles)
  } catch (err) {
    if (err instanceof OverrideError) throw new SimulateError('server', err.message)
    throw err
  }
  evm.blockchain = new AncestorHashes(chain.blockchain, { number, parentHash: run.parent.hash() }, run.hashes)
  await beforeTransactions(vm, number, timestamp, run.parent.hash(), fields.parentBeaconBlockRoot as Uint8Array | undefined)

  const txCommon = common.copy()
  txCommon.updateParams(paramsTx)
  let zeroFee: Block | undefined
  const env: CallBlock = {
    vm,
    state,
    block,
    zeroFeeBlock: () => (zeroFee ??= zeroBaseFee(block, fields, vm)),
    txCommon,
    chainId: chain.chainId,
    validate: run.opts.validation,
    baseFee: execution.baseFeePerGas,
    blobBaseFee: execution.excessBlobGas !== undefined ? execution.getBlobGasPrice() : undefined,
    gasLimit: execution.gasLimit,
    gasUsed: 0n,
    receiptGasUsed: 0n,
    budget: run.budget,
    precompiles: samePrecompiles(precompiles, evm._precompiles) ? undefined : precompiles,
  }
  const txs: TypedTransaction[] = []
  const receipts: TxReceipt[] = []
  const calls: SimCallResult[] = []
  const successLogs: SimLog[] = []
  let blobGasUsed = 0n
  for (const [i, args] of run.input.calls.entries()) {
    const budget = run.opts.budget
    let outcome
    try {
      // The clock runs across calls and blocks: a limit already past stops the next call before it starts.
      sim.guard = budget === undefined ? undefined : guardFor(budget)
      outcome = await simulateCall(env, args, i, tracer)
    } catch (err) {
      // geth's simulator answers a timeout like any failure of a call it cannot run: -32603.
      if (err instanceof ExecutionTimeout) throw new SimulateError('internal', err.message)
      throw err
    } finally {
      if (sim.guard !== undefined) endGuard(sim.guard)
      sim.guard = undefined
    }
    txs.push(outcome.tx)
    receipts.push(outcome.receipt)
    calls.push(outcome.result)
    if (outcome.result.status === 1) successLogs.push(...outcome.result.logs)
    blobGasUsed += outcome.blobGasUsed
  }

  const requests = await requestsHash(vm, successLogs)
  const withdrawals = common.isActivatedEIP(4895) ? (o.withdrawals ?? []) : undefined
  await finalize(vm, withdrawals, execution.coinbase, !common.gteHardfork('paris') && execution.difficulty !== 0n)
  const stateRoot = await state.getStateRoot()
  const sealed = await seal(vm, fields, { txs, receipts, stateRoot, gasUsed: env.gasUsed, blobGasUsed, requests, withdrawals })
  return { record: recordFromExecution(sealed, receipts), calls }
}

/** The header before execution: geth's `makeHeaders` and the parent-dependent fields of `processBlock`. */
function headerFields(vm: VM, run: BlockRun, parent: Block['header']): HeaderData {
  const common = vm.common
  const o = run.input.blockOverrides!
  const postMerge = common.gteHardfork('paris')
  const fields: HeaderData = {
    parentHash: run.parent.hash(),
    uncleHash: KECCAK256_RLP_ARRAY,
    coinbase: o.feeRecipient !== undefined ? createAddressFromString(o.feeRecipient) : run.header.coinbase,
    number: o.number!,
    timestamp: o.time!,
    gasLimit: o.gasLimit ?? run.header.gasLimit,
    difficulty: o.difficulty ?? (postMerge ? 0n : run.header.difficulty),
    mixHash: o.prevRandao ?? new Uint8Array(32),
    extraData: new Uint8Array(),
    nonce: new Uint8Array(8),
    transactionsTrie: KECCAK256_RLP,
    receiptTrie: KECCAK256_RLP,
  }
  if (common.isActivatedEIP(1559)) {
    if (o.baseFeePerGas !== undefined) fields.baseFeePerGas = o.baseFeePerGas
    else if (!run.opts.validation) fields.baseFeePerGas = 0n
    else fields.baseFeePerGas = parent.baseFeePerGas !== undefined ? parent.calcNextBaseFee() : common.param('initialBaseFee')
  }
  if (common.isActivatedEIP(4895)) fields.withdrawalsRoot = KECCAK256_RLP
  if (common.isActivatedEIP(4844)) {
    fields.excessBlobGas = parent.excessBlobGas !== undefined ? parent.calcNextExcessBlobGas(common) : 0n
    fields.blobGasUsed = 0n
    fields.parentBeaconBlockRoot = o.beaconRoot ?? new Uint8Array(32)
  }
  return fields
}

/** The block with base fee 0, for runTx's fee checks of a fee-less call (see callMessage.ts). */
function zeroBaseFee(block: Block, fields: HeaderData, vm: VM): Block {
  const header = createBlockHeader(fields, { common: vm.common, freeze: false, skipConsensusFormatValidation: true })
  ;(header as { baseFeePerGas?: bigint }).baseFeePerGas = 0n
  if (Object.hasOwn(block.header, 'getBlobGasPrice')) header.getBlobGasPrice = block.header.getBlobGasPrice
  return new Block(header, [], [], block.withdrawals, { common: vm.common })
}

interface Sealing {
  txs: TypedTransaction[]
  receipts: TxReceipt[]
  stateRoot: Uint8Array
  gasUsed: bigint
  blobGasUsed: bigint
  requests: Uint8Array | undefined
  withdrawals: readonly { index: bigint; validatorIndex: bigint; address: string; amount: bigint }[] | undefined
}

/** geth's `AssembleBlock`: the roots of the transactions, receipts and withdrawals, the bloom, the gas. */
async function seal(vm: VM, fields: HeaderData, s: Sealing): Promise<Block> {
  const common = vm.common
  const { vm: vmLib, Bloom } = { vm: loadedVmLibraries().vm, Bloom: loadedVmLibraries().vm.Bloom }
  const bloom = new Bloom(undefined, common)
  let receiptTrie = KECCAK256_RLP
  if (s.receipts.length > 0) {
    const trie = new MerklePatriciaTrie({ common })
    for (const [i, receipt] of s.receipts.entries()) {
      bloom.or(new Bloom(receipt.bitvector, common))
      await trie.put(RLP.encode(i), vmLib.encodeReceipt(receipt, s.txs[i]!.type))
    }
    receiptTrie = trie.root()
  }
  const withdrawals = s.withdrawals?.map((w) => createWithdrawal({ index: w.index, validatorIndex: w.validatorIndex, address: w.address as `0x${string}`, amount: w.amount }))
  const header: HeaderData = {
    ...fields,
    stateRoot: s.stateRoot,
    transactionsTrie: await genTransactionsTrieRoot(s.txs, new MerklePatriciaTrie({ common })),
    receiptTrie,
    logsBloom: bloom.bitvector,
    gasUsed: s.gasUsed,
  }
  if (withdrawals !== undefined) header.withdrawalsRoot = await genWithdrawalsTrieRoot(withdrawals, new MerklePatriciaTrie({ common }))
  if (common.isActivatedEIP(4844)) header.blobGasUsed = s.blobGasUsed
  if (s.requests !== undefined) header.requestsHash = s.requests
  const sealed = createBlockHeader(header, { common, skipConsensusFormatValidation: true })
  return new Block(sealed, s.txs, [], withdrawals, { common })
}
