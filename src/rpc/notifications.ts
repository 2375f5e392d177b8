/**
 * What subscriptions send, as geth writes it: the `eth_subscription` notification around a result,
 * and `newHeads`' result, geth's `types.Header` JSON (its own field order, `null` for the fields
 * the block's fork does not have, the hash last), rendered and encoded once per block.
 */
import { renderHeader } from '../chain/blocks/renderBlock.ts'
import type { BlockRecord } from '../chain/blocks/types.ts'
import type { ChainReads } from '../chain/chainReads.ts'
import { RawJson } from '../encoding/rawJson.ts'

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

/** A block's header as a newHeads notification carries it, as JSON bytes (kept by the chain's store: chain/store/renderedJson.ts). */
function newHeadBytes(chain: ChainReads, record: BlockRecord): Buffer {
  return chain.renderedJson(record, 'newHead', () => {
    const fields = renderHeader(record.block)
    const header: Record<string, unknown> = {}
    for (const name of HEADER_FIELDS) header[name] = fields[name] ?? null
    header.hash = record.hash
    return new RawJson(JSON.stringify(header))
  }).bytes
}

const FRAME_END = Buffer.from('}}')

/**
 * A newHeads notification of a subscription, as the bytes of its frame in parts: its prefix (made
 * once per subscription: `notificationPrefix`), the block's header encoded once per block (the
 * store answers each subscriber's ask from what it answered last) and the end, copied once, into
 * the frame, by the transport. Before, each subscriber's frame made its prefix text, encoded it,
 * looked the header up by a key built anew, and joined the three in a buffer of its own.
 */
export function newHeadFrame(chain: ChainReads, prefix: Buffer, record: BlockRecord): readonly Buffer[] {
  return [prefix, newHeadBytes(chain, record), FRAME_END]
}

/** A subscription's notification frame up to its result, as bytes: made once per subscription. */
export function notificationPrefix(subscription: string): Buffer {
  return Buffer.from(framePrefix(subscription))
}

/** A notification frame up to its result. */
function framePrefix(subscription: string): string {
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscription)},"result":`
}

/** The notification frame of a subscription, `result` already JSON text. */
export function notificationFrame(subscription: string, resultJson: string): string {
  return `${framePrefix(subscription)}${resultJson}}}`
}
