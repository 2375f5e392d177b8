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
 *
 * Checks of a few headers' strings: nothing is parsed or allocated for a request that passes.
 */
import type { RequestHandler } from 'express'

export interface ControlAccess {
  /** Origins (`https://app.example`) whose pages may call the controls. Default none. */
  readonly allowedOrigins?: readonly string[]
  /** Host names the controls answer besides loopback and the service host's (geth's vhosts). */
  readonly allowedHosts?: readonly string[]
}

/** The host name of a Host header value (`[::1]:8545` -> `::1`, `Localhost:80` -> `localhost`). */
function hostName(host: string): string {
  const h = host.toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'))
  const colon = h.indexOf(':')
  return colon === -1 ? h : h.slice(0, colon)
}

function isLoopback(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
}

export function controlGuard(serviceHost: string, access: ControlAccess = {}): RequestHandler {
  const service = serviceHost.toLowerCase()
  const hosts = new Set((access.allowedHosts ?? []).map((h) => h.toLowerCase()))
  const origins = new Set(access.allowedOrigins ?? [])
  const refuse = (res: Parameters<RequestHandler>[1], status: number, message: string) => res.status(status).json({ error: { message } })
  return (req, res, next) => {
    const host = req.headers.host
    if (host !== undefined) {
      const name = hostName(host)
      if (!(isLoopback(name) || name === service || name.endsWith(`.${service}`) || hosts.has(name))) {
        refuse(res, 403, `invalid host specified: the controls answer loopback names, ${service} and the names under it${hosts.size > 0 ? `, ${[...hosts].join(', ')}` : ''}`)
        return
      }
    }
    const origin = req.headers.origin
    if (origin !== undefined && !origins.has(origin)) {
      let sameOrigin = false
      try {
        sameOrigin = host !== undefined && new URL(origin).host === host.toLowerCase()
      } catch {}
      if (!sameOrigin) {
        refuse(res, 403, `origin ${origin.slice(0, 200)} is not allowed to call the controls (allowed: the double's own pages${origins.size > 0 ? `, ${[...origins].join(', ')}` : ''})`)
        return
      }
    }
    const length = req.headers['content-length']
    const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined
    if (hasBody && !/^application\/json\s*(?:;|$)/i.test(req.headers['content-type'] ?? '')) {
      refuse(res, 415, 'content type must be application/json')
      return
    }
    next()
  }
}
