/**
 * What the transport-free gateway core sees of an HTTP request, and the state its rules fill in.
 */
import type { MethodExclusions } from './methodAvailability.ts'
import type { Chain } from '../chain/chain.ts'
import type { SubscriptionHost } from '../rpc/subscriptions.ts'
import type { KeySettings } from './config.ts'

/** A raw HTTP request: any transport (Express, `node:http`, a test) can build one. */
export interface GatewayRequest {
  /** HTTP method, e.g. `POST`. */
  readonly method: string
  /** The `Host` header (port included or not); undefined when absent. */
  readonly host: string | undefined
  /** The request target: path plus optional `?query`. */
  readonly path: string
  /** Header names in lowercase, as `node:http` gives them. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  /** The raw body, parsed by the core (so parse errors are the core's). */
  readonly body: Buffer | string
  /**
   * The network whose own port the request came in on (per-network ports), whatever its Host;
   * undefined on the shared port, where the Host names the network.
   */
  readonly network?: string
  /**
   * Aborted by the transport when the client goes away before the answer: a request held by a
   * scripted fault (timeout, latency) is then released instead of waiting.
   */
  readonly signal?: AbortSignal
}

/** A served network: its name, its host and its chain. */
export interface Network {
  readonly name: string
  /** `<name>-mainnet.<serviceHost>`. */
  readonly host: string
  readonly chain: Chain
  /** The methods it leaves out (./methodAvailability.ts); none when undefined. */
  readonly excludedMethods?: MethodExclusions
}

/** What the rules learn about a request, in order. */
export interface RequestState {
  readonly request: GatewayRequest
  /** The key segment of `/v3/<key>` (route rule). */
  apiKey?: string
  /** The network named by the Host (host rule). */
  network?: Network
  /** The configured key (key rule). */
  key?: KeySettings
  /** The request carried the key's correct secret (secret rule). */
  secretVerified: boolean
  /** The path is the WebSocket endpoint `/ws/v3/<key>` (route rule). */
  websocket?: boolean
  /** A WebSocket session's subscriptions, which its messages' eth_subscribe and eth_unsubscribe use. */
  subscriptions?: SubscriptionHost
}

/** A rule on the HTTP request: passes (possibly filling in state) or throws a `GatewayError`. */
export type RequestRule = (state: RequestState) => void

/** A rule on one JSON-RPC call of the request: passes or throws a `GatewayError`. */
export type CallRule = (state: RequestState, call: { method: string; params: readonly unknown[] }) => void

/** The first value of a header. */
export function header(request: GatewayRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : value?.[0]
}
