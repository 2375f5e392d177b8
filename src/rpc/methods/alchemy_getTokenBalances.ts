import type { ChainReader } from '../../chain/blocks/chainReader.ts'
import { ADDRESS_RE, toData } from '../../encoding/hex.ts'
import { balanceOf } from '../alchemy/tokenReads.ts'
import { logTransfers } from '../alchemy/transfers.ts'
import { InvalidParamsError } from '../errors.ts'
import { defineMethod, executionBudget } from '../method.ts'
import { ArgumentError, optional } from '../params.ts'
import type { Param } from '../params.ts'
import { address } from '../validators.ts'

/** The most tokens one answer lists (`options.maxCount`'s ceiling and default) and one list may name. */
const MAX_TOKENS = 100

type TokenSpec = { kind: 'erc20' } | { kind: 'list'; tokens: string[] }

const tokenSpec: Param<TokenSpec> = {
  parse(value) {
    if (value === 'erc20') return { kind: 'erc20' }
    if (value === 'DEFAULT_TOKENS' || value === 'NATIVE_TOKEN') {
      throw new ArgumentError(`${value} is not served by the double (Alchemy's lists of popular tokens and the native balance); ask for "erc20" or a list of token addresses`)
    }
    if (!Array.isArray(value)) throw new ArgumentError(`want "erc20" or a list of token addresses, got ${JSON.stringify(value)}`)
    if (value.length > MAX_TOKENS) throw new ArgumentError(`at most ${MAX_TOKENS} token addresses, got ${value.length}`)
    return {
      kind: 'list',
      tokens: value.map((a, i) => {
        if (typeof a !== 'string' || !ADDRESS_RE.test(a)) throw new ArgumentError(`token ${i}: a 20-byte hex address, got ${JSON.stringify(a)}`)
        return a
      }),
    }
  },
}

interface PageOptions {
  readonly pageKey: string | undefined
  readonly maxCount: number
}

const pageOptions: Param<PageOptions> = {
  parse(value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgumentError('want an object {pageKey?, maxCount?}')
    const o = value as Record<string, unknown>
    for (const name of Object.keys(o)) if (name !== 'pageKey' && name !== 'maxCount') throw new ArgumentError(`unknown field ${name} (allowed: pageKey, maxCount)`)
    if (o.pageKey !== undefined && (typeof o.pageKey !== 'string' || !ADDRESS_RE.test(o.pageKey))) throw new ArgumentError(`pageKey: the token address a previous page returned, got ${JSON.stringify(o.pageKey)}`)
    const maxCount = o.maxCount ?? MAX_TOKENS
    if (typeof maxCount !== 'number' || !Number.isSafeInteger(maxCount) || maxCount < 1 || maxCount > MAX_TOKENS) throw new ArgumentError(`maxCount: from 1 to ${MAX_TOKENS}, got ${JSON.stringify(o.maxCount)}`)
    return { pageKey: o.pageKey?.toLowerCase() as string | undefined, maxCount }
  },
}

/** Every ERC-20 contract whose `Transfer` logs name `owner` as sender or recipient, lowercase, sorted. */
function tokensOf(chain: ChainReader, owner: string): string[] {
  const tokens = new Set<string>()
  for (let n = 0n; n <= chain.head.number; n++) {
    const record = chain.byNumber(n)
    if (!record) continue
    for (const receipt of record.receipts) {
      for (const log of receipt.logs) {
        for (const t of logTransfers(record, log)) if (t.category === 'erc20' && (t.from === owner || t.to === owner)) tokens.add(t.contract!)
      }
    }
  }
  return [...tokens].sort()
}

/**
 * Alchemy's token balances (the `alchemy` profile only): `balanceOf(address)` at the head of each
 * token named, or with `"erc20"` (the default) of every ERC-20 token the address has sent or
 * received (from the chain's `Transfer` logs), in address order, at most `maxCount` (100) a page
 * with the last one's address as `pageKey`. Each balance is the 32-byte word `balanceOf` returned,
 * or null with the `error` of a token that did not answer one.
 */
export const alchemy_getTokenBalances = defineMethod({
  name: 'alchemy_getTokenBalances',
  params: [address, optional(tokenSpec, { kind: 'erc20' } as TokenSpec), optional(pageOptions, undefined)],
  async run([owner, spec, options], { chain, execution }) {
    const who = owner.toLowerCase()
    if (spec.kind === 'list' && options !== undefined) throw new InvalidParamsError('options (pageKey, maxCount) apply to "erc20" only')
    let tokens = spec.kind === 'list' ? spec.tokens : tokensOf(chain, who)
    let pageKey: string | undefined
    if (spec.kind === 'erc20') {
      const start = options?.pageKey === undefined ? 0 : tokens.findIndex((t) => t > options.pageKey!)
      const max = options?.maxCount ?? MAX_TOKENS
      const rest = start === -1 ? [] : tokens.slice(start)
      if (rest.length > max) pageKey = rest[max - 1]
      tokens = rest.slice(0, max)
    }
    const budget = executionBudget(execution)
    const tokenBalances = []
    for (const token of tokens) {
      const answer = await balanceOf(chain, chain.head, token, who, budget)
      tokenBalances.push(answer.ok ? { contractAddress: token, tokenBalance: toData(answer.data), error: null } : { contractAddress: token, tokenBalance: null, error: answer.error })
    }
    return pageKey === undefined ? { address: owner, tokenBalances } : { address: owner, tokenBalances, pageKey }
  },
})
