/**
 * The one place a gateway outcome becomes HTTP status, headers and body bytes: refusals
 * (`GatewayError`) and JSON-RPC responses alike. Headers are lowercase.
 */
import { idJson, serializeResponseParts } from '../rpc/rawJson.ts'
import { InvalidRequestError, MethodNotFoundError, ParseError } from '../rpc/errors.ts'
import type { JsonRpcId, JsonRpcResponse } from '../rpc/types.ts'
import { DailyCreditsExceededError, GatewayError, LimitError, ThroughputExceededError } from './errors.ts'
import type { ProfileRefusal } from './profiles/refusal.ts'

export interface HttpResponse {
  status: number
  headers: Record<string, string>
  /** Text, or bytes when the answer splices in pre-encoded JSON (see rpc/rawJson.ts). */
  readonly body: string | Buffer
  /**
   * The body in parts when it splices in pre-encoded JSON (a block's receipts): the transport
   * writes them one after the other, without copying the large part into one buffer; `body` is
   * their concatenation, made only when read.
   */
  readonly parts?: readonly Buffer[]
  /**
   * No answer at all: the transport destroys the connection without writing anything (a
   * scripted `drop` fault, or a held request released when the gateway closes). Status, headers
   * and body are then meaningless.
   */
  destroy?: boolean
}

export const JSON_CONTENT_TYPE = 'application/json'
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8'

/**
 * JSON-RPC codes that make a single (non-batch) response an HTTP 400: the request itself was bad
 * (ERRTABLE: "400 Bad request"), and an unknown method was answered 400 by the real service
 * (INFURA/infura#124). Everything else, including every batch, is 200.
 */
/** The end of the service's unknown-method message (`The method x does not exist/is not available`). */
const UNKNOWN_METHOD_SUFFIX = ' does not exist/is not available'

const BAD_REQUEST_CODES: ReadonlySet<number> = new Set([
  ParseError.code,
  InvalidRequestError.code,
  MethodNotFoundError.code,
])

function withBody(status: number, contentType: string | undefined, body: string | Buffer, extra?: Record<string, string>): HttpResponse {
  const length = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
  // The common answer's headers in one literal (the transport writes them in this order).
  if (extra === undefined && contentType !== undefined) return { status, headers: { 'content-type': contentType, 'content-length': length }, body }
  const headers: Record<string, string> = { ...extra }
  if (contentType !== undefined) headers['content-type'] = contentType
  headers['content-length'] = length
  return { status, headers, body }
}

/** The HTTP status for a JSON-RPC answer (see BAD_REQUEST_CODES). */
export function jsonRpcStatus(payload: JsonRpcResponse | readonly JsonRpcResponse[]): number {
  if (Array.isArray(payload)) return 200
  const single = payload as JsonRpcResponse
  if (!('error' in single) || !BAD_REQUEST_CODES.has(single.error.code)) return 200
  // -32601 from the node behind the service (`notifications not supported`, an unknown
  // subscription name) is a 200, as geth answers it; only the service's own unknown-method
  // refusal is a 400.
  if (single.error.code === MethodNotFoundError.code && !single.error.message.endsWith(UNKNOWN_METHOD_SUFFIX)) return 200
  return 400
}

/**
 * A JSON-RPC answer (single, batch, or nothing when every call was a notification). JSON has no
 * trailing newline: the 113-byte 2018 capture matches the body without one.
 */
export function jsonRpcResponse(payload: JsonRpcResponse | readonly JsonRpcResponse[] | undefined): HttpResponse {
  if (payload === undefined) return withBody(200, undefined, '')
  const body = serializeResponseParts(payload)
  if (typeof body === 'string' || Buffer.isBuffer(body)) return withBody(jsonRpcStatus(payload), JSON_CONTENT_TYPE, body)
  return splicedBody(jsonRpcStatus(payload), body)
}

/** A JSON answer in parts (`HttpResponse.parts`), its body concatenated only if something reads it. */
function splicedBody(status: number, parts: readonly Buffer[]): HttpResponse {
  let length = 0
  for (const part of parts) length += part.byteLength
  let body: Buffer | undefined
  return {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, 'content-length': String(length) },
    parts,
    get body() {
      return (body ??= Buffer.concat(parts, length))
    },
  }
}

/** A gateway refusal. `id` is only written by the 402/429 bodies (null when there is no single call). */
export function toHttpResponse(err: GatewayError, id: JsonRpcId = null): HttpResponse {
  switch (err.bodyKind) {
    case 'text':
      return withBody(err.httpStatus, TEXT_CONTENT_TYPE, `${err.message}\n`, {
        ...err.headers,
        'x-content-type-options': 'nosniff',
      })
    case 'rpc-text': {
      const body = JSON.stringify({ jsonrpc: '2.0', error: { code: err.code, message: err.message } })
      return withBody(err.httpStatus, TEXT_CONTENT_TYPE, `${body}\n`, {
        ...err.headers,
        'x-content-type-options': 'nosniff',
      })
    }
    case 'rpc-limit': {
      const limit = err as LimitError
      const error = JSON.stringify({ code: err.code, event: limit.event, message: err.message, details: limit.details })
      const body = `{"jsonrpc":"2.0","id":${idJson(id)},"error":${error}}`
      return withBody(err.httpStatus, JSON_CONTENT_TYPE, body, { ...err.headers })
    }
    case 'empty':
      return withBody(err.httpStatus, undefined, '', { ...err.headers })
    case 'profile': {
      const refusal = err as ProfileRefusal
      return withBody(err.httpStatus, refusal.contentType, refusal.body(id))
    }
  }
}

/** No response: the transport destroys the connection. */
export function droppedResponse(): HttpResponse {
  return { status: 0, headers: {}, body: '', destroy: true }
}

/** The real 429 (per-second throughput), with `retry-after` when a fault asks for one. */
export function rateLimitResponse(id: JsonRpcId, retryAfterSeconds?: number | null): HttpResponse {
  const response = toHttpResponse(new ThroughputExceededError(), id)
  if (retryAfterSeconds !== undefined && retryAfterSeconds !== null) response.headers['retry-after'] = String(retryAfterSeconds)
  return response
}

/** The real 402 (daily credit limit). */
export function dailyLimitResponse(id: JsonRpcId): HttpResponse {
  return toHttpResponse(new DailyCreditsExceededError(), id)
}

const LOAD_BALANCER_TITLES: Readonly<Record<number, string>> = {
  502: '502 Bad Gateway',
  503: '503 Service Temporarily Unavailable',
  504: '504 Gateway Time-out',
}

/**
 * A 5xx as the service's stack would send it (a choice: no capture exists). 500 comes from the
 * service itself: the JSON-RPC internal error the gateway answers its own failures with. 502,
 * 503 and 504 come from the load balancer in front of it (the hosted service runs on AWS): the
 * ELB's HTML page, `content-type: text/html`, `server: awselb/2.0`, CRLF line ends.
 */
export function serverErrorResponse(status: 500 | 502 | 503 | 504, id: JsonRpcId): HttpResponse {
  if (status === 500) {
    const body = `{"jsonrpc":"2.0","id":${idJson(id)},"error":{"code":-32603,"message":"internal error"}}`
    return withBody(500, JSON_CONTENT_TYPE, body)
  }
  const title = LOAD_BALANCER_TITLES[status]!
  const body = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`
  return withBody(status, 'text/html', body, { server: 'awselb/2.0' })
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError
}
