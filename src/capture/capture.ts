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
import { HARDFORKS } from '../builder/genesisFile.ts'
import type { ScenarioSource } from '../builder/scenario.ts'
import { CaptureError, Endpoint, EndpointRpcError, isMissingMethod } from './endpoint.ts'
import type { RpcErrorBody } from './endpoint.ts'
import { discoverByRunning } from './discover.ts'

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

/** A call as the wire carries it: hex strings. */
export type CallJson = Record<string, string | { address: string; storageKeys: string[] }[]>

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

interface RpcBlock {
  number: string
  hash: string
  parentHash: string
  timestamp: string
  gasLimit: string
  gasUsed: string
  baseFeePerGas?: string
  miner: string
  mixHash: string
  extraData: string
  difficulty: string
  withdrawalsRoot?: string
  blobGasUsed?: string
  excessBlobGas?: string
  parentBeaconBlockRoot?: string
  requestsHash?: string
}

interface RpcTransaction {
  hash: string
  type: string
  from: string
  to: string | null
  input: string
  value: string
  gas: string
  gasPrice?: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
  accessList?: { address: string; storageKeys: string[] }[]
  blockNumber: string | null
  transactionIndex: string | null
}

/** One account as a prestate tracer gives it. */
interface PrestateAccount {
  balance?: string
  nonce?: number | string
  code?: string
  storage?: Record<string, string>
}

const CALL_FIELDS = ['from', 'to', 'data', 'input', 'value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList'] as const
const HEX_RE = /^0x[0-9a-fA-F]*$/
const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'

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
      if (mode === 'trace' || !isMissingMethod(err)) throw err
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

function hex(n: bigint): string {
  return `0x${n.toString(16)}`
}

function toMap(result: unknown): Map<string, PrestateAccount> {
  return new Map(Object.entries(result as Record<string, PrestateAccount>).map(([a, v]) => [a.toLowerCase(), v]))
}

/** The fallback: the access list names accounts and slots, proofs (or plain reads) give their values. */
async function proofsPrestate(endpoint: Endpoint, call: CallJson, block: RpcBlock, chainId: number, hardfork: Hardfork): Promise<{ accounts: Map<string, PrestateAccount>; how: string }> {
  const at = block.number
  // Without the call's gas: the list is made by running the call with the list applied, whose
  // intrinsic cost may not fit the original limit, and a run with more gas touches no less.
  const { gas: _gas, ...unlimited } = call
  let listed: { address: string; storageKeys: string[] }[]
  let discovered = false
  try {
    listed = (
      await endpoint.call<{ accessList: { address: string; storageKeys: string[] }[] }>(
        `the accounts and slots the call touches at block ${at}`,
        'eth_createAccessList',
        [unlimited, at],
      )
    ).accessList
  } catch (err) {
    // geth answers a reverting call's list with an "error" field; Anvil refuses the request.
    if (!(err instanceof EndpointRpcError) || isMissingMethod(err) || !(err.code === 3 || /revert|EVM error|out of gas|execution/i.test(err.message))) throw err
    const touched = await discoverByRunning(endpoint.url, chainId, hardfork, block, call)
    listed = [...touched].map(([address, keys]) => ({ address, storageKeys: [...keys] }))
    discovered = true
  }
  const slots = new Map<string, Set<string>>()
  const touch = (address: string) => {
    const key = address.toLowerCase()
    if (!slots.has(key)) slots.set(key, new Set())
    return slots.get(key)!
  }
  touch(call.from as string)
  if (typeof call.to === 'string') touch(call.to)
  for (const entry of [...listed, ...((call.accessList as { address: string; storageKeys: string[] }[] | undefined) ?? [])]) {
    const keys = touch(entry.address)
    for (const k of entry.storageKeys) keys.add(k.toLowerCase())
  }
  const accounts = new Map<string, PrestateAccount>()
  let viaProof = true
  for (const [address, keys] of slots) {
    const account: PrestateAccount = {}
    const storageKeys = [...keys]
    let codeHash: string | undefined
    if (viaProof) {
      try {
        const proof = await endpoint.call<{ balance: string; nonce: string; codeHash: string; storageProof: { key: string; value: string }[] }>(
          `the account ${address} at block ${at}`,
          'eth_getProof',
          [address, storageKeys, at],
        )
        account.balance = proof.balance
        account.nonce = proof.nonce
        codeHash = proof.codeHash
        account.storage = Object.fromEntries(proof.storageProof.map((p) => [word(p.key), word(p.value)]))
      } catch (err) {
        if (!isMissingMethod(err)) throw err
        viaProof = false
      }
    }
    if (!viaProof) {
      account.balance = await endpoint.call<string>(`the balance of ${address} at block ${at}`, 'eth_getBalance', [address, at])
      account.nonce = await endpoint.call<string>(`the nonce of ${address} at block ${at}`, 'eth_getTransactionCount', [address, at])
      account.storage = {}
      for (const k of storageKeys) {
        account.storage[word(k)] = await endpoint.call<string>(`slot ${k} of ${address} at block ${at}`, 'eth_getStorageAt', [address, k, at])
      }
    }
    if (codeHash !== EMPTY_CODE_HASH) {
      const code = await endpoint.call<string>(`the code of ${address} at block ${at}`, 'eth_getCode', [address, at])
      if (code !== '0x') account.code = code
    }
    accounts.set(address, account)
  }
  const list = discovered ? 'a local run over eth_getProof/eth_getCode/eth_getStorageAt' : 'eth_createAccessList'
  return { accounts, how: `${list} + ${viaProof ? 'eth_getProof' : 'eth_getBalance/eth_getTransactionCount/eth_getStorageAt'}` }
}

function word(value: string): string {
  return `0x${BigInt(value).toString(16).padStart(64, '0')}`
}

/** mainnet's forks from the Merge on: block for Paris, times after it. */
const MAINNET_FORKS: { fork: Hardfork; block?: bigint; time?: bigint }[] = [
  { fork: 'paris', block: 15_537_394n },
  { fork: 'shanghai', time: 1_681_338_455n },
  { fork: 'cancun', time: 1_710_338_135n },
  { fork: 'prague', time: 1_746_612_311n },
  { fork: 'osaka', time: 1_764_798_551n },
]

/**
 * The fork of the captured height: mainnet's schedule for chain id 1; Anvil's own word
 * (`anvil_nodeInfo`, where its BPO forks run Osaka's rules); else the newest fork the header's
 * fields show (requestsHash: Prague, blob fields: Cancun, withdrawals: Shanghai). `--hardfork` overrides.
 */
async function detectHardfork(endpoint: Endpoint, chainId: number, block: RpcBlock): Promise<Hardfork> {
  const number = BigInt(block.number)
  const time = BigInt(block.timestamp)
  if (chainId === 1) {
    let found: Hardfork | undefined
    for (const f of MAINNET_FORKS) if ((f.block !== undefined && number >= f.block) || (f.time !== undefined && time >= f.time)) found = f.fork
    if (found === undefined) throw new CaptureError(`block ${number} is before the Merge: fixtures run Paris or later forks`)
    return found
  }
  const info = await endpoint.send('the node info', 'anvil_nodeInfo', [])
  const named = (info.result as { hardFork?: string } | undefined)?.hardFork?.toLowerCase()
  if (named !== undefined) {
    if (/^bpo\d+$/.test(named)) return 'osaka'
    if ((HARDFORKS as readonly string[]).includes(named)) return named as Hardfork
    if (named === 'merge') return 'paris'
    throw new CaptureError(`the node runs ${info.result && (info.result as { hardFork: string }).hardFork}: fixtures run ${HARDFORKS.join(', ')} (choose one with --hardfork)`)
  }
  if (block.requestsHash !== undefined) return 'prague'
  if (block.excessBlobGas !== undefined) return 'cancun'
  if (block.withdrawalsRoot !== undefined) return 'shanghai'
  if (BigInt(block.difficulty) === 0n && block.baseFeePerGas !== undefined) return 'paris'
  throw new CaptureError(`block ${number} looks older than the Merge: fixtures run Paris or later forks (choose one with --hardfork)`)
}

function isEmpty(a: PrestateAccount): boolean {
  return (
    BigInt(a.balance ?? 0) === 0n &&
    BigInt(a.nonce ?? 0) === 0n &&
    (a.code === undefined || a.code === '0x') &&
    Object.values(a.storage ?? {}).every((v) => BigInt(v) === 0n)
  )
}

/** The fixture source of a capture: the block as genesis, the touched accounts as its alloc, no blocks after it. */
function sourceOf(network: string, chainId: number, hardfork: Hardfork, block: RpcBlock, accounts: Map<string, PrestateAccount>, call: CallJson): ScenarioSource {
  const named = new Map<string, string>([[(call.from as string).toLowerCase(), 'sender']])
  if (typeof call.to === 'string' && call.to.toLowerCase() !== (call.from as string).toLowerCase()) named.set(call.to.toLowerCase(), 'target')
  const entries = [...accounts].filter(([, a]) => !isEmpty(a)).sort(([a], [b]) => (a < b ? -1 : 1))
  const out: ScenarioSource['accounts'] = {}
  for (const [address, a] of entries) {
    const storage = Object.fromEntries(
      Object.entries(a.storage ?? {})
        .filter(([, v]) => BigInt(v) !== 0n)
        .map(([k, v]) => [word(k), word(v)])
        .sort(([x], [y]) => (x! < y! ? -1 : 1)),
    )
    const hasCode = a.code !== undefined && a.code !== '0x'
    out[named.get(address) ?? `acct-${address.slice(2)}`] = {
      address,
      balance: hex(BigInt(a.balance ?? 0)),
      nonce: hex(BigInt(a.nonce ?? 0)),
      ...(hasCode ? { code: a.code!.toLowerCase() } : {}),
      ...(hasCode && Object.keys(storage).length > 0 ? { storage } : {}),
    }
  }
  const number = Number(BigInt(block.number))
  const cancun = HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf('cancun')
  return {
    comment: `Captured block ${number} (${block.hash}) of chain ${chainId}: the accounts one call touches. See capture.json.`,
    network,
    chainId,
    hardfork,
    genesis: {
      number,
      timestamp: Number(BigInt(block.timestamp)),
      gasLimit: block.gasLimit,
      baseFeePerGas: block.baseFeePerGas ?? '0x0',
      extraData: block.extraData,
      coinbase: block.miner.toLowerCase(),
      mixHash: block.mixHash,
      parentHash: block.parentHash,
      gasUsed: block.gasUsed,
      ...(cancun ? { excessBlobGas: block.excessBlobGas ?? '0x0', blobGasUsed: block.blobGasUsed ?? '0x0' } : {}),
    },
    accounts: out,
    blocks: [],
    safe: number,
    finalized: number,
  }
}

export { EndpointRpcError }
