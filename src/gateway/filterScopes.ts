/**
 * The filter tables of the gateway: one per API key and network, so that every connection of a key
 * (HTTP requests, WebSocket sockets) shares its filter ids on that network, as the service does
 * ("The filter IDs can be shared by any connection using the same API key"). A table is made on a
 * key's first filter call on a network; expiry runs on the gateway's clock, so `control.setClock`
 * expires filters. Filters are no part of snapshots or forks: a restore is, for them, what the
 * chain tells (blocks removed and added), and a forked network starts with none.
 */
import type { ChainClock } from '../chain/clock.ts'
import { FilterTable } from '../chain/filters/filterTable.ts'
import type { FilterLimits } from '../chain/filters/filterTable.ts'
import type { Network } from './request.ts'

export interface FilterScopesOptions {
  readonly clock: ChainClock
  readonly limits?: Partial<FilterLimits>
  /** Told of a failure in a table's listener (a bug). */
  readonly onError?: (err: unknown) => void
}

export class FilterScopes {
  readonly #options: FilterScopesOptions
  /** By key, then network name. */
  readonly #tables = new Map<string, Map<string, FilterTable>>()

  constructor(options: FilterScopesOptions) {
    this.#options = options
  }

  /** The filters of `key` on `network`, made on first use. */
  tableOf(key: string, network: Network): FilterTable {
    let byNetwork = this.#tables.get(key)
    if (!byNetwork) this.#tables.set(key, (byNetwork = new Map()))
    let table = byNetwork.get(network.name)
    if (!table) {
      const { clock, limits, onError } = this.#options
      table = new FilterTable({ events: network.chain.events, clock, ...(limits ? { limits } : {}), ...(onError ? { onError } : {}) })
      byNetwork.set(network.name, table)
    }
    return table
  }

  /** The tables made so far, with their key and network (for the controls and tests). */
  *entries(): IterableIterator<{ key: string; network: string; table: FilterTable }> {
    for (const [key, byNetwork] of this.#tables) for (const [network, table] of byNetwork) yield { key, network, table }
  }
}
