/**
 * A network forked again while it runs (Anvil's `anvil_reset` with `forking`): a new chain opened
 * as at start (./openFork.ts), at another block (default: the upstream's head now, as Anvil), from
 * the same upstream or another, with the settings the network was forked with (headers, cache
 * folder, retries, rules); for a network that is no fork, its first fork. Its cache is that of the
 * new fork block (keyed by chain id, number and hash). The caller swaps it in (`Chain.adopt`) once
 * it is whole, so a failure here leaves the network as it was.
 */
import type { Chain } from '../../chain.ts'
import { FixtureError } from '../fixtureFiles.ts'
import { openFork } from './openFork.ts'
import type { ForkLoadOptions, ForkSettings } from './forkSettings.ts'
import { ForkSource } from './forkSource.ts'

export interface ForkChange {
  /** The upstream to fork from; default the network's. */
  readonly url?: string
  /** The block; default the upstream's head. */
  readonly block?: bigint
}

/** Anvil's refusal of `anvil_reset` with `forking` on a network that is no fork and no URL to fork. */
export const NO_FORK_NO_URL = 'Forking not enabled and RPC URL not provided to start forking'

/** A new chain for `chain`'s network forked as `change` says (see the top of this file); `chain` is left as it is. */
export function forkAgain(chain: Chain, change: ForkChange): Promise<Chain> {
  const source = chain.upstream instanceof ForkSource ? chain.upstream : undefined
  const url = change.url ?? source?.url
  if (url === undefined) {
    return Promise.reject(new FixtureError(source === undefined ? NO_FORK_NO_URL : `the fork of ${source.upstream} is a frozen fixture: give a jsonRpcUrl to fork from`))
  }
  const { url: _url, block: _block, frozen: _frozen, offline, ...kept } = source?.opening?.settings ?? {}
  const settings: ForkSettings = {
    ...kept,
    url,
    ...(change.block === undefined ? {} : { block: change.block }),
    // An offline fork forks again from its cache (of another block), unless told another upstream.
    ...(offline === true && change.url === undefined ? { offline } : {}),
  }
  // The chain's own name: a network copied from a fork (`Chain.fork`) shares its source.
  const opts: ForkLoadOptions = { ...source?.opening?.opts, name: chain.name, clock: chain.clock, quickProbe: true }
  return openFork(settings, opts)
}
