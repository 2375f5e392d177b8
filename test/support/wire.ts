/**
 * Raw HTTP to a real server, as any client sends it: the Host header as given (Node's `fetch`
 * drops it), the body as bytes, the answer's status, headers and text as received.
 */
import { request } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'

export interface WireAnswer {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

export interface WireOptions {
  method?: string
  host?: string
  headers?: Record<string, string>
}

/** Sends one request to `origin` + `path` and reads the whole answer. */
export function send(origin: string, path: string, body: string | Buffer | undefined, opts: WireOptions = {}): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}${path}`,
      { method: opts.method ?? 'POST', headers: { ...(opts.host ? { host: opts.host } : {}), 'content-type': 'application/json', ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** A JSON-RPC body to a network of a server (`POST /v3/<key>`, `Host: <network>-mainnet.localhost`). */
export function postRpc(origin: string, key: string, body: string | object, network = 'ethereum', headers: Record<string, string> = {}): Promise<WireAnswer> {
  return send(origin, `/v3/${key}`, typeof body === 'string' ? body : JSON.stringify(body), { host: `${network}-mainnet.localhost`, headers })
}
