/**
 * Reaching `<network>-mainnet.localhost` from Node without editing /etc/hosts.
 *
 * Browsers and curl treat every `*.localhost` name as loopback, but Node asks the system resolver,
 * which on most machines does not know them; and Node's `fetch` drops a `Host` header set by
 * hand. These helpers keep the real-looking URL (`http://ethereum-mainnet.localhost:8545/v3/<key>`)
 * and only change name resolution: `*.localhost` connects to 127.0.0.1, so the Host header the
 * gateway routes on is the URL's own.
 *
 * - viem: `http(url, { fetchFn: localhostFetch })`
 * - ethers: `req = new FetchRequest(url); req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: localhostAgent })`
 * - anything built on `node:http`: `{ agent: localhostAgent }` or `{ lookup: localhostLookup }`
 * - WebSocket clients: `LocalhostWebSocket` (./localhostWebSocket.ts, apart: this module ships as
 *   CommonJS too and imports only Node's own modules)
 */
import { lookup as dnsLookup } from 'node:dns'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { Agent, request as httpRequest } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { LookupFunction } from 'node:net'

/** `localhost` and every name under it (RFC 6761: loopback). */
export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '')
  return h === 'localhost' || h.endsWith('.localhost')
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** A `dns.lookup` that answers 127.0.0.1 for `*.localhost` and asks the system for anything else. */
export const localhostLookup: LookupFunction = ((hostname: string, options: LookupOptions, callback: LookupCallback) => {
  if (!isLocalhostName(hostname)) {
    dnsLookup(hostname, options, callback as (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void)
    return
  }
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}) as LookupFunction

/**
 * How long `localhostAgent` keeps an idle socket at most. With a `timeout` set, Node's agent also
 * reads a server's `keep-alive: timeout=N` and drops the socket a second before the server would
 * close it (without one it ignores the announcement, and a request sent after a pause of about the
 * server's timeout met the close: `ECONNRESET` or `socket hang up`). A request in flight is not cut:
 * the agent only destroys sockets that sit idle in its pool.
 */
export const LOCALHOST_AGENT_IDLE_MS = 60_000

/** A keep-alive `http.Agent` resolving `*.localhost` to 127.0.0.1. */
export const localhostAgent = new Agent({ keepAlive: true, timeout: LOCALHOST_AGENT_IDLE_MS, lookup: localhostLookup })

function toResponse(res: IncomingMessage, body: Buffer): Response {
  const headers = new Headers()
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else if (value !== undefined) headers.set(name, value)
  }
  const status = res.statusCode ?? 500
  const nullBody = status === 204 || status === 205 || status === 304
  return new Response(nullBody ? null : body, { status, statusText: res.statusMessage ?? '', headers })
}

/**
 * A `fetch` for Node that connects `http://*.localhost` URLs to 127.0.0.1 (through `node:http`,
 * so the Host header is the URL's host). Other URLs go to the global `fetch` unchanged.
 */
export async function localhostFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init)
  const url = new URL(req.url)
  if (url.protocol !== 'http:' || !isLocalhostName(url.hostname)) return fetch(req)
  const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined
  const headers: Record<string, string> = {}
  req.headers.forEach((value, name) => {
    headers[name] = value
  })
  return new Promise<Response>((resolve, reject) => {
    const outgoing = httpRequest(url, { method: req.method, headers, agent: localhostAgent, signal: req.signal }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve(toResponse(res, Buffer.concat(chunks))))
      res.on('error', reject)
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}
