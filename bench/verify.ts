/**
 * Do gateway-double and Anvil serve the same chain? Compared over JSON-RPC, on both servers:
 * block headers (field by field), every receipt of every block (status, gas, logs...), the token's
 * balance slots and total supply, and the accounts' balances and nonces, at the head and before it.
 */
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { RpcClient } from './rpc.ts'

export interface Mismatch {
  what: string
  gatewayDouble: unknown
  anvil: unknown
  /** Set when the difference is expected, and why. */
  expected?: string
}

export interface HeaderFieldComparison {
  field: string
  /** Blocks (0 = genesis) where the two servers differ. */
  differsIn: number[]
  /** Why, when the difference is expected. */
  reason?: string
}

export interface Verification {
  blocks: number
  blockHashesMatch: boolean
  headerFields: HeaderFieldComparison[]
  receiptsCompared: number
  storageSlotsCompared: number
  accountsCompared: number
  /** Unexpected differences: receipts, storage, accounts, transactions, unexplained header fields. */
  mismatches: Mismatch[]
  notes: string[]
}

/** Storage slot of `balanceOf[holder]` (mapping at slot 0). */
export function balanceSlot(holder: string): string {
  const key = new Uint8Array(64)
  key.set(setLengthLeft(hexToBytes(holder as `0x${string}`), 32), 0)
  return bytesToHex(keccak256(key))
}

const norm = (v: unknown): unknown => (typeof v === 'string' && v.startsWith('0x') ? v.toLowerCase() : v)

/** Compares `fields` of two objects (recursing into arrays of objects with `nested`). */
export function diffFields(
  what: string,
  a: Record<string, unknown> | null | undefined,
  b: Record<string, unknown> | null | undefined,
  fields: readonly string[],
  nested: Readonly<Record<string, readonly string[]>> = {},
): Mismatch[] {
  if (a == null || b == null) return a == b ? [] : [{ what, gatewayDouble: a, anvil: b }]
  const out: Mismatch[] = []
  for (const field of fields) {
    const x = a[field]
    const y = b[field]
    const sub = nested[field]
    if (sub !== undefined && Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) out.push({ what: `${what}.${field}.length`, gatewayDouble: x.length, anvil: y.length })
      else x.forEach((item, i) => out.push(...diffFields(`${what}.${field}[${i}]`, item as Record<string, unknown>, y[i] as Record<string, unknown>, sub)))
    } else if (JSON.stringify(norm(x)) !== JSON.stringify(norm(y)) && !(Array.isArray(x) && JSON.stringify(x.map(norm)) === JSON.stringify((y as unknown[]).map(norm)))) {
      out.push({ what: `${what}.${field}`, gatewayDouble: x, anvil: y })
    }
  }
  return out
}

export const TX_FIELDS = [
  'hash', 'from', 'to', 'nonce', 'input', 'gas', 'value', 'type', 'chainId', 'v', 'r', 's', 'yParity',
  'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList', 'transactionIndex', 'blockNumber',
] as const
export const LOG_FIELDS = ['address', 'topics', 'data', 'logIndex', 'transactionIndex', 'transactionHash', 'blockNumber', 'removed'] as const
export const RECEIPT_FIELDS = [
  'transactionHash', 'transactionIndex', 'blockNumber', 'from', 'to', 'contractAddress', 'cumulativeGasUsed', 'gasUsed',
  'effectiveGasPrice', 'status', 'type', 'logsBloom', 'logs',
] as const

const HEADER_FIELDS = [
  'number', 'hash', 'parentHash', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'miner', 'gasLimit', 'gasUsed',
  'timestamp', 'baseFeePerGas', 'extraData', 'mixHash', 'nonce', 'difficulty', 'sha3Uncles', 'withdrawalsRoot', 'blobGasUsed',
  'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash',
] as const

const EXPECTED: Record<string, string> = {
  mixHash: 'Anvil draws a random prevRandao for each block and has no RPC to set it',
  extraData: 'Anvil writes an empty extraData and has no RPC to set it; the builder writes "gateway-double"',
  hash: 'follows from mixHash and extraData (and the genesis header)',
  parentHash: 'follows from the parent hashes',
  stateRoot:
    "Anvil's genesis header carries the empty-trie root instead of the alloc's root, and the EIP-2935 history contract stores each chain's own (different) block hashes",
}

const EIP2935 = '0x0000f90827f1c53a10cb7a02335b175320002935'

interface Header extends Record<string, unknown> {
  hash: string
  number: string
  transactions: string[]
}

export async function verifyAgreement(
  gd: RpcClient,
  anvil: RpcClient,
  opts: { head: number; token: string; holders: readonly string[]; accounts: readonly string[] },
): Promise<Verification> {
  const mismatches: Mismatch[] = []
  const notes: string[] = []
  const both = async <T>(method: string, params: unknown[]): Promise<[T, T]> =>
    Promise.all([gd.call<T>(method, params), anvil.call<T>(method, params)])

  // Headers and transaction lists.
  const differs = new Map<string, number[]>()
  const headers: [Header, Header][] = []
  for (let n = 0; n <= opts.head; n++) {
    const [a, b] = await both<Header>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    headers.push([a, b])
    for (const m of diffFields(`block ${n}`, a, b, HEADER_FIELDS)) {
      const field = m.what.slice(m.what.indexOf('.') + 1)
      differs.set(field, [...(differs.get(field) ?? []), n])
    }
    if (JSON.stringify(a.transactions) !== JSON.stringify(b.transactions)) {
      mismatches.push({ what: `block ${n}: transaction hashes`, gatewayDouble: a.transactions.length, anvil: b.transactions.length })
    }
  }
  const headerFields: HeaderFieldComparison[] = HEADER_FIELDS.map((field) => {
    const blocks = differs.get(field) ?? []
    return { field, differsIn: blocks, ...(blocks.length > 0 && EXPECTED[field] ? { reason: EXPECTED[field] } : {}) }
  })
  for (const h of headerFields) {
    if (h.differsIn.length > 0 && h.reason === undefined) {
      const n = h.differsIn[0]!
      mismatches.push({ what: `block ${n}.${h.field} (and ${h.differsIn.length - 1} more blocks)`, gatewayDouble: headers[n]![0][h.field], anvil: headers[n]![1][h.field] })
    }
  }

  // EIP-2935 keeps each chain's own parent hashes: the state roots cannot agree once hashes differ.
  let ownHashes = true
  for (let n = 0; n < opts.head; n++) {
    const slot = `0x${n.toString(16)}`
    const [a, b] = await both<string>('eth_getStorageAt', [EIP2935, slot, 'latest'])
    if (norm(a) !== norm(headers[n]![0].hash) || norm(b) !== norm(headers[n]![1].hash)) ownHashes = false
  }
  notes.push(
    ownHashes
      ? `EIP-2935 history storage holds each server's own hashes of blocks 0..${opts.head - 1} on both servers`
      : 'EIP-2935 history storage does not hold the servers\' own block hashes (unexpected)',
  )

  // Receipts.
  let receiptsCompared = 0
  for (let n = 1; n <= opts.head; n++) {
    const [a, b] = await both<Record<string, unknown>[]>('eth_getBlockReceipts', [`0x${n.toString(16)}`])
    if (a.length !== b.length) {
      mismatches.push({ what: `block ${n}: receipts`, gatewayDouble: a.length, anvil: b.length })
      continue
    }
    a.forEach((r, i) => mismatches.push(...diffFields(`block ${n} receipt ${i}`, r, b[i], RECEIPT_FIELDS, { logs: LOG_FIELDS })))
    receiptsCompared += a.length
  }

  // Token storage at the head and at the block before it; total supply (slot 2).
  let storageSlotsCompared = 0
  const slots = [...opts.holders.map(balanceSlot), '0x2']
  for (const tag of ['latest', `0x${(opts.head - 1).toString(16)}`]) {
    for (const slot of slots) {
      const [a, b] = await both<string>('eth_getStorageAt', [opts.token, slot, tag])
      if (norm(a) !== norm(b)) mismatches.push({ what: `token storage ${slot} at ${tag}`, gatewayDouble: a, anvil: b })
      storageSlotsCompared++
    }
  }
  const [codeA, codeB] = await both<string>('eth_getCode', [opts.token, 'latest'])
  if (norm(codeA) !== norm(codeB)) mismatches.push({ what: 'token code', gatewayDouble: codeA.length, anvil: codeB.length })

  // Accounts: balance and nonce at the head.
  for (const account of opts.accounts) {
    const [balA, balB] = await both<string>('eth_getBalance', [account, 'latest'])
    if (BigInt(balA) !== BigInt(balB)) mismatches.push({ what: `balance of ${account}`, gatewayDouble: balA, anvil: balB })
    const [nA, nB] = await both<string>('eth_getTransactionCount', [account, 'latest'])
    if (BigInt(nA) !== BigInt(nB)) mismatches.push({ what: `nonce of ${account}`, gatewayDouble: nA, anvil: nB })
  }

  return {
    blocks: opts.head,
    blockHashesMatch: (differs.get('hash') ?? []).length === 0,
    headerFields,
    receiptsCompared,
    storageSlotsCompared,
    accountsCompared: opts.accounts.length,
    mismatches,
    notes,
  }
}
