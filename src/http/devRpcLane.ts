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
 * The body is read as `/v3/`'s (./bodyReader.ts), counted in the server's body budget
 * (./bodyBudget.ts); a failure is answered by the control routes' own `controlFailure`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { GatewayControl } from '../gateway/control/types.ts'
import type { Logger } from '../gateway/gateway.ts'
import type { HttpResponse } from '../gateway/response.ts'
import type { BodyBudget } from './bodyBudget.ts'
import { readBody } from './bodyReader.ts'
import type { BodyLane } from './bodyReader.ts'
import { controlFailure } from './controlFailure.ts'
import type { ControlCheck } from './controlGuard.ts'
import { CONTROL_PREFIX, DEV_RPC_BODY_LIMIT } from './controlPrefix.ts'
import { writeResponse } from './nodeHandler.ts'

/** `/_double/rpc/<network>`, a network name as config files allow it. */
const DEV_RPC_PATH = /^\/_double\/rpc\/([A-Za-z0-9_.-]+)$/
const NETWORK_AT = `${CONTROL_PREFIX}/rpc/`.length

/** Takes a request it can answer (true), or leaves it untouched for Express (false). */
export type DevRpcLane = (req: IncomingMessage, res: ServerResponse) => boolean

/**
 * The lane of `control`: bodies read by ./bodyReader.ts within the route's limit and counted in
 * `bodies`, the server's budget (the gateway's, shared with `/v3/`).
 */
export function createDevRpcLane(control: GatewayControl, check: ControlCheck, logger: Logger, bodies: BodyBudget): DevRpcLane {
  const lane: BodyLane = {
    limit: DEV_RPC_BODY_LIMIT,
    bodies,
    body(req, res, reserved, body) {
      const network = req.url!.slice(NETWORK_AT)
      const answer = (response: HttpResponse) => {
        try {
          if (!res.headersSent) writeResponse(res, response)
        } catch (err) {
          logger.error('transport failure', err)
          res.destroy()
        }
        bodies.give(reserved)
      }
      // A failure as the control routes' error handler answers it (a control error's status and message, anything else a logged 500).
      const failed = (err: unknown) => answer(controlFailure(err, logger, { path: `/rpc/${network}`, originalUrl: req.url! }))
      try {
        control.rpc(network, body).then(answer, failed)
      } catch (err) {
        failed(err)
      }
    },
    // Unreached: the lane takes only declared lengths within the limit, and Node ends a body there.
    tooLarge(req, res, reserved) {
      writeResponse(res, controlFailure({ type: 'entity.too.large' }, logger, { path: '/rpc/', originalUrl: req.url! }))
      req.resume()
      bodies.give(reserved)
    },
  }
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
    readBody(lane, req, res)
    return true
  }
}
