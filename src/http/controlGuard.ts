/**
 * What keeps a web page from driving the control routes and the test endpoint (a page the
 * developer visits while the double runs could otherwise reset chains and move balances with a
 * no-cors `fetch`, or reach them through DNS rebinding), as geth guards its HTTP server with
 * `--http.vhosts` and its CORS origins. `/v3/` is not guarded: it stays open to browsers.
 *
 * - Host: the name must be loopback (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`), the service
 *   host or a name under it, or in `allowedHosts`: else 403 `invalid host specified` (geth's words).
 * - Origin: a request that names one (every browser's cross-origin request does) must come from
 *   the double's own origin (its dashboard page at `/_double/`) or one in `allowedOrigins`: else 403.
 * - Content type: a request with a body must send `application/json` (a browser must then ask
 *   first, with a preflight the double never grants): else 415.
 * - Token: with `token` set (required when the controls are bound to an address that is not
 *   loopback), every request but the dashboard page's own files (`GET /_double/` and its
 *   scripts, which hold no data) must carry `authorization: Bearer <token>`: else 401 with a
 *   `www-authenticate: Bearer` challenge.
 *
 * Checks of a few headers' strings: nothing is parsed or allocated for a request that passes.
 * `controlCheck` is the checks alone (transport-free); `controlGuard` answers them in Express, and
 * the test endpoint's fast lane (./devRpcLane.ts) runs the same checks before it takes a request.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { RequestHandler } from 'express'
import { ConfigError } from '../gateway/configFields.ts'
import { CONTROL_TOKEN_ENV, MIN_CONTROL_TOKEN_LENGTH, controlTokenProblem, isLoopbackName } from '../gateway/controlAccess.ts'
import type { ControlAccess } from '../gateway/controlAccess.ts'
import { UPLOT_CSS, UPLOT_JS } from './dashboard/page.ts'


/** The host name of a Host header value (`[::1]:8545` -> `::1`, `Localhost:80` -> `localhost`). */
function hostName(host: string): string {
  const h = host.toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'))
  const colon = h.indexOf(':')
  return colon === -1 ? h : h.slice(0, colon)
}

/** The dashboard page's own files, which load without the token (they hold no data; the page sends it). */
export function isDashboardFile(method: string | undefined, path: string): boolean {
  return method === 'GET' && (path === '/' || path === '' || path === `/${UPLOT_JS}` || path === `/${UPLOT_CSS}`)
}

/** Whether `authorization` is `Bearer <token>`, compared in constant time. */
function carriesToken(authorization: string | undefined, expected: Buffer): boolean {
  if (authorization === undefined || !/^bearer /i.test(authorization)) return false
  const given = Buffer.from(authorization.slice(7).trim())
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Why a control request is refused: its status and message, and whether it is the token's 401. */
export interface ControlRefusal {
  readonly status: 401 | 403 | 415
  readonly message: string
}

/** What the guard reads of a request: its method, its path under `/_double`, its headers. */
export interface ControlRequestHead {
  readonly method: string | undefined
  readonly path: string
  readonly headers: IncomingHttpHeaders
}

/** The guard's checks, transport-free: the refusal of a request, or `undefined` when it may pass. */
export type ControlCheck = (req: ControlRequestHead) => ControlRefusal | undefined

/** The `www-authenticate` challenge sent with the token's 401. */
export const CONTROL_CHALLENGE = 'Bearer realm="gateway-double controls"'

export function controlCheck(serviceHost: string, access: ControlAccess = {}): ControlCheck {
  const service = serviceHost.toLowerCase()
  const hosts = new Set((access.allowedHosts ?? []).map((h) => h.toLowerCase()))
  const origins = new Set(access.allowedOrigins ?? [])
  const token = access.token === undefined ? undefined : Buffer.from(access.token)
  return (req) => {
    const host = req.headers.host
    if (host !== undefined) {
      const name = hostName(host)
      if (!(isLoopbackName(name) || name === service || name.endsWith(`.${service}`) || hosts.has(name))) {
        return { status: 403, message: `invalid host specified: the controls answer loopback names, ${service} and the names under it${hosts.size > 0 ? `, ${[...hosts].join(', ')}` : ''}` }
      }
    }
    const origin = req.headers.origin
    if (origin !== undefined && !origins.has(origin)) {
      let sameOrigin = false
      try {
        sameOrigin = host !== undefined && new URL(origin).host === host.toLowerCase()
      } catch {}
      if (!sameOrigin) {
        return { status: 403, message: `origin ${origin.slice(0, 200)} is not allowed to call the controls (allowed: the double's own pages${origins.size > 0 ? `, ${[...origins].join(', ')}` : ''})` }
      }
    }
    const length = req.headers['content-length']
    const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined
    if (hasBody && !/^application\/json\s*(?:;|$)/i.test(req.headers['content-type'] ?? '')) {
      return { status: 415, message: 'content type must be application/json' }
    }
    if (token !== undefined && !carriesToken(req.headers.authorization, token) && !isDashboardFile(req.method, req.path)) {
      return { status: 401, message: 'the controls need their token: send authorization: Bearer <token> (controlAccess.token or GATEWAY_DOUBLE_CONTROL_TOKEN)' }
    }
    return undefined
  }
}

/** The guard as Express middleware on the `/_double` router: a refusal answers `{"error":{"message"}}`. */
export function controlGuard(serviceHost: string, access: ControlAccess = {}): RequestHandler {
  const check = controlCheck(serviceHost, access)
  return (req, res, next) => {
    const refusal = check(req)
    if (refusal === undefined) {
      next()
      return
    }
    if (refusal.status === 401) res.setHeader('www-authenticate', CONTROL_CHALLENGE)
    res.status(refusal.status).json({ error: { message: refusal.message } })
  }
}

/**
 * Controls served on an address that is not loopback are reachable from the network: they need a
 * token (a `ConfigError`, before anything listens, when there is none or it is too weak).
 */
export function checkControlAccess(bindHost: string, access: ControlAccess | undefined): void {
  const token = access?.token
  if (token !== undefined) {
    const problem = controlTokenProblem(token)
    if (problem !== undefined) throw new ConfigError(`controlAccess.token: ${problem}`)
  }
  if (!isLoopbackName(bindHost.replace(/^\[|\]$/g, '')) && token === undefined) {
    throw new ConfigError(
      `the controls (--control) on ${bindHost}, which is not a loopback address, need a token: set ${CONTROL_TOKEN_ENV} or the config's controlAccess.token (at least ${MIN_CONTROL_TOKEN_LENGTH} characters); clients send it as authorization: Bearer <token>`,
    )
  }
}
