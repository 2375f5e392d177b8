/**
 * Alchemy's enhanced methods (the `alchemy` provider profile only, src/gateway/profiles/), computed
 * from the chain as Alchemy's indexers compute them from theirs: token balances
 * (../methods/alchemy_getTokenBalances.ts) and transfers (./transfers.ts). This file: what they read
 * of a token contract, by calls at a block (`balanceOf`, `decimals`, `symbol`), as eth_call runs them.
 */
import { bytesToBigInt } from '@ethereumjs/util'
import { runCall } from '../../chain/execution/call.ts'
import type { ChainReader } from '../../chain/blocks/chainReader.ts'
import type { BlockRecord } from '../../chain/blocks/types.ts'
import type { ExecutionBudget } from '../../chain/vm/executionGuard.ts'
import { fromData } from '../../encoding/hex.ts'

/** The gas each read may use: a token's view functions need far less. */
const READ_GAS = 1_000_000n

/** `balanceOf(address)`, `decimals()`, `symbol()` */
const BALANCE_OF = '70a08231'
const DECIMALS = '313ce567'
const SYMBOL = '95d89b41'

/** What a call returned, or why it did not. */
export type CallAnswer = { ok: true; data: Uint8Array } | { ok: false; error: string }

export async function callView(chain: ChainReader, record: BlockRecord, to: string, data: string, budget: ExecutionBudget): Promise<CallAnswer> {
  const { outcome } = await runCall(chain, record, { to, data: fromData(`0x${data}`) }, READ_GAS, undefined, budget)
  if (outcome.reverted) return { ok: false, error: 'execution reverted' }
  if (outcome.failed) return { ok: false, error: outcome.error ?? 'execution failed' }
  return { ok: true, data: outcome.returnValue }
}

/** `balanceOf(owner)` of `token`: its 32-byte answer, or why there is none (no code, a revert, a short answer). */
export async function balanceOf(chain: ChainReader, record: BlockRecord, token: string, owner: string, budget: ExecutionBudget): Promise<CallAnswer> {
  const answer = await callView(chain, record, token, `${BALANCE_OF}${owner.slice(2).toLowerCase().padStart(64, '0')}`, budget)
  if (answer.ok && answer.data.length < 32) return { ok: false, error: answer.data.length === 0 ? 'contract returned no data (not an ERC-20 token?)' : 'contract returned fewer than 32 bytes' }
  return answer.ok ? { ok: true, data: answer.data.subarray(0, 32) } : answer
}

/** A token's `decimals()` and `symbol()` (a string, or a bytes32 as older tokens return it), each null when the token has none. */
export interface TokenFacts {
  readonly decimals: number | null
  readonly symbol: string | null
}

function decodeSymbol(data: Uint8Array): string | null {
  if (data.length >= 96) {
    const offset = Number(bytesToBigInt(data.subarray(0, 32)))
    if (offset + 32 <= data.length) {
      const length = Number(bytesToBigInt(data.subarray(offset, offset + 32)))
      if (offset + 32 + length <= data.length) return Buffer.from(data.subarray(offset + 32, offset + 32 + length)).toString('utf8')
    }
  }
  if (data.length === 32) {
    const end = data.indexOf(0)
    return Buffer.from(data.subarray(0, end === -1 ? 32 : end)).toString('utf8') || null
  }
  return null
}

export async function tokenFacts(chain: ChainReader, record: BlockRecord, token: string, budget: ExecutionBudget): Promise<TokenFacts> {
  const [decimals, symbol] = await Promise.all([callView(chain, record, token, DECIMALS, budget), callView(chain, record, token, SYMBOL, budget)])
  const d = decimals.ok && decimals.data.length >= 32 ? bytesToBigInt(decimals.data.subarray(0, 32)) : null
  return { decimals: d !== null && d <= 255n ? Number(d) : null, symbol: symbol.ok ? decodeSymbol(symbol.data) : null }
}
