/**
 * Capture: the state one call touches on a live node, written as a fixture that reproduces the
 * call offline. The fixture's genesis is the block the call runs at (its number, timestamp, base
 * fee, gas limit, coinbase, prevRandao, parent hash and gas used, under the chain's id and the
 * fork of that height), and its alloc holds every account the execution touches, with code,
 * balance, nonce and the storage slots it reads. `eth_estimateGas` and `eth_call` at `latest` on
 * the fixture then run the call as the node runs it at that block.
 *
 * - A call (`--call`) runs at `--block` (default `latest`): the state after that block, under its header.
 * - A transaction (`--tx`) is replayed as a call (from, to, data, value, gas, fees, access list)
 *   at its parent block: the parent's header, and the state the transaction started from.
 *
 * Where the touched state comes from:
 * - `trace`: the endpoint's prestate tracer (`debug_traceTransaction` for a transaction,
 *   `debug_traceCall` for a call), which lists every account and slot the execution read;
 * - `proofs`: `eth_createAccessList` for the accounts and slots (plus the sender and the
 *   recipient, which access lists leave out), then `eth_getProof` (or, where it is missing,
 *   `eth_getBalance`, `eth_getTransactionCount` and `eth_getStorageAt`) and `eth_getCode` at the
 *   block; where the node refuses an access list for a call that fails (Anvil does), the call is
 *   run here over those reads to learn what it touches (discover.ts);
 * - `auto` (the default): `trace`, and `proofs` when the endpoint has no tracer. For a transaction
 *   that is not first in its block, `proofs` reads the parent state, before the block's earlier
 *   transactions; the tracer reads the state the transaction really started from.
 */
import type { Hardfork } from '../builder/genesisFile.ts'
import type { ScenarioSource } from '../builder/scenario.ts'
import { detectHardfork, sourceOf } from './captureSource.ts'
import { CaptureError, Endpoint, EndpointRpcError, isMissingMethod } from './endpoint.ts'
import type { RpcErrorBody } from './endpoint.ts'
import { hex } from './nodeShapes.ts'
import type { CallJson, PrestateAccount, RpcBlock, RpcTransaction } from './nodeShapes.ts'
import { cannotPay, proofsPrestate, toMap } from './prestate.ts'

export type PrestateSource = 'auto' | 'trace' | 'proofs'

export interface CaptureOptions {
  /** The endpoint's URL. */
  rpc: string
  /** A transaction hash. */
  tx?: string
  /** A call object (from, to, data or input, value, gas, gasPrice, maxFeePerGas, maxPriorityFeePerGas, accessList). */
  call?: Record<string, unknown>
  /** With `call`: a block number (decimal or hex) or tag. Default `latest`. */
  block?: string
  /** Default `auto`. */
  prestate?: PrestateSource
  /** The fork the fixture runs. Default: mainnet's schedule for chain id 1, else what the node says (Anvil) or its header shows. */
  hardfork?: Hardfork
  /** The fixture's network name. Default `captured`. */
  network?: string
}

/** What `capture.json` says: where the fixture came from, and the call to replay on it. */
export interface CaptureRecord {
  comment: string
  endpoint: string
  chainId: number
  /** What was captured: a transaction (with its block) or a call at a block. */
  captured: { tx: string; blockNumber: number; transactionIndex: number } | { call: CallJson; block: string }
  /** The block the call runs at: the fixture's genesis. */
  block: { number: number; hash: string; timestamp: number }
  hardfork: Hardfork
  /** `debug_traceTransaction prestateTracer`, `debug_traceCall prestateTracer`, or `eth_createAccessList + eth_getProof` and its variants. */
  prestate: string
  /** The call to replay, as it goes into eth_estimateGas or eth_call. */
  call: CallJson
  /** The node's own eth_estimateGas answer for the call at the block, at capture time. */
  node: { eth_estimateGas: { result: string } | { error: RpcErrorBody } }
  /** The request that replays it on the fixture (`latest` is the fixture's genesis, the captured block). */
  request: { jsonrpc: '2.0'; id: 1; method: 'eth_estimateGas'; params: [CallJson, 'latest'] }
  /** How to serve the fixture and send the request (filled in by the command, which knows where the files went). */
  replay?: { serve: string; curl: string }
}

export interface Captured {
  source: ScenarioSource
  record: CaptureRecord
}

const HEX_RE = /^0x[0-9a-fA-F]*$/

const CALL_FIELDS = ['from', 'to', 'data', 'input', 'value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList'] as const
export async function capture(opts: CaptureOptions): Promise<Captured> {
  if ((opts.tx === undefined) === (opts.call === undefined)) throw new CaptureError('give either --tx <hash> or --call <json>')
  const endpoint = new Endpoint(opts.rpc)
  const given = opts.call === undefined ? undefined : normalizeCall(opts.call)
  const chainId = Number(BigInt(await endpoint.call<string>('the chain id', 'eth_chainId', [])))

  let call: CallJson
  let blockTag: string
  let captured: CaptureRecord['captured']
  let tx: RpcTransaction | undefined
  if (opts.tx !== undefined) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(opts.tx)) throw new CaptureError(`--tx: expected a 32-byte 0x hash, got ${JSON.stringify(opts.tx)}`)
    tx = (await endpoint.call<RpcTransaction | null>(`transaction ${opts.tx}`, 'eth_getTransactionByHash', [opts.tx])) ?? undefined
    if (tx === undefined) throw new CaptureError(`transaction ${opts.tx} is not known to ${endpoint.origin}`)
    if (tx.blockNumber === null || tx.transactionIndex === null) throw new CaptureError(`transaction ${opts.tx} is not in a block yet`)
    call = callOfTransaction(tx)
    const number = BigInt(tx.blockNumber)
    if (number === 0n) throw new CaptureError(`transaction ${opts.tx} is in block 0, which has no parent`)
    blockTag = hex(number - 1n)
    captured = { tx: tx.hash, blockNumber: Number(number), transactionIndex: Number(BigInt(tx.transactionIndex)) }
  } else {
    call = given!
    blockTag = blockParam(opts.block ?? 'latest')
    captured = { call, block: blockTag }
  }

  const block = await endpoint.call<RpcBlock | null>(`block ${blockTag}`, 'eth_getBlockByNumber', [blockTag, false])
  if (block === null) throw new CaptureError(`block ${blockTag} is not known to ${endpoint.origin}`)
  const at = block.number
  const hardfork = opts.hardfork ?? (await detectHardfork(endpoint, chainId, block))

  const mode = opts.prestate ?? 'auto'
  let accounts: Map<string, PrestateAccount> | undefined
  let how: string | undefined
  if (mode !== 'proofs') {
    try {
      if (tx !== undefined) {
        accounts = toMap(await endpoint.call(`the prestate of transaction ${tx.hash}`, 'debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer' }]))
        how = 'debug_traceTransaction prestateTracer'
      } else {
        accounts = toMap(await endpoint.call(`the prestate of the call at block ${at}`, 'debug_traceCall', [call, at, { tracer: 'prestateTracer' }]))
        how = 'debug_traceCall prestateTracer'
      }
    } catch (err) {
      // A call whose sender cannot pay runs nowhere, not even in the tracer: what decides it is the
      // sender's balance (and the recipient's code), which the proofs read.
      if (!cannotPay(err) && (mode === 'trace' || !isMissingMethod(err))) throw err
    }
  }
  if (accounts === undefined) ({ accounts, how } = await proofsPrestate(endpoint, call, block, chainId, hardfork))

  const estimate = await endpoint.send(`the node's gas estimate at block ${at}`, 'eth_estimateGas', [call, at])
  const node: CaptureRecord['node'] = { eth_estimateGas: estimate.error !== undefined ? { error: estimate.error } : { result: estimate.result as string } }
  const network = opts.network ?? 'captured'
  const source = sourceOf(network, chainId, hardfork, block, accounts, call)
  const what = tx !== undefined ? `transaction ${tx.hash} (block ${BigInt(tx.blockNumber!)}, index ${BigInt(tx.transactionIndex!)}) as a call at its parent block` : `a call at block ${BigInt(at)}`
  const record: CaptureRecord = {
    comment: `Captured from ${endpoint.origin}: ${what}. Replay it with the request below; "latest" is the fixture's genesis, block ${BigInt(at)}.`,
    endpoint: endpoint.origin,
    chainId,
    captured,
    block: { number: Number(BigInt(at)), hash: block.hash, timestamp: Number(BigInt(block.timestamp)) },
    hardfork,
    prestate: how!,
    call,
    node,
    request: { jsonrpc: '2.0', id: 1, method: 'eth_estimateGas', params: [call, 'latest'] },
  }
  return { source, record }
}

/** The transaction as a call: what it sends and what it pays, without nonce and signature. */
function callOfTransaction(tx: RpcTransaction): CallJson {
  const type = Number(BigInt(tx.type))
  if (type > 2) throw new CaptureError(`transaction ${tx.hash} is of type ${type}: capture replays types 0, 1 and 2`)
  return {
    from: tx.from,
    ...(tx.to === null ? {} : { to: tx.to }),
    data: tx.input,
    value: tx.value,
    gas: tx.gas,
    ...(type === 2 ? { maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! } : { gasPrice: tx.gasPrice! }),
    ...(type >= 1 && tx.accessList !== undefined && tx.accessList.length > 0 ? { accessList: tx.accessList } : {}),
  }
}

function normalizeCall(input: Record<string, unknown>): CallJson {
  const call: CallJson = {}
  for (const [key, value] of Object.entries(input)) {
    if (!(CALL_FIELDS as readonly string[]).includes(key)) throw new CaptureError(`--call: unknown field "${key}" (allowed: ${CALL_FIELDS.join(', ')})`)
    if (key === 'accessList') {
      if (!Array.isArray(value)) throw new CaptureError('--call: accessList must be an array')
      call.accessList = value as { address: string; storageKeys: string[] }[]
      continue
    }
    if (typeof value !== 'string' || !HEX_RE.test(value)) throw new CaptureError(`--call: ${key} must be 0x hex, got ${JSON.stringify(value)}`)
    call[key === 'input' ? 'data' : key] = value.toLowerCase()
  }
  if (call.from === undefined) throw new CaptureError('--call: "from" is required (the captured state needs the sender)')
  return call
}

function blockParam(block: string): string {
  if (['latest', 'safe', 'finalized', 'earliest'].includes(block)) return block
  if (/^\d+$/.test(block)) return hex(BigInt(block))
  if (/^0x[0-9a-fA-F]+$/.test(block)) return hex(BigInt(block))
  throw new CaptureError(`--block: expected a block number or latest/safe/finalized, got ${JSON.stringify(block)}`)
}

export { EndpointRpcError }
