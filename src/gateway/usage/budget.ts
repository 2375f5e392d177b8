/**
 * Budgets in tests: what a block of test code spends, by method and in total, read from the
 * gateway's usage counters (./counters.ts) before and after it, and what that comes to a
 * day when the block stands for a steady workload over a stretch of the gateway's clock.
 *
 * ```ts
 * const spent = await measureCredits(server, async () => { await client.getBlockNumber() })
 * expect(spent.total).toBeLessThanOrEqual(100)
 * expect(spent.byMethod.eth_blockNumber).toBe(80)
 * ```
 */
import type { GatewayControl, UsageTotals } from '../control/types.ts'

const DAY_MS = 86_400_000

/** A running server, an app, a gateway: anything with the control facet, or a gateway that has one. */
export type Measured = { readonly control: GatewayControl } | { readonly gateway: { readonly control: GatewayControl } }

export interface CreditsSpent {
  /** Credits charged while the block ran (every key and network, unless `key`/`network` narrowed it). */
  readonly total: number
  /** Requests counted (calls, a batch's envelope, refusals: ../gateway/usage/counters.ts). */
  readonly requests: number
  /** Credits by method (`(batch)` for batch envelopes); methods that charged nothing are left out. */
  readonly byMethod: Readonly<Record<string, number>>
  /** How far the gateway's clock moved while the block ran, in ms. */
  readonly elapsedMs: number
  /** `total` scaled to a day of the gateway's clock (null when the clock did not move). */
  readonly perDay: number | null
}

function controlOf(target: Measured): GatewayControl {
  return 'control' in target ? target.control : target.gateway.control
}

function diff(before: UsageTotals, after: UsageTotals, options: { key?: string; network?: string }): { total: number; requests: number; byMethod: Record<string, number> } {
  const pick = (t: UsageTotals) => (options.key !== undefined ? t.byKey[options.key] : options.network !== undefined ? t.byNetwork[options.network] : t) ?? { requests: 0, credits: 0 }
  const byMethod: Record<string, number> = {}
  if (options.key === undefined && options.network === undefined) {
    for (const [method, row] of Object.entries(after.byMethod)) {
      const credits = row.credits - (before.byMethod[method]?.credits ?? 0)
      if (credits !== 0) byMethod[method] = credits
    }
  }
  return { total: pick(after).credits - pick(before).credits, requests: pick(after).requests - pick(before).requests, byMethod }
}

/**
 * Runs `block` and returns what the gateway charged meanwhile. With `key` or `network`, only that
 * key's or network's spending (then `byMethod` is empty: totals are kept per method, per key and
 * per network, not crossed). Requests of other code running at the same time count too.
 */
export async function measureCredits(target: Measured, block: () => unknown, options: { key?: string; network?: string } = {}): Promise<CreditsSpent> {
  const control = controlOf(target)
  const before = control.usageTotals()
  const start = control.clock().ms
  await block()
  const after = control.usageTotals()
  const elapsedMs = control.clock().ms - start
  const spent = diff(before, after, options)
  return { ...spent, elapsedMs, perDay: elapsedMs > 0 ? Math.round((spent.total * DAY_MS) / elapsedMs) : null }
}
