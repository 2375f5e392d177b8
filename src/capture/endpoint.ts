/**
 * The JSON-RPC endpoint a capture reads from. Every request says what it fetches, so a failure
 * reads `while fetching the prestate of the call at block 0x1406f40 (debug_traceCall): -32601
 * the method debug_traceCall does not exist/is not available`, not a bare error code.
 */

export class CaptureError extends Error {
  override readonly name: string = 'CaptureError'
}

/** The endpoint answered with a JSON-RPC error. */
export class EndpointRpcError extends CaptureError {
  override readonly name = 'EndpointRpcError'
  readonly code: number
  readonly data: unknown
  readonly method: string
  constructor(what: string, method: string, error: { code: number; message: string; data?: unknown }) {
    super(`while fetching ${what} (${method}): ${error.code} ${error.message}`)
    this.code = error.code
    this.data = error.data
    this.method = method
  }
}

export interface RpcErrorBody {
  code: number
  message: string
  data?: unknown
}

export class Endpoint {
  readonly url: string
  #id = 0

  constructor(url: string) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new CaptureError(`--rpc: not a URL: ${JSON.stringify(url)}`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CaptureError(`--rpc: expected an http(s) URL, got ${JSON.stringify(url)}`)
    this.url = url
  }

  /** Where the capture came from, for the files it writes: scheme and host only (a URL path may hold an API key). */
  get origin(): string {
    return new URL(this.url).origin
  }

  /** The raw answer: the result, or the endpoint's error object. */
  async send(what: string, method: string, params: unknown[]): Promise<{ result?: unknown; error?: RpcErrorBody }> {
    let res: Response
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
      })
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message
      throw new CaptureError(`while fetching ${what} (${method}): cannot reach ${this.origin}: ${cause}`)
    }
    const text = await res.text()
    let body: { result?: unknown; error?: RpcErrorBody }
    try {
      body = JSON.parse(text) as typeof body
    } catch {
      throw new CaptureError(`while fetching ${what} (${method}): HTTP ${res.status}, not a JSON-RPC answer: ${text.slice(0, 200)}`)
    }
    if (body.error === undefined && !('result' in body)) {
      throw new CaptureError(`while fetching ${what} (${method}): HTTP ${res.status}, no result and no error: ${text.slice(0, 200)}`)
    }
    return body
  }

  /** The result, or an {@link EndpointRpcError} naming what was being fetched. */
  async call<T>(what: string, method: string, params: unknown[]): Promise<T> {
    const body = await this.send(what, method, params)
    if (body.error !== undefined) throw new EndpointRpcError(what, method, body.error)
    return body.result as T
  }
}

/** An error that says the endpoint does not have a method (geth -32601, or a "not supported" answer). */
export function isMissingMethod(err: unknown): boolean {
  if (!(err instanceof EndpointRpcError)) return false
  return err.code === -32601 || /not (supported|available|found|exist)|does not exist|unsupported|unknown method/i.test(err.message)
}
