/**
 * What subscriptions send, as geth writes it: the `eth_subscription` notification around a result,
 * and `newHeads`' result, geth's `types.Header` JSON (its own field order, `null` for the fields
 * the block's fork does not have, the hash last), rendered once per block.
 */
import { renderHeader } from '../chain/blocks/renderBlock.ts'
import type { BlockRecord } from '../chain/blocks/types.ts'

/** `types.Header`'s JSON fields in geth's order (geth 1.17), the hash after them. */
const HEADER_FIELDS = [
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'baseFeePerGas',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
  'blockAccessListHash',
  'slotNumber',
] as const

const headers = new WeakMap<BlockRecord, string>()

/** A block's header as a newHeads notification carries it, as JSON text (kept per block). */
export function newHeadJson(record: BlockRecord): string {
  let text = headers.get(record)
  if (text === undefined) {
    const fields = renderHeader(record.block)
    const header: Record<string, unknown> = {}
    for (const name of HEADER_FIELDS) header[name] = fields[name] ?? null
    header.hash = record.hash
    text = JSON.stringify(header)
    headers.set(record, text)
  }
  return text
}

/** The notification frame of a subscription, `result` already JSON text. */
export function notificationFrame(subscription: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscription)},"result":${resultJson}}}`
}
