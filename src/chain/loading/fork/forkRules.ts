/**
 * The rules a fork runs: the fork block's header bounds them (a `requestsHash` is Prague or later,
 * a `parentBeaconBlockRoot` Cancun or later, a `withdrawalsRoot` Shanghai or later); within those
 * bounds, the upstream's `eth_config` (EIP-7910) names them where it answers, else a known chain's
 * schedule by the block's time, else the latest.
 */
import type { Hardfork } from '../genesis.ts'
import type { Upstream } from './upstream.ts'

/** Mainnet's forks by time (EIP-7607's Osaka at 1764798551). */
const MAINNET: readonly [Hardfork, bigint][] = [
  ['osaka', 1764798551n],
  ['prague', 1746612311n],
  ['cancun', 1710338135n],
  ['shanghai', 1681338455n],
]
const SCHEDULES: Readonly<Record<string, readonly [Hardfork, bigint][]>> = { '1': MAINNET }

export async function choseHardfork(client: Upstream, chainId: bigint, header: Record<string, unknown>): Promise<Hardfork> {
  const bounds: [Hardfork, Hardfork] =
    header.requestsHash !== undefined
      ? ['prague', 'osaka']
      : header.parentBeaconBlockRoot !== undefined
        ? ['cancun', 'cancun']
        : header.withdrawalsRoot !== undefined
          ? ['shanghai', 'shanghai']
          : ['paris', 'paris']
  if (bounds[0] === bounds[1]) return bounds[0]
  const named = await fromConfig(client)
  if (named === 'osaka' || named === 'prague') return named
  const schedule = SCHEDULES[chainId.toString()]
  const time = BigInt(String(header.timestamp))
  const byTime = schedule?.find(([, at]) => time >= at)?.[0]
  return byTime === 'osaka' || byTime === 'prague' ? byTime : bounds[1]
}

/** The fork `eth_config` describes as current, or undefined where it does not answer. */
async function fromConfig(client: Upstream): Promise<Hardfork | undefined> {
  let config: { current?: { precompiles?: Record<string, unknown>; systemContracts?: Record<string, unknown>; blobSchedule?: unknown } } | null
  try {
    config = await client.call('eth_config', [])
  } catch {
    return undefined
  }
  const current = config?.current
  if (current === undefined) return undefined
  if (Object.keys(current.precompiles ?? {}).includes('P256VERIFY')) return 'osaka'
  if (Object.keys(current.systemContracts ?? {}).some((name) => /HISTORY_STORAGE|CONSOLIDATION|WITHDRAWAL_REQUEST/.test(name))) return 'prague'
  return current.blobSchedule !== undefined ? 'cancun' : 'shanghai'
}
