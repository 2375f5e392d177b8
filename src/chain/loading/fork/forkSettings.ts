/**
 * What a forked network is opened with (./openFork.ts): the config's fork settings, and how it
 * loads (its name, cache folder, clock, the upstream client's retries).
 */
import type { ChainClock } from '../../clock.ts'
import type { MiningMode } from '../../mining/miner.ts'
import type { Hardfork } from '../genesis.ts'
import type { UpstreamOptions } from './upstream.ts'

export interface ForkSettings {
  /** The upstream's JSON-RPC URL (may hold a key: it is never printed in full). */
  readonly url?: string
  /** The fork block; default the upstream's head at start. */
  readonly block?: bigint
  /** HTTP headers sent with every upstream request. */
  readonly headers?: Readonly<Record<string, string>>
  /** Serve from the cache alone. */
  readonly offline?: boolean
  /** A frozen fixture folder to serve instead of an upstream (./freeze.ts). */
  readonly frozen?: string
  /** The rules, instead of the upstream's. */
  readonly hardfork?: Hardfork
}

export interface ForkLoadOptions {
  readonly name: string
  /** The verified-chain cache folder (the fork's cache lives in `forks/` under it); false: none. */
  readonly cache?: string | false
  readonly clock?: ChainClock
  readonly miningMode?: MiningMode
  /** Retry settings of the upstream client (tests shorten them). */
  readonly upstream?: Omit<UpstreamOptions, 'url' | 'headers'>
  /** Told the fork block when it was not given (the upstream's head, pinned). */
  readonly onPinned?: (message: string) => void
  /** The upstream's first answer is waited for 3 s at most (a running network forked again). */
  readonly quickProbe?: boolean
}

/** How a fork was opened (kept by its source, ./forkSource.ts): a network forked again reuses it (./forkAgain.ts). */
export interface ForkOpening {
  readonly settings: ForkSettings
  readonly opts: ForkLoadOptions
}
