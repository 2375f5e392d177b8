/**
 * Pieces several of the read methods share: geth's `bool` parameter and the block whose state a
 * method reads, with geth's errors. (Candidates for ../validators.ts and ../blocks.ts.)
 */
import type { BlockRecord, BlockSelector, Chain } from '../../chain/chain.ts'
import { HeaderNotFoundError } from '../blocks.ts'
import { ServerError } from '../errors.ts'
import { ArgumentError } from '../params.ts'
import type { Param } from '../params.ts'

/** A JSON boolean, as Go's `bool` decodes it. */
export const bool: Param<boolean> = {
  parse(v) {
    if (typeof v !== 'boolean') {
      const kind = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v
      throw new ArgumentError(`json: cannot unmarshal ${kind} into Go value of type bool`)
    }
    return v
  },
}

export const LATEST: BlockSelector = { kind: 'tag', tag: 'latest' }

/**
 * The block whose state a method reads (geth's `StateAndHeaderByNumberOrHash`): an unknown hash
 * is `header for hash not found`, a number past the head `header not found` (code -32000).
 */
export function stateRecord(chain: Chain, selector: BlockSelector): BlockRecord {
  const record = chain.resolve(selector)
  if (record) return record
  if (selector.kind === 'hash') throw new ServerError('header for hash not found')
  throw new HeaderNotFoundError()
}
