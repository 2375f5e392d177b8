/** The block a state-reading method reads, with geth's errors for one it cannot find (code -32000). */
import type { Chain } from '../chain/chain.ts'
import type { BlockRecord, BlockSelector } from '../chain/blocks/types.ts'
import { ServerError } from './errors.ts'

export class HeaderNotFoundError extends ServerError {
  constructor() {
    super('header not found')
  }
}

/** The default block of methods whose block parameter is optional. */
export const LATEST: BlockSelector = { kind: 'tag', tag: 'latest' }

/**
 * geth's `StateAndHeaderByNumberOrHash`: an unknown hash is `header for hash not found`, a number
 * past the head (or a tag the chain lacks) `header not found`.
 */
export function stateRecord(chain: Chain, selector: BlockSelector): BlockRecord {
  const record = chain.resolve(selector)
  if (record) return record
  if (selector.kind === 'hash') throw new ServerError('header for hash not found')
  throw new HeaderNotFoundError()
}
