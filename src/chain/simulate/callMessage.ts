/**
 * One call of a simulated block, as geth's simulator runs it: `sanitizeCall` (the nonce from the
 * state, the gas from what the block has left, both capped), `CallDefaults`, the transaction geth
 * puts in the block (`ToTransaction` defaulting to type 2; unsigned, hashed as geth hashes it),
 * then `ApplyMessage`'s checks in geth's order and words, each failure ending the simulation with
 * its kind (-38010 and on). The checks come before the transaction is built: EthereumJS refuses to
 * build some that geth refuses in its own words. The execution itself is EthereumJS's `runTx` on the simulation's VM,
 * the sender exempt from EIP-3607 as geth's calls are.
 *
 * Without validation, a call that names no fee runs as geth's `NoBaseFee` runs it: no base-fee
 * check and no fee, while BASEFEE still reads the block's base fee. runTx checks fees against the
 * block it is given, so such a call gets the block with base fee 0, and the EVM's top frame the
 * real one.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createTx, getCalldataFloorGas, TransactionType } from '@ethereumjs/tx'
import type { TypedTransaction, TypedTxData } from '@ethereumjs/tx'
import { createAddressFromString, createZeroAddress, toChecksumAddress } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { RunTxResult, TxReceipt, VM } from '@ethereumjs/vm'
import { keccak256 } from '../../encoding/keccak.ts'
import { authorizationListData } from '../execution/callArgs.ts'
import type { CallArgs } from '../execution/callArgs.ts'
import { balanceRefusal, coverBlobFee, feeCapRefusal } from '../execution/feeChecks.ts'
import { gethHaltName } from '../execution/gethErrors.ts'
import type { BlockStateManager } from '../vm/blockState.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { ExecutionTimeout } from '../vm/executionGuard.ts'
import { intrinsicGas } from '../vm/gasRules.ts'
import { loadedVmLibraries } from '../vm/vmLibraries.ts'
import type { LogTracer } from './logTracer.ts'
import { SimulateError } from './types.ts'
import type { SimCallResult, SimulateErrorKind } from './types.ts'

const BLOB_GAS_PER_BLOB = 131072n
const MAX_UINT64 = (1n << 64n) - 1n

/** The block a simulated call runs in, and what the block has used so far. */
export interface CallBlock {
  vm: VM
  state: BlockStateManager
  /** The block as the EVM sees it (number, time, coinbase, base fee, blob base fee...). */
  block: Block
  /** The same with base fee 0, for fee-less calls without validation (made on first need). */
  zeroFeeBlock: () => Block
  txCommon: Common
  chainId: bigint
  validate: boolean
  baseFee: bigint | undefined
  blobBaseFee: bigint | undefined
  gasLimit: bigint
  /** Gas the block's calls have used (geth's gas pool). */
  gasUsed: bigint
  /** What the receipts' cumulative gas is at. */
  receiptGasUsed: bigint
  /** The request's gas budget left (geth's `gasBudget`). */
  budget: { remaining: bigint }
  /** The precompiles the EVM runs when state overrides moved some (runTx warms the fork's own). */
  precompiles: Map<string, unknown> | undefined
}

export interface CallOutcome {
  tx: TypedTransaction
  receipt: TxReceipt
  result: SimCallResult
  blobGasUsed: bigint
}

interface Message {
  from: Address
  fromHex: string
  nonce: bigint
  gas: bigint
  gasPrice: bigint
  feeCap: bigint
  tip: bigint
  value: bigint
  blobFeeCap: bigint | undefined
}

/** Runs call `index` of the block; a failure geth refuses throws `SimulateError`. */
export async function simulateCall(env: CallBlock, args: CallArgs, index: number, tracer: LogTracer): Promise<CallOutcome> {
  const from = args.from !== undefined ? createAddressFromString(args.from) : createZeroAddress()
  const nonce = args.nonce ?? (await env.state.getAccount(from))?.nonce ?? 0n
  const remaining = env.gasLimit - env.gasUsed
  const asked = args.gas ?? remaining
  if (remaining < asked) throw new SimulateError('blockGasLimitReached', `block gas limit reached: remaining: ${remaining}, required: ${asked}`)
  const gas = asked < env.budget.remaining ? asked : env.budget.remaining
  const gasCapped = gas < asked

  // CallDefaults
  if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)) {
    throw new SimulateError('server', 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (args.chainId !== undefined && args.chainId !== env.chainId) {
    throw new SimulateError('server', `chainId does not match node's (have=${args.chainId}, want=${env.chainId})`)
  }
  const london = env.baseFee !== undefined
  const gasPriceArg = args.gasPrice ?? (london ? undefined : 0n)
  const maxFee = args.maxFeePerGas ?? 0n
  const maxTip = args.maxPriorityFeePerGas ?? 0n
  const blobFeeCap = args.maxFeePerBlobGas ?? (args.blobVersionedHashes !== undefined ? 0n : undefined)
  const msg: Message = { from, fromHex: toChecksumAddress(from.toString()), nonce, gas, value: args.value ?? 0n, blobFeeCap, ...feesOf(gasPriceArg, maxFee, maxTip, env.baseFee) }

  try {
    await checkMessage(env, args, msg)
    const tx = buildTransaction(env, args, msg, gasPriceArg, maxFee, maxTip)
    tracer.reset(tx.hash(), index)
    return await execute(env, args, msg, tx, tracer, gasCapped)
  } finally {
    tracer.finish()
  }
}

/** `ToMessage`'s prices: with a base fee, a legacy price stands for both caps, else the 1559 caps give the price. */
function feesOf(gasPrice: bigint | undefined, maxFee: bigint, maxTip: bigint, baseFee: bigint | undefined): { gasPrice: bigint; feeCap: bigint; tip: bigint } {
  if (gasPrice !== undefined) return { gasPrice, feeCap: gasPrice, tip: gasPrice }
  let price = 0n
  if (maxFee > 0n || maxTip > 0n) {
    price = maxTip + baseFee!
    if (price > maxFee) price = maxFee
  }
  return { gasPrice: price, feeCap: maxFee, tip: maxTip }
}

/** `ToTransaction(DynamicFeeTxType)`: the unsigned transaction geth puts in the block, hashed as geth hashes it. */
function buildTransaction(env: CallBlock, a: CallArgs, msg: Message, gasPrice: bigint | undefined, maxFee: bigint, maxTip: bigint): TypedTransaction {
  let type: number = TransactionType.FeeMarketEIP1559
  if (a.authorizationList !== undefined) type = TransactionType.EOACodeEIP7702
  else if (a.blobVersionedHashes !== undefined) type = TransactionType.BlobEIP4844
  if (gasPrice !== undefined) type = TransactionType.Legacy
  // Built with a gas limit and nonce EthereumJS accepts, then given the real ones: geth's calls are
  // not held to EIP-7825's cap, nor to EIP-2681's nonce ceiling, when checks are skipped.
  const data: Record<string, unknown> = { type, nonce: 0n, gasLimit: 0n, to: a.to, value: msg.value, data: a.data ?? new Uint8Array() }
  if (type === TransactionType.Legacy) data.gasPrice = gasPrice
  else {
    data.chainId = env.chainId
    data.maxFeePerGas = maxFee
    data.maxPriorityFeePerGas = maxTip
    data.accessList = a.accessList ?? []
  }
  if (type === TransactionType.BlobEIP4844) {
    data.blobVersionedHashes = a.blobVersionedHashes
    data.maxFeePerBlobGas = msg.blobFeeCap ?? 0n
  }
  if (type === TransactionType.EOACodeEIP7702) {
    data.authorizationList = authorizationListData(a.authorizationList)
  }
  let tx: TypedTransaction
  try {
    tx = createTx(data as TypedTxData, { common: env.txCommon, freeze: false, allowUnlimitedInitCodeSize: true })
  } catch (err) {
    throw new SimulateError('internal', withoutEthereumJsContext(err))
  }
  const fields = tx as { gasLimit: bigint; nonce: bigint }
  fields.gasLimit = msg.gas
  fields.nonce = msg.nonce
  const from = msg.from
  tx.getSenderAddress = () => from
  // Unsigned: v, r and s encode as geth's zeros, so the hash is of the same bytes as geth's.
  tx.hash = () => keccak256(tx.serialize())
  return tx
}

function refuse(kind: SimulateErrorKind, reason: string, gas: bigint): never {
  throw new SimulateError(kind, `err: ${reason} (supplied gas ${gas})`)
}

/** `preCheck`, `buyGas` and the intrinsic, floor and transfer checks of `execute`, in geth's order. */
async function checkMessage(env: CallBlock, a: CallArgs, m: Message): Promise<void> {
  const common = env.vm.common
  const account = await env.state.getAccount(m.from)
  const stateNonce = account?.nonce ?? 0n
  const balance = account?.balance ?? 0n
  if (env.validate) {
    if (stateNonce < m.nonce) refuse('nonceTooHigh', `nonce too high: address ${m.fromHex}, tx: ${m.nonce} state: ${stateNonce}`, m.gas)
    if (stateNonce > m.nonce) refuse('nonceTooLow', `nonce too low: address ${m.fromHex}, tx: ${m.nonce} state: ${stateNonce}`, m.gas)
    if (stateNonce === MAX_UINT64) refuse('internal', `nonce has max value: address ${m.fromHex}, nonce: ${stateNonce}`, m.gas)
  }
  if (env.baseFee !== undefined && !(!env.validate && m.feeCap === 0n && m.tip === 0n)) {
    const refusal = feeCapRefusal(() => m.fromHex, m.feeCap, m.tip, false)
    if (refusal !== undefined) refuse('invalidParams', refusal, m.gas)
    if (m.feeCap < env.baseFee) refuse('baseFeeTooLow', `max fee per gas less than block base fee: address ${m.fromHex}, maxFeePerGas: ${m.feeCap}, baseFee: ${env.baseFee}`, m.gas)
  }
  const hashes = a.blobVersionedHashes
  if (hashes !== undefined) {
    if (a.to === undefined) refuse('internal', 'blob transaction of type create', m.gas)
    if (hashes.length === 0) refuse('internal', 'blob transaction missing blob hashes', m.gas)
    if (common.gteHardfork('osaka') && hashes.length > 6) refuse('internal', 'blob transaction has too many blobs', m.gas)
    hashes.forEach((h, i) => {
      if (!h.startsWith('0x01')) refuse('internal', `blob ${i} has invalid hash version`, m.gas)
    })
  }
  const blobGas = BigInt(hashes?.length ?? 0) * BLOB_GAS_PER_BLOB
  if (common.isActivatedEIP(4844) && blobGas > 0n && !(!env.validate && m.blobFeeCap === 0n) && (m.blobFeeCap ?? 0n) < env.blobBaseFee!) {
    refuse('internal', `max fee per blob gas less than block blob gas fee: address ${m.fromHex} blobGasFeeCap: ${m.blobFeeCap ?? 0n}, blobBaseFee: ${env.blobBaseFee}`, m.gas)
  }
  if (a.authorizationList !== undefined) {
    if (a.to === undefined) refuse('internal', `EIP-7702 transaction cannot be used to create contract (sender ${m.from.toString()})`, m.gas)
    if (a.authorizationList.length === 0) refuse('internal', `EIP-7702 transaction with empty auth list (sender ${m.from.toString()})`, m.gas)
  }
  const size = BigInt(a.data?.length ?? 0)
  if (a.to === undefined && common.isActivatedEIP(3860) && size > common.param('maxInitCodeSize')) {
    refuse('maxInitCodeSizeExceeded', `max initcode size exceeded: code size ${size} limit ${common.param('maxInitCodeSize')}`, m.gas)
  }
  const want = m.gas * m.feeCap + m.value + blobGas * (m.blobFeeCap ?? 0n)
  const unpaid = balanceRefusal(m.fromHex, balance, want)
  if (unpaid !== undefined) refuse('insufficientFunds', unpaid, m.gas)
  const { intrinsic, floor } = intrinsicGas(common, a)
  if (m.gas < intrinsic) refuse('intrinsicGas', `intrinsic gas too low: have ${m.gas}, want ${intrinsic}`, m.gas)
  if (floor !== undefined && m.gas < floor) refuse('internal', `insufficient gas for floor data gas cost: have ${m.gas}, want ${floor}`, m.gas)
  const left = balance - m.gas * m.gasPrice - blobGas * (env.blobBaseFee ?? 0n)
  if (m.value > 0n && left < m.value) refuse('insufficientFunds', `insufficient funds for transfer: address ${m.fromHex}`, m.gas)
}

async function execute(env: CallBlock, a: CallArgs, m: Message, tx: TypedTransaction, tracer: LogTracer, gasCapped: boolean): Promise<CallOutcome> {
  const noFee = !env.validate && m.feeCap === 0n && m.tip === 0n
  const block = noFee && (env.baseFee ?? 0n) > 0n ? env.zeroFeeBlock() : env.block
  const blobTx = tx as { maxFeePerBlobGas?: bigint }
  const blobFeeCap = blobTx.maxFeePerBlobGas
  // EthereumJS refuses a blob fee cap under the block's blob price; geth skips that check without
  // validation, and charges nothing for the blobs.
  if (blobFeeCap !== undefined && env.blobBaseFee !== undefined && blobFeeCap < env.blobBaseFee) {
    blobTx.maxFeePerBlobGas = env.blobBaseFee
    await coverBlobFee(env.state, m.from, BigInt(a.blobVersionedHashes?.length ?? 0) * BLOB_GAS_PER_BLOB * env.blobBaseFee)
  }
  env.state.exemptFromEip3607(m.from)
  let run: RunTxResult
  try {
    run = await runAsTopFrame(env, block, () =>
      loadedVmLibraries().vm.runTx(env.vm, {
        tx,
        block,
        skipNonce: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        blockGasUsed: env.receiptGasUsed,
      }),
    )
  } catch (err) {
    if (err instanceof ExecutionTimeout) throw err
    throw new SimulateError('internal', `err: ${withoutEthereumJsContext(err)} (supplied gas ${m.gas})`)
  } finally {
    env.state.endEip3607Exemption()
    if (blobFeeCap !== undefined) blobTx.maxFeePerBlobGas = blobFeeCap
  }
  await wrapNonce(env.state, m.from)
  const gasUsed = run.totalGasSpent
  if (gasUsed > env.budget.remaining) throw new SimulateError('server', `RPC gas cap exhausted: need ${gasUsed}, remaining ${env.budget.remaining}`)
  env.budget.remaining -= gasUsed
  env.gasUsed += run.blockGasSpent ?? gasUsed
  env.receiptGasUsed += gasUsed
  let maxUsedGas = run.execResult.executionGasUsed + tx.getIntrinsicGas()
  if (env.vm.common.isActivatedEIP(7623)) {
    const floor = getCalldataFloorGas(tx, m.from)
    if (floor > maxUsedGas) maxUsedGas = floor
  }
  const logs = tracer.finish()
  const halt = run.execResult.exceptionError?.error
  // geth's `ExecutionResult.Return()`: nothing for a failed call (the revert data goes into its error).
  const returnData = halt === undefined ? run.execResult.returnValue : new Uint8Array()
  const result: SimCallResult = { returnData, logs, gasUsed, maxUsedGas, status: halt === undefined ? 1 : 0 }
  if (halt === 'revert') result.error = { kind: 'revert', data: run.execResult.returnValue }
  else if (halt !== undefined) {
    const message = gethHaltName(env.vm, halt, run.execResult.runState?.opCode)
    result.error = { kind: 'halt', message: gasCapped ? `${message} (gas limit was capped by the RPC server's global gas cap)` : message }
  }
  if (result.status === 0) result.logs = []
  return { tx, receipt: run.receipt, result, blobGasUsed: run.blobGasUsed ?? 0n }
}

/** geth keeps nonces in a uint64: a call from an account at 2^64-1 (no validation) leaves it at 0. */
async function wrapNonce(state: BlockStateManager, from: Address): Promise<void> {
  const account = await state.getAccount(from)
  if (account === undefined || account.nonce <= MAX_UINT64) return
  account.nonce -= MAX_UINT64 + 1n
  await state.putAccount(from, account)
}

/**
 * Runs `fn` (one runTx) with the EVM's top frame executing in `env.block` when runTx was given
 * another block (the zero-base-fee one: BASEFEE reads the block's own base fee, as under geth's
 * NoBaseFee), and with the block's overridden precompiles (runTx has warmed the fork's own, as
 * geth's `Prepare` warms `ActivePrecompiles(rules)`).
 */
async function runAsTopFrame<T>(env: CallBlock, given: Block, fn: () => Promise<T>): Promise<T> {
  const precompiles = env.precompiles
  if (given === env.block && precompiles === undefined) return fn()
  const evm = env.vm.evm as unknown as { runCall: (opts: Record<string, unknown>) => Promise<unknown>; _precompiles: Map<string, unknown> }
  const runCall = evm.runCall
  const rules = evm._precompiles
  evm.runCall = async (opts) => {
    if (opts.message !== undefined) return runCall.call(evm, opts)
    if (precompiles !== undefined) evm._precompiles = precompiles
    try {
      return await runCall.call(evm, given === env.block ? opts : { ...opts, block: env.block })
    } finally {
      evm._precompiles = rules
    }
  }
  try {
    return await fn()
  } finally {
    delete (evm as { runCall?: unknown }).runCall
  }
}
