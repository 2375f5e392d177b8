/**
 * Results that are already JSON text, and the one serializer of JSON-RPC responses that splices
 * them in as they are. A method whose answer never changes (a block's receipts) renders it once
 * and returns a `RawJson`; the response is then written without walking the value again.
 */
import { jsonReplacer } from '../encoding/hex.ts'
import type { JsonRpcResponse } from './types.ts'

/** JSON text standing for a value. `JSON.stringify` of it writes the same value (`toJSON`). */
export class RawJson {
  readonly json: string
  constructor(json: string) {
    this.json = json
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
 * One response, or a batch, as `JSON.stringify(payload, jsonReplacer)` writes it (same bytes),
 * with `RawJson` results spliced in and string results written without the replacer.
 */
export function stringifyResponses(payload: JsonRpcResponse | readonly JsonRpcResponse[]): string {
  if (!Array.isArray(payload)) return stringifyResponse(payload as JsonRpcResponse)
  return `[${payload.map(stringifyResponse).join(',')}]`
}

function stringifyResponse(response: JsonRpcResponse): string {
  if ('result' in response && isPlainResult(response)) {
    const result = response.result
    if (result instanceof RawJson || typeof result === 'string') {
      const id = response.id === undefined ? '' : `"id":${JSON.stringify(response.id)},`
      const text = result instanceof RawJson ? result.json : JSON.stringify(result)
      return `{"jsonrpc":${JSON.stringify(response.jsonrpc)},${id}"result":${text}}`
    }
  }
  return JSON.stringify(response, jsonReplacer)
}

/** Keys as `execute` writes them (`jsonrpc`, `id`, `result`), so the spliced text keeps their order. */
function isPlainResult(response: object): boolean {
  const keys = Object.keys(response)
  return keys.length === 3 && keys[0] === 'jsonrpc' && keys[1] === 'id' && keys[2] === 'result'
}
