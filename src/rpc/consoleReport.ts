/**
 * Telling the context what contracts logged with `console.log` (chain/vm/consoleTap.ts): a call's
 * lines, or a sent transaction's once mined before the answer (the chain's `auto` mining).
 */
import type { RpcContext } from './method.ts'

/** Reports the lines `hash`'s transaction logged, when it is mined already and logged any. */
export function reportMinedConsole(ctx: RpcContext, hash: string): void {
  if (ctx.console === undefined) return
  const at = ctx.chain.transactionByHash(hash)
  const lines = at?.record.console?.get(at.index)
  if (lines !== undefined) ctx.console(lines, 'transaction')
}
