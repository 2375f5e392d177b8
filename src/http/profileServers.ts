/**
 * Other providers beside the service (`startServer`'s `profiles`): each profile is a gateway of
 * its own over the same chains, on a port of its own, so one network is served under several
 * providers' rules at once and each meters the same traffic in its own unit (viem's `fallback`
 * pointed at "the gateway" and "Alchemy" sees both). Every request on a profile's port takes the
 * core's fast lane (`anyPath`: its paths are not `/v3/`), WebSockets included.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Gateway } from '../gateway/gateway.ts'
import type { ProfileInput } from '../gateway/profiles/profile.ts'
import { KEYLESS_KEY } from '../gateway/profiles/route.ts'
import { createApp } from './app.ts'
import type { ControlAccess } from '../gateway/controlAccess.ts'
import { closeServer, listenOn } from './listener.ts'
import type { Drainer } from './shutdown.ts'
import { createWebSocketTransport } from './webSocketServer.ts'

/** A profile to serve: its name or profile (as `GatewayOptions.profile`) and its port (0 or none: a free one). */
export interface ProfileServeOption {
  readonly profile: ProfileInput
  readonly port?: number
}

export interface ServedProfile {
  /** The profile's name (`alchemy`...). */
  readonly name: string
  /** What its prices count (`compute units`...). */
  readonly unit: string
  readonly port: number
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string
  /** The first network's URL with its first key, in the provider's path shape (`<origin>/v2/<key>`). */
  readonly url: string | undefined
  /** Its WebSocket URL. */
  readonly wsUrl: string | undefined
  /** The gateway playing the profile (its ledger meters in its unit). */
  readonly gateway: Gateway
}

export interface ProfileServers {
  readonly served: readonly ServedProfile[]
  close(): Promise<void>
  shutdown(graceMs: number): Promise<void>
}

/** A path template with a key and network filled in. */
function pathOf(template: string, network: string, key: string): string {
  return template.replaceAll('{network}', network).replaceAll('{key}', key)
}

/** Starts each profile's gateway (`makeGateway`) on its port (its `/_double/` controls with `control`); on a failure, closes those started and throws. */
export async function startProfileServers(
  options: readonly ProfileServeOption[],
  makeGateway: (profile: ProfileInput) => Gateway,
  bindHost: string,
  connectOrigin: (port: number) => string,
  control = false,
  transport: { controlAccess?: ControlAccess | undefined; maxConnections?: number | undefined } = {},
): Promise<ProfileServers> {
  const started: { server: Server; drainer: Drainer; gateway: Gateway; sockets: ReturnType<typeof createWebSocketTransport> }[] = []
  const closeAll = async () => {
    for (const s of started) s.gateway.close()
    await Promise.all(started.map(async (s) => Promise.all([closeServer(s.server), s.sockets.close()])))
  }
  const served: ServedProfile[] = []
  for (const option of options) {
    const gateway = makeGateway(option.profile)
    // With `control`, each profile's port serves its own controls, usage API and dashboard, in its unit.
    const app = createApp({ gateway, control, ...(transport.controlAccess ? { controlAccess: transport.controlAccess } : {}) })
    try {
      const { server, drainer, connections } = await listenOn(gateway, async () => app, { port: option.port ?? 0, host: bindHost, anyPath: true, maxConnections: transport.maxConnections })
      const sockets = createWebSocketTransport(gateway)
      sockets.attach(server, { connections })
      started.push({ server, drainer, gateway, sockets })
      const port = (server.address() as AddressInfo).port
      const origin = connectOrigin(port)
      const network = gateway.networks.values().next().value
      const key = network === undefined ? undefined : (gateway.keys.find((k) => k.networks.has(network.name) && k.key !== KEYLESS_KEY) ?? gateway.keys.find((k) => k.networks.has(network.name)))?.key
      const { url } = gateway.profile
      served.push({
        name: gateway.profile.name,
        unit: gateway.profile.unit,
        port,
        origin,
        url: network === undefined || key === undefined ? undefined : `${origin}${pathOf(url.http, network.name, key)}`,
        wsUrl: network === undefined || key === undefined ? undefined : `${origin.replace(/^http:/, 'ws:')}${pathOf(url.ws, network.name, key)}`,
        gateway,
      })
    } catch (err) {
      gateway.close()
      await closeAll()
      throw new Error(`profile ${gateway.profile.name}: cannot listen on ${bindHost}:${option.port ?? 0} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
  }
  return {
    served,
    close: closeAll,
    async shutdown(graceMs) {
      const sockets = Promise.all(started.map((s) => s.sockets.close()))
      await Promise.all(started.map((s) => s.drainer.drain(graceMs, () => s.gateway.close())))
      await sockets
    },
  }
}
