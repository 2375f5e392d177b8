/**
 * The JSON-RPC node a forked network reads from. Every request is retried on what a busy or
 * flaky node answers (no answer within the attempt's time, HTTP 429, 5xx, a connection refused or
 * cut), with exponential backoff and the node's `retry-after` honoured, for at most `budgetMs`
 * (30 s by default) and at least three attempts; a JSON-RPC error in the answer is the node's
 * answer and is not retried. Failures are `UpstreamError`s naming the method and the node by its
 * label (`redactUrl`): the URL's key never appears in a message.
 */

export class UpstreamError extends Error {
  override readonly name: string = 'UpstreamError'
}

/** The node answered with a JSON-RPC error object (not retried). */
export class UpstreamRpcError extends UpstreamError {
  override readonly name = 'UpstreamRpcError'
  /** The node's error object, as it answered it. */
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
  constructor(label: string, method: string, error: { code: number; message: string; data?: unknown }) {
    super(`fork upstream ${label}: ${method}: ${error.code} ${error.message}`)
    this.error = { code: error.code, message: String(error.message), ...(error.data === undefined ? {} : { data: error.data }) }
  }
}

export interface UpstreamOptions {
  readonly url: string
  /** Extra HTTP headers (an API key in a header, say). Never printed. */
  readonly headers?: Readonly<Record<string, string>>
  /** One attempt's time limit in ms. Default 10,000. */
  readonly attemptTimeoutMs?: number
  /** How long a request may keep retrying, in ms. Default 30,000. */
  readonly budgetMs?: number
  /** The first backoff in ms (doubled per attempt, at most 5 s). Default 250. */
  readonly backoffMs?: number
}

const MIN_ATTEMPTS = 3
const MAX_BACKOFF_MS = 5_000

/**
 * The URL as it may be shown: scheme, host and port; a user name or password, the query and any
 * path segment that may be a key (more than 8 characters with a digit, or a long one) become `***`.
 */
export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '(not a URL)'
  }
  const path = parsed.pathname
    .split('/')
    .map((segment) => (segment.length > 24 || (segment.length > 8 && /\d/.test(segment)) ? '***' : segment))
    .join('/')
  const auth = parsed.username !== '' || parsed.password !== '' ? '***@' : ''
  return `${parsed.protocol}//${auth}${parsed.host}${path === '/' ? '' : path}${parsed.search === '' ? '' : '?***'}`
}

export class Upstream {
  readonly #url: string
  readonly #headers: Readonly<Record<string, string>>
  readonly #attemptMs: number
  readonly #budgetMs: number
  readonly #backoffMs: number
  /** The URL as it may be shown (see `redactUrl`). */
  readonly label: string
  /** HTTP requests sent so far (retries included). */
  requests = 0
  #id = 0

  constructor(opts: UpstreamOptions) {
    let parsed: URL
    try {
      parsed = new URL(opts.url)
    } catch {
      throw new UpstreamError(`fork url: not a URL: ${redactUrl(opts.url)}`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UpstreamError(`fork url: expected an http(s) URL, got ${redactUrl(opts.url)}`)
    // fetch refuses a URL with credentials: they go in an Authorization header instead.
    const auth = parsed.username !== '' || parsed.password !== '' ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}` : undefined
    parsed.username = ''
    parsed.password = ''
    this.#url = parsed.toString()
    this.#headers = { ...(auth === undefined ? {} : { authorization: auth }), ...opts.headers }
    this.#attemptMs = opts.attemptTimeoutMs ?? 10_000
    this.#budgetMs = opts.budgetMs ?? 30_000
    this.#backoffMs = opts.backoffMs ?? 250
    this.label = redactUrl(opts.url)
  }

  /** The result of `method`, retried as the top of this file says. */
  async call<T>(method: string, params: readonly unknown[]): Promise<T> {
    const started = Date.now()
    let why = ''
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(method, params)
      if ('result' in outcome) return outcome.result as T
      why = outcome.failure
      const wait = outcome.retryAfterMs ?? Math.min(this.#backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS)
      const spent = Date.now() - started
      if (attempt >= MIN_ATTEMPTS && spent + wait + this.#attemptMs > this.#budgetMs) {
        throw new UpstreamError(`fork upstream ${this.label}: ${method}: ${why} (${attempt} attempts in ${Math.round(spent / 100) / 10} s)`)
      }
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }

  async #attempt(method: string, params: readonly unknown[]): Promise<{ result: unknown } | { failure: string; retryAfterMs?: number }> {
    this.requests++
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), this.#attemptMs)
    try {
      const res = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.#headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
        signal: controller.signal,
      })
      const text = await res.text()
      if (res.status === 429 || res.status >= 500) {
        const retryAfter = retryAfterMs(res.headers.get('retry-after'))
        return { failure: `HTTP ${res.status}`, ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }) }
      }
      let body: { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      try {
        body = JSON.parse(text) as typeof body
      } catch {
        return { failure: `HTTP ${res.status}, not a JSON-RPC answer` }
      }
      if (body.error !== undefined && body.error !== null && typeof body.error === 'object') {
        if (body.error.code === 429 || body.error.code === -32005) return { failure: `${body.error.code} ${String(body.error.message)}` }
        throw new UpstreamRpcError(this.label, method, body.error)
      }
      if (!('result' in body)) return { failure: `HTTP ${res.status}, no result and no error` }
      return { result: body.result }
    } catch (err) {
      if (err instanceof UpstreamError) throw err
      if (controller.signal.aborted) return { failure: `no answer within ${this.#attemptMs} ms` }
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      return { failure: `cannot reach it (${cause?.code ?? cause?.message ?? (err as Error).message})` }
    } finally {
      clearTimeout(timer)
    }
  }
}

/** `retry-after` in ms: seconds, or an HTTP date; at most 30 s. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined
  const seconds = Number(value)
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now()
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 30_000) : undefined
}
