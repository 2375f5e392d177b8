/**
 * geth's `setFeeDefaults` for methods that price a call as a transaction would be priced
 * (eth_createAccessList): a complete fee mechanism is kept (and checked), a missing one filled in
 * from the block the call runs on: after London, the oracle's tip and twice the base fee plus it;
 * before, the oracle's price; a blob call's blob fee cap, twice the blob base fee. Errors in geth's
 * words (-32000).
 */
import type { BlockRecord } from '../chain/blocks/types.ts'
import type { Chain } from '../chain/chain.ts'
import type { CallArgs } from '../chain/execution/callArgs.ts'
import { suggestTipCap } from '../chain/fees/gasPrice.ts'
import { ServerError } from './errors.ts'

export function withFeeDefaults(chain: Chain, record: BlockRecord, args: CallArgs): CallArgs {
  const out = { ...args }
  const header = record.block.header
  if (out.maxFeePerBlobGas === 0n) throw new ServerError('maxFeePerBlobGas, if specified, must be non-zero')
  if (out.blobVersionedHashes !== undefined && out.maxFeePerBlobGas === undefined && header.excessBlobGas !== undefined) {
    out.maxFeePerBlobGas = header.getBlobGasPrice() * 2n
  }
  if (out.gasPrice !== undefined && (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined)) {
    throw new ServerError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (out.gasPrice !== undefined && out.authorizationList !== undefined) throw new ServerError('both gasPrice and authorizationList specified')
  if (out.gasPrice === undefined && out.maxFeePerGas !== undefined && out.maxPriorityFeePerGas !== undefined) {
    if (out.maxFeePerGas === 0n) throw new ServerError('maxFeePerGas must be non-zero')
    if (out.maxFeePerGas < out.maxPriorityFeePerGas) throw new ServerError(`maxFeePerGas (${hex(out.maxFeePerGas)}) < maxPriorityFeePerGas (${hex(out.maxPriorityFeePerGas)})`)
    return out
  }
  const london = header.baseFeePerGas !== undefined
  if (out.gasPrice !== undefined) {
    if (out.gasPrice === 0n && london) throw new ServerError('gasPrice must be non-zero after london fork')
    return out
  }
  if (!london) {
    if (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined) {
      throw new ServerError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active')
    }
    out.gasPrice = suggestTipCap(chain)
    return out
  }
  out.maxPriorityFeePerGas ??= suggestTipCap(chain)
  out.maxFeePerGas ??= out.maxPriorityFeePerGas + header.baseFeePerGas! * 2n
  if (out.maxFeePerGas < out.maxPriorityFeePerGas) throw new ServerError(`maxFeePerGas (${hex(out.maxFeePerGas)}) < maxPriorityFeePerGas (${hex(out.maxPriorityFeePerGas)})`)
  return out
}

/** Go's `%v` of a `*hexutil.Big`: its hex. */
function hex(n: bigint): string {
  return `0x${n.toString(16)}`
}
