/**
 * Host rule: the network is the `<network>` of a Host `<network>-mainnet.<serviceHost>`; the port
 * and case are ignored. Any other Host is a 404 naming the hosts served. The network map is read
 * live: networks added later (forks, by the gateway's controls) are found too.
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

export function createHostRule(options: HostRuleOptions): RequestRule {
  for (const [name, network] of options.networks) {
    if (network.host !== networkHost(name, options.serviceHost)) {
      throw new TypeError(`network ${name}: host ${network.host} does not match serviceHost ${options.serviceHost}`)
    }
  }
  const suffix = `-mainnet.${options.serviceHost}`
  return function host(state) {
    const name = hostName(state.request.host ?? '')
    if (state.request.network !== undefined) {
      const lane = options.networks.get(state.request.network)
      if (!lane) throw new UnknownNetworkError(name, [...options.networks.values()].map((n) => n.host))
      if (name.endsWith(suffix) && name !== lane.host) throw new OtherNetworkHostError(name, lane)
      state.network = lane
      return
    }
    const network = name.endsWith(suffix) ? options.networks.get(name.slice(0, -suffix.length)) : undefined
    if (!network || network.host !== name) throw new UnknownNetworkError(name, [...options.networks.values()].map((n) => n.host))
    state.network = network
  }
}
