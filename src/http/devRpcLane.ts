/**
 * The test endpoint's fast lane: `POST /_double/rpc/<network>` straight from `node:http` to the
 * control facet's `rpc`, without the Express router, its body parser and the guard as middleware.
 * A test suite's every call goes there (viem's test, wallet and public clients on one URL, as on
 * Anvil), so it is the path `send, wait for the receipt, snapshot, revert` takes.
 *
 * The lane takes only what it answers exactly as the Express route (./controlRoutes.ts) would: a
 * plain path (no query, no percent-encoding, no trailing slash), a declared `content-length` within
 * the route's limit, no `transfer-encoding` or `content-encoding`, and a request the guard
 * (./controlGuard.ts's `controlCheck`) lets pass. Anything else (a refusal, a compressed or chunked
 * body, a path Express would match case-insensitively) goes to Express, which answers it as before.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ControlError } from '../gateway/controlError.ts'
import type { GatewayControl } from '../gateway/control/types.ts'
import type { Logger } from '../gateway/gateway.ts'
import type { ControlCheck } from './controlGuard.ts'
import { DEV_RPC_BODY_LIMIT } from './controlPrefix.ts'

/** `/_double/rpc/<network>`, a network name as config files allow it. */
const DEV_RPC_PATH = /^\/_double\/rpc\/([A-Za-z0-9_.-]+)$/

/** Takes a request it can answer (true), or leaves it untouched for Express (false). */
export type DevRpcLane = (req: IncomingMessage, res: ServerResponse) => boolean

export function createDevRpcLane(control: GatewayControl, check: ControlCheck, logger: Logger): DevRpcLane {
  return (req, res) => {
    if (req.method !== 'POST') return false
    const match = DEV_RPC_PATH.exec(req.url ?? '')
    if (match === null) return false
    const { headers } = req
    const declared = headers['content-length']
    const length = declared === undefined ? 0 : Number(declared)
    if (!/^\d+$/.test(declared ?? '0') || length > DEV_RPC_BODY_LIMIT) return false
    if (headers['transfer-encoding'] !== undefined) return false
    const encoding = headers['content-encoding']
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false
    if (check({ method: req.method, path: `/rpc/${match[1]!}`, headers }) !== undefined) return false
    readBody(req, res, (body) => {
      control.rpc(match[1]!, body).then(
        // writeHead, as the Express route: the answer's own content type, no charset added.
        (answer) => {
          if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body)
        },
        (err: unknown) => {
          // As the control routes' error handler answers: a control error's status and message,
          // anything else a logged 500 (the bytes of Express's `res.json`).
          if (!(err instanceof ControlError)) logger.error('control failure', err)
          if (res.headersSent || res.destroyed) return
          const [status, message] = err instanceof ControlError ? [err.httpStatus, err.message] : [500, 'internal error']
          res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: { message } }))
        },
      )
    })
    return true
  }
}

/** The body (Node ends it at the declared length); a client gone before its end gets nothing (its socket is closed). */
function readBody(req: IncomingMessage, res: ServerResponse, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = []
  let size = 0
  let settled = false
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    chunks.push(chunk)
  })
  req.on('end', () => {
    if (settled) return
    settled = true
    then(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
  })
  const lost = () => {
    if (settled) return
    settled = true
    res.destroy()
  }
  req.on('error', lost)
  req.on('close', () => {
    if (!req.complete) lost()
  })
}
