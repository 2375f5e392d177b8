/**
 * The one serializer of JSON-RPC responses, splicing results that are already JSON text
 * (../encoding/rawJson.ts) in as they are. A method whose answer never changes (a block, its
 * receipts) returns the `RawJson` the chain keeps; the response is then written without walking
 * the value again.
 */
import { jsonReplacer } from '../encoding/hex.ts'
import { RawJson } from '../encoding/rawJson.ts'
import { RawId } from './rawIds.ts'
import type { JsonRpcId, JsonRpcResponse } from './types.ts'

/**
 * One response, or a batch, as `JSON.stringify(payload, jsonReplacer)` writes it (the same bytes),
 * with string results written without the replacer. With a `RawJson` result the answer is bytes:
 * the result's encoded text between the envelope's, never re-encoded.
 */
export function serializeResponses(payload: JsonRpcResponse | readonly JsonRpcResponse[]): string | Buffer {
  const parts = serializeResponseParts(payload)
  return typeof parts === 'string' || Buffer.isBuffer(parts) ? parts : Buffer.concat(parts)
}

/**
 * As `serializeResponses`, but a single response with a `RawJson` result in three parts, its
 * envelope's head, the result's encoded bytes (the same buffer each time, never copied) and the
 * envelope's end: a transport writes them one after the other (one `writev`).
 */
export function serializeResponseParts(payload: JsonRpcResponse | readonly JsonRpcResponse[]): string | Buffer | readonly Buffer[] {
  if (!Array.isArray(payload)) {
    const part = serializeResponse(payload as JsonRpcResponse)
    return typeof part === 'string' ? part : [Buffer.from(part.head, 'utf8'), part.raw.bytes, CLOSE]
  }
  const parts = payload.map(serializeResponse)
  if (!parts.some((p) => typeof p !== 'string')) return `[${parts.join(',')}]`
  const chunks: Buffer[] = []
  const text = (t: string) => chunks.push(Buffer.from(t, 'utf8'))
  text('[')
  parts.forEach((p, i) => {
    if (i > 0) text(',')
    if (typeof p === 'string') text(p)
    else {
      text(p.head)
      chunks.push(p.raw.bytes)
      text('}')
    }
  })
  text(']')
  return Buffer.concat(chunks)
}

const CLOSE = Buffer.from('}')

/** An id's JSON text: as the client wrote it (`RawId`), else as `JSON.stringify` writes it. */
export function idJson(id: JsonRpcId): string {
  if (typeof id === 'number' && Number.isFinite(id)) return String(id)
  return id instanceof RawId ? id.json : JSON.stringify(id)
}

/** A response's text, or its envelope up to the result and the raw result. */
function serializeResponse(response: JsonRpcResponse): string | { head: string; raw: RawJson } {
  if (isPlainResult(response)) {
    const result = (response as { result: unknown }).result
    // A list of strings (an idle filter poll's `[]`, a block filter's hashes) is not the
    // replacer's to change: written by JSON.stringify's own fast path.
    if (result instanceof RawJson || typeof result === 'string' || isStringList(result)) {
      const jsonrpc = response.jsonrpc === '2.0' ? '"2.0"' : JSON.stringify(response.jsonrpc)
      const head = `{"jsonrpc":${jsonrpc},${response.id === undefined ? '' : `"id":${idJson(response.id)},`}"result":`
      return result instanceof RawJson ? { head, raw: result } : `${head}${JSON.stringify(result)}}`
    }
  }
  if (response.id instanceof RawId) {
    // The id as written, then the rest as usual (`jsonrpc` and `id` come first in every response).
    const { jsonrpc, id, ...rest } = response
    const tail = JSON.stringify(rest, jsonReplacer)
    return `{"jsonrpc":${JSON.stringify(jsonrpc)},"id":${id.json}${tail === '{}' ? '}' : `,${tail.slice(1)}`}`
  }
  return JSON.stringify(response, jsonReplacer)
}

/** A plain array of strings only (empty included), which `jsonReplacer` leaves as it is. */
function isStringList(value: unknown): value is string[] {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false
  return true
}

/** Keys as `execute` writes them (`jsonrpc`, `id`, `result`), so the spliced text keeps their order. */
function isPlainResult(response: object): boolean {
  // A key walk rather than `Object.keys`: nothing allocated per response.
  let i = 0
  for (const key in response) {
    if (!Object.hasOwn(response, key) || key !== PLAIN_KEYS[i]) return false
    i++
  }
  return i === 3
}

const PLAIN_KEYS = ['jsonrpc', 'id', 'result'] as const
