/**
 * What `startServer` tells of each network it serves: its host-routed URLs, its own port's, its
 * default key, its contracts. Computed once the ports are bound.
 */
import type { Gateway } from '../gateway/gateway.ts'

export interface ServedNetwork {
  readonly name: string
  readonly chainId: bigint
  readonly headNumber: bigint
  /** `<name>-mainnet.<serviceHost>` */
  readonly host: string
  /** `http://<host>:<port>`: append `/v3/<key>`. */
  readonly baseUrl: string
  /** `baseUrl` + `/v3/<first key enabled for the network>`, or undefined when no key has it. */
  readonly url: string | undefined
  /** The same key's WebSocket endpoint, `ws://<host>:<port>/ws/v3/<key>`. */
  readonly wsUrl: string | undefined
  /** That key. */
  readonly key: string | undefined
  /** The network's own port, when it has one (`networkPorts`): there any Host reaches it. */
  readonly port: number | undefined
  /** `http://127.0.0.1:<its own port>/v3/<key>`, or undefined (no port of its own, or no key). */
  readonly portUrl: string | undefined
  /** `ws://127.0.0.1:<its own port>/ws/v3/<key>`: its WebSocket endpoint there, no name to resolve. */
  readonly portWsUrl: string | undefined
  /** Its contracts' addresses by name, as its fixture's accounts.json names them (a source's as built). */
  readonly contracts: Readonly<Record<string, string>>
  /** The accounts its fixture's accounts.json gives keys for (public test keys), in the file's order. */
  readonly accounts: readonly SigningAccount[]
}

/** A named account of a fixture, with its public test key. */
export interface SigningAccount {
  readonly name: string
  readonly address: string
  readonly privateKey: string
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const HEX_KEY = /^0x[0-9a-fA-F]{64}$/

/** The accounts with keys of a fixture's parsed accounts.json (`Chain.source.index`); none when it has no such list. */
export function signingAccounts(index: unknown): SigningAccount[] {
  const list = (index as { accounts?: unknown } | null | undefined)?.accounts
  if (!Array.isArray(list)) return []
  return list.flatMap((entry: unknown) => {
    const { name, address, privateKey } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>
    const valid = typeof name === 'string' && typeof address === 'string' && HEX_ADDRESS.test(address) && typeof privateKey === 'string' && HEX_KEY.test(privateKey)
    return valid ? [{ name, address: address.toLowerCase(), privateKey: privateKey.toLowerCase() }] : []
  })
}

/** Each network served, as `RunningServer.networks` lists it. */
export function describeNetworks(
  gateway: Gateway,
  port: number,
  ownPorts: ReadonlyMap<string, number>,
  connectOrigin: (port: number) => string,
): ServedNetwork[] {
  return [...gateway.networks.values()].map((n) => {
    const key = gateway.keys.find((k) => k.networks.has(n.name))?.key
    const baseUrl = `http://${n.host}:${port}`
    const ownPort = ownPorts.get(n.name)
    return {
      name: n.name,
      chainId: n.chain.chainId,
      headNumber: n.chain.head.number,
      host: n.host,
      baseUrl,
      url: key === undefined ? undefined : `${baseUrl}/v3/${key}`,
      wsUrl: key === undefined ? undefined : `ws://${n.host}:${port}/ws/v3/${key}`,
      key,
      contracts: n.chain.contracts ?? {},
      accounts: signingAccounts(n.chain.source?.index),
      port: ownPort,
      portUrl: key === undefined || ownPort === undefined ? undefined : `${connectOrigin(ownPort)}/v3/${key}`,
      portWsUrl: key === undefined || ownPort === undefined ? undefined : `${connectOrigin(ownPort).replace(/^http:/, 'ws:')}/ws/v3/${key}`,
    }
  })
}
