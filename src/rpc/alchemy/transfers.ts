/**
 * The transfers alchemy_getAssetTransfers lists, read from the chain's blocks: `external` (a
 * transaction's value), `internal` (value moved by a contract's CALL, CREATE, CREATE2 or
 * SELFDESTRUCT, from callTracer's frames; DELEGATECALL and STATICCALL move none), and token
 * transfers from logs: `erc20` (`Transfer` with three topics), `erc721` (`Transfer` with four),
 * `erc1155` (`TransferSingle`, `TransferBatch`). In block order, each block's in transaction
 * order, a transaction's external transfer before its internal ones and its logs.
 */
import type { ChainReader } from '../../chain/blocks/chainReader.ts'
import type { LogJson } from '../../chain/blocks/render.ts'
import type { BlockRecord } from '../../chain/blocks/types.ts'

export type TransferCategory = 'external' | 'internal' | 'erc20' | 'erc721' | 'erc1155' | 'specialnft'
export const TRANSFER_CATEGORIES: readonly TransferCategory[] = ['external', 'internal', 'erc20', 'erc721', 'erc1155', 'specialnft']

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const TRANSFER_SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62'
const TRANSFER_BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0737c1a8c6'

/** One transfer, before the answer's shape (./transferJson.ts). */
export interface RawTransfer {
  readonly category: Exclude<TransferCategory, 'specialnft'>
  readonly record: BlockRecord
  readonly hash: string
  /** `<hash>:external`, `<hash>:internal:<n>`, `<hash>:log:<logIndex>` */
  readonly uniqueId: string
  readonly from: string
  readonly to: string | null
  /** The token contract (null for ether). */
  readonly contract: string | null
  /** Wei or token units (null for an ERC-721 or ERC-1155 transfer). */
  readonly amount: bigint | null
  /** ERC-721's token id. */
  readonly tokenId: bigint | null
  /** ERC-1155's ids and amounts. */
  readonly erc1155: readonly { tokenId: bigint; value: bigint }[] | null
}

const topicAddress = (topic: string): string => `0x${topic.slice(26)}`
const word = (data: string, i: number): bigint => BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64) || '0'}`)

/** The token transfers of one log, if it is one. */
export function logTransfers(record: BlockRecord, log: LogJson): RawTransfer[] {
  const [topic0, t1, t2, t3] = log.topics
  const base = { record, hash: log.transactionHash, uniqueId: `${log.transactionHash}:log:${Number(BigInt(log.logIndex))}`, contract: log.address.toLowerCase() }
  if (topic0 === TRANSFER && log.topics.length === 3 && log.data.length === 66) {
    return [{ ...base, category: 'erc20', from: topicAddress(t1!), to: topicAddress(t2!), amount: word(log.data, 0), tokenId: null, erc1155: null }]
  }
  if (topic0 === TRANSFER && log.topics.length === 4) {
    return [{ ...base, category: 'erc721', from: topicAddress(t1!), to: topicAddress(t2!), amount: null, tokenId: BigInt(t3!), erc1155: null }]
  }
  if (topic0 === TRANSFER_SINGLE && log.topics.length === 4 && log.data.length === 130) {
    return [{ ...base, category: 'erc1155', from: topicAddress(t2!), to: topicAddress(t3!), amount: null, tokenId: null, erc1155: [{ tokenId: word(log.data, 0), value: word(log.data, 1) }] }]
  }
  if (topic0 === TRANSFER_BATCH && log.topics.length === 4) {
    try {
      const idsAt = Number(word(log.data, 0)) / 32
      const valuesAt = Number(word(log.data, 1)) / 32
      const n = Number(word(log.data, idsAt))
      if (n !== Number(word(log.data, valuesAt)) || n > 10_000) return []
      const items = Array.from({ length: n }, (_, i) => ({ tokenId: word(log.data, idsAt + 1 + i), value: word(log.data, valuesAt + 1 + i) }))
      return [{ ...base, category: 'erc1155', from: topicAddress(t2!), to: topicAddress(t3!), amount: null, tokenId: null, erc1155: items }]
    } catch {
      return []
    }
  }
  return []
}

/** A transaction's value moved to its `to` (or the contract it created). */
export function externalTransfer(record: BlockRecord, tx: Record<string, unknown>, created: string | null): RawTransfer {
  const hash = String(tx.hash)
  const to = typeof tx.to === 'string' ? tx.to : created
  return { category: 'external', record, hash, uniqueId: `${hash}:external`, from: String(tx.from).toLowerCase(), to: to?.toLowerCase() ?? null, contract: null, amount: BigInt(String(tx.value ?? '0x0')), tokenId: null, erc1155: null }
}

interface CallFrame {
  type: string
  from: string
  to?: string
  value?: string
  error?: string
  calls?: CallFrame[]
}

const MOVES_VALUE = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'])

/** The value a transaction's contracts moved, from its callTracer frame (the top frame is the external transfer). */
export function internalTransfers(record: BlockRecord, hash: string, top: CallFrame): RawTransfer[] {
  const out: RawTransfer[] = []
  const walk = (frame: CallFrame) => {
    for (const call of frame.calls ?? []) {
      if (call.error !== undefined) continue
      const value = BigInt(call.value ?? '0x0')
      if (MOVES_VALUE.has(call.type) && value > 0n) {
        out.push({ category: 'internal', record, hash, uniqueId: `${hash}:internal:${out.length}`, from: call.from.toLowerCase(), to: call.to?.toLowerCase() ?? null, contract: null, amount: value, tokenId: null, erc1155: null })
      }
      walk(call)
    }
  }
  if (top.error === undefined) walk(top)
  return out
}

/** The blocks `from`..`to` of the chain, in the order asked. */
export function* blocksIn(chain: ChainReader, from: bigint, to: bigint, descending: boolean): Generator<BlockRecord> {
  if (descending) {
    for (let n = to; n >= from; n--) {
      const r = chain.byNumber(n)
      if (r) yield r
    }
  } else {
    for (let n = from; n <= to; n++) {
      const r = chain.byNumber(n)
      if (r) yield r
    }
  }
}
