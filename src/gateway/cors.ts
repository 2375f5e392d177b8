/**
 * What every answer carries besides its body: CORS (a preflight's 204, `vary: Origin` and the
 * request's origin allowed back), and the gateway's own failure, the one answer made when
 * everything else failed.
 */
import { errorResponse } from '../rpc/dispatch.ts'
import { InternalError } from '../rpc/errors.ts'
import { header } from './request.ts'
import type { GatewayRequest } from './request.ts'
import { jsonRpcResponse } from './response.ts'
import type { HttpResponse } from './response.ts'

/** The gateway's own failure: the service's 500 with a JSON-RPC `-32603 internal error`, no stack. */
export function gatewayFailure(): HttpResponse {
  return decorate({ ...jsonRpcResponse(errorResponse(null, new InternalError())), status: 500 }, undefined)
}

/** The answer to a CORS preflight (OPTIONS, any path). */
export function preflight(request: GatewayRequest): HttpResponse {
  return {
    status: 204,
    headers: {
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': header(request, 'access-control-request-headers') ?? 'content-type, authorization',
      'access-control-max-age': '86400',
    },
    body: '',
  }
}

/**
 * Headers every answer carries: `vary: Origin`, and the request's origin allowed back (CORS).
 * Every response is made for its request, so its headers are completed in place.
 */
export function decorate(response: HttpResponse, origin: string | undefined): HttpResponse {
  const headers = response.headers
  headers.vary = 'Origin'
  if (origin !== undefined) headers['access-control-allow-origin'] = origin
  else if (response.status === 204) headers['access-control-allow-origin'] = '*'
  return response
}
