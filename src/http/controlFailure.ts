/**
 * A control request's failure as the control endpoint answers it, `{"error":{"message"}}`: the
 * Express routes' error handler (./controlRoutes.ts) and the test endpoint's lane (./devRpcLane.ts)
 * both answer with it, so a failure reads the same whichever way its request came. A control
 * error (src/gateway/controlError.ts) answers its status and message; Express's refusals of a
 * request (a body that is not JSON or is too large, a bad percent-encoding, an encoding it cannot
 * read) are the client's error; anything else is logged and answers a 500 without details.
 */
import { ControlError } from '../gateway/controlError.ts'
import type { Logger } from '../gateway/gateway.ts'
import type { HttpResponse } from '../gateway/response.ts'

/** Where the failed request went: its path under the control routes (`/rpc/<network>`) and the whole of its URL. */
export interface FailedControlRequest {
  readonly path: string
  readonly originalUrl: string
}

/** The answer to `err`, with the bytes of Express's `res.status(status).json(...)` (its header names, no ETag). */
export function controlFailure(err: unknown, logger: Logger, req: FailedControlRequest): HttpResponse {
  if (err instanceof ControlError) return failure(err.httpStatus, err.message)
  const e = err as { type?: string; status?: number; message?: string } | null | undefined
  if (e?.type === 'entity.parse.failed') return failure(400, `body: not valid JSON (${e.message ?? 'parse error'})`)
  if (e?.type === 'entity.too.large') return failure(413, `body: too large (limit ${req.path.startsWith('/rpc/') ? '32 MiB' : '1 MiB'})`)
  // The router decodes `:params`; a bad percent-encoding is the client's (`/keys/%E0%A4%A`).
  if (err instanceof URIError) return failure(400, `path: bad percent-encoding in ${JSON.stringify(req.originalUrl.slice(0, 200))}`)
  // Express's own refusals of a request (body reading, encodings): the client's error, in this shape.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return failure(e.status, `request: ${e.message ?? 'refused'}`)
  logger.error('control failure', err)
  return failure(500, 'internal error')
}

function failure(status: number, message: string): HttpResponse {
  const body = JSON.stringify({ error: { message } })
  return { status, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) }, body }
}
