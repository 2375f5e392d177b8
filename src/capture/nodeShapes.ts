/**
 * What a capture reads from a node, in the node's JSON shapes (blocks, transactions, prestate
 * accounts), and the hex forms it writes.
 */

/** A call as the wire carries it: hex strings. */
export type CallJson = Record<string, string | { address: string; storageKeys: string[] }[]>

export interface RpcBlock {
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

export interface RpcTransaction {
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
export interface PrestateAccount {
  balance?: string
  nonce?: number | string
  code?: string
  storage?: Record<string, string>
}

/** A quantity as the wire writes it. */
export function hex(n: bigint): string {
  return `0x${n.toString(16)}`
}

/** A 32-byte word (a slot, a storage value). */
export function word(value: string): string {
  return `0x${BigInt(value).toString(16).padStart(64, '0')}`
}
