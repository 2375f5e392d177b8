/**
 * Host rule: the network is the `<network>` of a Host `<network>-mainnet.<serviceHost>`; the port
 * and case are ignored. The network map is read live: networks added later (forks, by the
 * gateway's controls) are found too.
 *
 * A Host that names no network (`127.0.0.1:8545`, `localhost`, `[::1]`, a container's name, none)
 * is the default network: the first one served (the config's first, `ethereum` by default). So
 * the plain URL `http://127.0.0.1:8545/v3/<key>` works from every client, as Anvil's does, with no
 * resolver for `*.localhost`. A Host that looks like it names one (`<x>-mainnet.<anything>`, or
 * any name under the service host) and names none served is a 404 naming the hosts served: a typo
 * in a network's name must not quietly reach another chain.
 *
 * A request that came in on a network's own port (`request.network`, set by the transport) is
 * that network whatever its Host (`127.0.0.1:9001`, none...), except a Host naming another
 * network, which is a 404: the client meant a network this port does not serve.
 */
import { OtherNetworkHostError, UnknownNetworkError } from '../errors.ts'
import type { Network, RequestRule } from '../request.ts'

export interface HostRuleOptions {
  readonly serviceHost: string
  readonly networks: ReadonlyMap<string, Network>
  /** A network's host under the serving profile (default `networkHost`: the service's). */
  readonly hostOf?: (name: string, serviceHost: string) => string
}

/** `<name>-mainnet.<serviceHost>` */
export function networkHost(name: string, serviceHost: string): string {
  return `${name}-mainnet.${serviceHost}`
}

/** The host name of a Host header: lowercase, without port or trailing dot. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase()
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '')
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** Whether a host name means a network: `<x>-mainnet.<anything>`, or a name under the service host. */
function namesNetwork(name: string, under: string): boolean {
  return name.includes('-mainnet.') || name.endsWith(under)
}

export function createHostRule(options: HostRuleOptions): RequestRule {
  const hostOf = options.hostOf ?? networkHost
  for (const [name, network] of options.networks) {
    if (network.host !== hostOf(name, options.serviceHost)) {
      throw new TypeError(`network ${name}: host ${network.host} does not match serviceHost ${options.serviceHost}`)
    }
  }
  const suffix = hostOf('', options.serviceHost)
  const under = `.${options.serviceHost}`
  // The last Host header that found a network, and the key it was found under: the same header
  // (a client sends its own on every request) finds it again while the map still holds it there.
  let seenHeader: string | undefined
  let seenKey: string | undefined
  let seenNetwork: Network | undefined
  return function host(state) {
    const header = state.request.host ?? ''
    if (state.request.network === undefined && header === seenHeader && options.networks.get(seenKey!) === seenNetwork) {
      state.network = seenNetwork
      return
    }
    const name = hostName(header)
    if (state.request.network !== undefined) {
      const lane = options.networks.get(state.request.network)
      if (!lane) throw new UnknownNetworkError(name, [...options.networks.values()].map((n) => n.host))
      if (name.endsWith(suffix) && name !== lane.host) throw new OtherNetworkHostError(name, lane)
      state.network = lane
      return
    }
    const named = namesNetwork(name, under)
    // Unnamed: the default network, the first served.
    const key = !named ? options.networks.keys().next().value : name.endsWith(suffix) ? name.slice(0, -suffix.length) : undefined
    const network = key === undefined ? undefined : options.networks.get(key)
    if (!network || (named && network.host !== name)) throw new UnknownNetworkError(name, [...options.networks.values()].map((n) => n.host))
    seenHeader = header
    seenKey = key
    seenNetwork = network
    state.network = network
  }
}
