/**
 * A profile's route rule: its URL paths (`/v2/{key}`, `/{key}/`, `/`...) as the route rule of
 * ../rules/route.ts reads `/v3/<key>`. `{key}` is a path segment (an empty one is a missing key),
 * `{network}` any segment (the network is chosen by host or port, as for every profile); a
 * template ending in `/` matches without it too; the query string is ignored. A profile without
 * `{key}` (public endpoints) takes no key: every request is the keyless key `KEYLESS_KEY`. When
 * the WebSocket path is the HTTP path, a request asking to upgrade to `websocket` is the
 * WebSocket endpoint. Any other path is Go's 404, another HTTP method than POST a 405 (choices:
 * the providers' own answers are not documented).
 */
import { HttpMethodNotAllowedError, PathNotFoundError } from '../errors.ts'
import { header } from '../request.ts'
import type { RequestRule } from '../request.ts'
import type { ProfileSpec } from './profile.ts'
import { refusalOf } from './refusal.ts'
import type { GatewayError } from '../errors.ts'

/** The key every request to a keyless profile is. */
export const KEYLESS_KEY = 'keyless'

function pathPattern(template: string): RegExp {
  const trailing = template.length > 1 && template.endsWith('/')
  const body = (trailing ? template.slice(0, -1) : template)
    .split(/(\{key\}|\{network\})/)
    .map((part) => (part === '{key}' ? '([^/]*)' : part === '{network}' ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${body}${trailing ? '/?' : ''}$`)
}

export function isKeyless(spec: ProfileSpec): boolean {
  return !spec.url.http.includes('{key}')
}

export function createProfileRouteRule(spec: ProfileSpec, missingKey: () => GatewayError): RequestRule {
  const http = pathPattern(spec.url.http)
  const ws = pathPattern(spec.url.ws)
  const samePath = spec.url.http === spec.url.ws
  const keyless = isKeyless(spec)
  const refuseKey = refusalOf(spec.refusals.invalidKey) ?? missingKey
  return function route(state) {
    const { method, path } = state.request
    const pathname = path.split('?', 1)[0] ?? ''
    const upgrade = header(state.request, 'upgrade')?.toLowerCase() === 'websocket'
    let m = samePath ? (upgrade ? null : http.exec(pathname)) : http.exec(pathname)
    let websocket = false
    if (m === null) {
      m = ws.exec(pathname)
      websocket = m !== null
    }
    if (m === null) throw new PathNotFoundError()
    if (!websocket && method !== 'POST') throw new HttpMethodNotAllowedError(method)
    const key = keyless ? KEYLESS_KEY : m[1]
    if (key === undefined || key === '') throw refuseKey()
    state.apiKey = key
    state.websocket = websocket
  }
}
