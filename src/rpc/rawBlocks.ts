/**
 * The block the debug_getRaw* methods read, as geth finds it: a number or tag past the head is no
 * block (`null`), an unknown hash is an error naming it the way Go prints a hash with `%d`.
 */
import type { Chain } from '../chain/chain.ts'
import type { BlockRecord, BlockSelector } from '../chain/blocks/types.ts'
import { ServerError } from './errors.ts'

/** Go's `%d` of a `common.Hash`: its 32 bytes in decimal, `[0 0 ... 1]`. */
function goDecimalBytes(hash: string): string {
  const digits = hash.slice(2)
  const out: number[] = []
  for (let i = 0; i < digits.length; i += 2) out.push(Number.parseInt(digits.slice(i, i + 2), 16))
  return `[${out.join(' ')}]`
}

/** The record, `undefined` for a number past the head, or geth's `<what> #[...] not found` for an unknown hash. */
export function rawRecord(chain: Chain, selector: BlockSelector, what: 'header' | 'block'): BlockRecord | undefined {
  const record = chain.resolve(selector)
  if (record === undefined && selector.kind === 'hash') throw new ServerError(`${what} #${goDecimalBytes(selector.hash)} not found`)
  return record
}
