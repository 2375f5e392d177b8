/**
 * JSON-RPC calls for the bench's control traffic (replay, checks, warm-up answers), with a hook
 * that sees every answer: the bench counts what gateway-double answered, to check its credit ledger.
 */
import type { Endpoint } from './processes.ts'
import { post } from './processes.ts'

export class RpcError extends Error {
  override readonly name = 'RpcError'
  constructor(
    readonly endpoint: string,
    readonly method: string,
    readonly detail: unknown,
  ) {
    super(`${endpoint}: ${method}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`)
  }
}

export type AnswerHook = (method: string, status: number) => void

export class RpcClient {
  #id = 0
  constructor(
    readonly endpoint: Endpoint,
    private readonly onAnswer?: AnswerHook,
  ) {}

  get name(): string {
    return this.endpoint.name
  }

  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params })
    const answer = await post(this.endpoint, body)
    this.onAnswer?.(method, answer.status)
    if (answer.status !== 200) throw new RpcError(this.name, method, `HTTP ${answer.status}: ${answer.body.slice(0, 300)}`)
    const parsed = JSON.parse(answer.body) as { result?: T; error?: unknown }
    if (parsed.error !== undefined) throw new RpcError(this.name, method, parsed.error)
    return parsed.result as T
  }
}
