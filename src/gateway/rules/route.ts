/**
 * Route rule: the gateway answers `POST /v3/<key>` and, for WebSocket upgrades, `/ws/v3/<key>`
 * (query strings ignored). `/v3` and `/v3/` (and `/ws/v3`, `/ws/v3/`) are a missing key (401);
 * anything after the key is part of the key, so `/v3/<key>/x` is an invalid key (401, as a
 * trailing slash was in 2018); any other path is 404; any other HTTP method on `/v3/` is 405. On
 * `/ws/v3/` the HTTP method is the WebSocket handshake's to judge (../sockets/handshake.ts), after
 * the key rules, as the service's Go server does.
 */
import { HttpMethodNotAllowedError, PathNotFoundError, ProjectIdRequiredError } from '../errors.ts'
import type { RequestRule } from '../request.ts'

const GATEWAY_PATH_RE = /^(\/ws)?\/v3(?:\/(.*))?$/
/** What `.` in GATEWAY_PATH_RE does not match. */
const LINE_BREAK_RE = /[\n\r\u2028\u2029]/

export function createRouteRule(): RequestRule {
  // The last `POST /v3/<key>` path and the key read from it: a client sends the same path on
  // every request, and the same key string (its hash computed once) finds the key rule's map
  // entry without a new slice to hash and compare.
  let seenPath: string | undefined
  let seenKey = ''
  return function route(state) {
    const { method, path } = state.request
    if (method === 'POST' && path === seenPath) {
      state.apiKey = seenKey
      state.websocket = false
      return
    }
    // The common request, `POST /v3/<key>`, decided without the expression's match and its
    // strings (the same outcome: a key with a line break, which `.` does not match, goes below).
    if (method === 'POST' && path.startsWith('/v3/')) {
      const query = path.indexOf('?')
      const key = query < 0 ? path.slice(4) : path.slice(4, query)
      if (key !== '' && !LINE_BREAK_RE.test(key)) {
        seenPath = path
        seenKey = key
        state.apiKey = key
        state.websocket = false
        return
      }
    }
    const pathname = path.split('?', 1)[0] ?? ''
    const m = GATEWAY_PATH_RE.exec(pathname)
    if (!m) throw new PathNotFoundError()
    const websocket = m[1] !== undefined
    if (!websocket && method !== 'POST') throw new HttpMethodNotAllowedError(method)
    const key = m[2]
    if (key === undefined || key === '') throw new ProjectIdRequiredError()
    state.apiKey = key
    state.websocket = websocket
  }
}
