/**
 * Results that are already JSON text, and the one serializer of JSON-RPC responses that splices
 * them in as they are. A method whose answer never changes (a block's receipts) renders it once
 * and returns a `RawJson`; the response is then written without walking the value again.
 */
import { jsonReplacer } from '../encoding/hex.ts'
import { RawId } from './rawIds.ts'
import type { JsonRpcId, JsonRpcResponse } from './types.ts'

/** JSON text standing for a value. `JSON.stringify` of it writes the same value (`toJSON`). */
export class RawJson {
  readonly json: string
  #bytes: Buffer | undefined
  constructor(json: string) {
    this.json = json
  }

  /** The text in UTF-8, encoded on first use. */
  get bytes(): Buffer {
    this.#bytes ??= Buffer.from(this.json, 'utf8')
    return this.#bytes
  }

  /** The value as `JSON.stringify(value, jsonReplacer)` writes it. */
  static of(value: unknown): RawJson {
    return new RawJson(JSON.stringify(value, jsonReplacer))
  }

  toJSON(): unknown {
    return JSON.parse(this.json)
  }
}

/**
 * One response, or a batch, as `JSON.stringify(payload, jsonReplacer)` writes it (the same bytes),
 * with string results written without the replacer. With a `RawJson` result the answer is bytes:
 * the result's encoded text between the envelope's, never re-encoded.
 */
export function serializeResponses(payload: JsonRpcResponse | readonly JsonRpcResponse[]): string | Buffer {
  const parts = Array.isArray(payload) ? payload.map(serializeResponse) : [serializeResponse(payload as JsonRpcResponse)]
  if (!parts.some((p) => typeof p !== 'string')) return Array.isArray(payload) ? `[${parts.join(',')}]` : (parts[0] as string)
  const chunks: Buffer[] = []
  const text = (t: string) => chunks.push(Buffer.from(t, 'utf8'))
  if (Array.isArray(payload)) text('[')
  parts.forEach((p, i) => {
    if (i > 0) text(',')
    if (typeof p === 'string') text(p)
    else {
      text(p.head)
      chunks.push(p.raw.bytes)
      text('}')
    }
  })
  if (Array.isArray(payload)) text(']')
  return Buffer.concat(chunks)
}

/** An id's JSON text: as the client wrote it (`RawId`), else as `JSON.stringify` writes it. */
export function idJson(id: JsonRpcId): string {
  return id instanceof RawId ? id.json : JSON.stringify(id)
}

/** A response's text, or its envelope up to the result and the raw result. */
function serializeResponse(response: JsonRpcResponse): string | { head: string; raw: RawJson } {
  if ('result' in response && isPlainResult(response)) {
    const result = response.result
    if (result instanceof RawJson || typeof result === 'string') {
      const head = `{"jsonrpc":${JSON.stringify(response.jsonrpc)},${response.id === undefined ? '' : `"id":${idJson(response.id)},`}"result":`
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

/** Keys as `execute` writes them (`jsonrpc`, `id`, `result`), so the spliced text keeps their order. */
function isPlainResult(response: object): boolean {
  const keys = Object.keys(response)
  return keys.length === 3 && keys[0] === 'jsonrpc' && keys[1] === 'id' && keys[2] === 'result'
}
