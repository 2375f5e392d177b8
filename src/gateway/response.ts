/**
 * The one place a gateway outcome becomes HTTP status, headers and body bytes: refusals
 * (`GatewayError`) and JSON-RPC responses alike. Headers are lowercase.
 */
import { serializeResponses } from '../rpc/rawJson.ts'
import { InvalidRequestError, MethodNotFoundError, ParseError } from '../rpc/errors.ts'
import type { JsonRpcId, JsonRpcResponse } from '../rpc/types.ts'
import { GatewayError, LimitError } from './errors.ts'

export interface HttpResponse {
  status: number
  headers: Record<string, string>
  /** Text, or bytes when the answer splices in pre-encoded JSON (see rpc/rawJson.ts). */
  body: string | Buffer
}

export const JSON_CONTENT_TYPE = 'application/json'
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8'

/**
 * JSON-RPC codes that make a single (non-batch) response an HTTP 400: the request itself was bad
 * (ERRTABLE: "400 Bad request"), and an unknown method was answered 400 by the real service
 * (INFURA/infura#124). Everything else, including every batch, is 200.
 */
const BAD_REQUEST_CODES: ReadonlySet<number> = new Set([
  ParseError.code,
  InvalidRequestError.code,
  MethodNotFoundError.code,
])

function withBody(status: number, contentType: string | undefined, body: string | Buffer, extra: Record<string, string> = {}): HttpResponse {
  const headers: Record<string, string> = { ...extra }
  if (contentType !== undefined) headers['content-type'] = contentType
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
  return { status, headers, body }
}

/** The HTTP status for a JSON-RPC answer (see BAD_REQUEST_CODES). */
export function jsonRpcStatus(payload: JsonRpcResponse | readonly JsonRpcResponse[]): number {
  if (Array.isArray(payload)) return 200
  const single = payload as JsonRpcResponse
  return 'error' in single && BAD_REQUEST_CODES.has(single.error.code) ? 400 : 200
}

/**
 * A JSON-RPC answer (single, batch, or nothing when every call was a notification). JSON has no
 * trailing newline: the 113-byte 2018 capture matches the body without one.
 */
export function jsonRpcResponse(payload: JsonRpcResponse | readonly JsonRpcResponse[] | undefined): HttpResponse {
  if (payload === undefined) return withBody(200, undefined, '')
  return withBody(jsonRpcStatus(payload), JSON_CONTENT_TYPE, serializeResponses(payload))
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
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: { code: err.code, event: limit.event, message: err.message, details: limit.details },
      })
      return withBody(err.httpStatus, JSON_CONTENT_TYPE, body, { ...err.headers })
    }
    case 'empty':
      return withBody(err.httpStatus, undefined, '', { ...err.headers })
  }
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError
}
