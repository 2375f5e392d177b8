/**
 * A profile's refusal: the provider's status, content type and exact body (its template filled
 * in), and the JSON-RPC error object a WebSocket message gets instead. `toHttpResponse`
 * (../response.ts) writes it as it writes the service's own refusals.
 */
import { randomBytes } from 'node:crypto'
import { idJson } from '../../rpc/rawJson.ts'
import type { JsonRpcId } from '../../rpc/types.ts'
import { GatewayError } from '../errors.ts'
import type { RefusalSpec } from './profile.ts'

/** What a template's `{from}`, `{to}` and `{limit}` are. */
export interface RefusalValues {
  readonly from?: string
  readonly to?: string
  readonly limit?: string
  readonly limitGrouped?: string
}

function fill(template: string, values: RefusalValues, id: string): string {
  return template.replace(/\{(id|from|to|limit|limitGrouped|traceId)\}/g, (_, name: string) => {
    if (name === 'id') return id
    if (name === 'traceId') return randomBytes(16).toString('hex')
    return values[name as keyof RefusalValues] ?? ''
  })
}

export class ProfileRefusal extends GatewayError {
  override readonly name = 'ProfileRefusal'
  readonly httpStatus: number
  readonly bodyKind = 'profile'
  readonly contentType: string
  readonly #spec: RefusalSpec
  readonly #values: RefusalValues
  /** The call's id, when the refusal is one call's (a range refusal): the body's `{id}` without one given. */
  readonly #id: JsonRpcId | undefined

  constructor(spec: RefusalSpec, values: RefusalValues = {}, id?: JsonRpcId) {
    super(spec.ws.code, fill(spec.ws.message, values, 'null'))
    this.httpStatus = spec.status
    this.contentType = spec.contentType
    this.#spec = spec
    this.#values = values
    this.#id = id
  }

  /** The body, the request's `id` (or the call's) written where the template has `{id}`. */
  body(id: JsonRpcId): string {
    return fill(this.#spec.body, this.#values, idJson(id ?? this.#id ?? null))
  }

  /** The error object a WebSocket message gets. */
  get wsError(): { code: number; message: string } {
    return { code: this.code, message: this.message }
  }
}

/** A refusal maker of one spec, for the rules that refuse often (throughput). */
export function refusalOf(spec: RefusalSpec | undefined): (() => GatewayError) | undefined {
  return spec === undefined ? undefined : () => new ProfileRefusal(spec)
}
