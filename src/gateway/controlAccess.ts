/**
 * Who may call the control routes and the test endpoint besides a loopback client or the
 * double's own pages: the `controlAccess` of a config file and of `startServer` (the HTTP guard
 * that applies it is src/http/controlGuard.ts). geth's `--http.vhosts` and CORS origins play the
 * same part for its HTTP server.
 */
import { expectRecord, expectString, expectStringList, fail, onlyFields } from './configFields.ts'

export interface ControlAccess {
  /** Origins (`https://app.example`) whose pages may call the controls. Default none. */
  readonly allowedOrigins?: readonly string[]
  /** Host names the controls answer besides loopback and the service host's (geth's vhosts). */
  readonly allowedHosts?: readonly string[]
  /**
   * A secret every control request must carry (`authorization: Bearer <token>`); required when
   * the controls are served on an address that is not loopback. The dashboard page and its
   * scripts load without it (the page reads it from its URL's `#token=`).
   */
  readonly token?: string
}

/** The environment variable the CLI and the vitest set-up read the control token from. */
export const CONTROL_TOKEN_ENV = 'GATEWAY_DOUBLE_CONTROL_TOKEN'

/** The shortest token accepted: a guessable secret is no guard. */
export const MIN_CONTROL_TOKEN_LENGTH = 16

/** A token's problem, or undefined when it will do. */
export function controlTokenProblem(token: string): string | undefined {
  if (token.length < MIN_CONTROL_TOKEN_LENGTH) return `must be at least ${MIN_CONTROL_TOKEN_LENGTH} characters, got ${token.length}`
  if (!/^[\x21-\x7e]+$/.test(token)) return 'must be printable ASCII without spaces (it travels in a header)'
  return undefined
}

/** Validates a config file's `controlAccess`; a `ConfigError` names the field. */
export function parseControlAccess(v: unknown, where: string): ControlAccess {
  const obj = expectRecord(v, where)
  onlyFields(obj, ['allowedOrigins', 'allowedHosts', 'token'], where)
  const origins = obj.allowedOrigins === undefined ? undefined : expectStringList(obj.allowedOrigins, `${where}.allowedOrigins`, 1000)
  origins?.forEach((o, i) => {
    let parsed: URL | undefined
    try {
      parsed = new URL(o)
    } catch {}
    if (parsed === undefined || parsed.origin !== o) fail(`${where}.allowedOrigins[${i}]`, `must be an origin (scheme://host[:port], as a browser sends it), got ${JSON.stringify(o)}`)
  })
  const hosts = obj.allowedHosts === undefined ? undefined : expectStringList(obj.allowedHosts, `${where}.allowedHosts`, 1000)
  const token = obj.token === undefined ? undefined : expectString(obj.token, `${where}.token`)
  const problem = token === undefined ? undefined : controlTokenProblem(token)
  if (problem !== undefined) fail(`${where}.token`, problem)
  return { ...(origins ? { allowedOrigins: origins } : {}), ...(hosts ? { allowedHosts: hosts.map((h) => h.toLowerCase()) } : {}), ...(token ? { token } : {}) }
}

/** Whether a host name (no port; IPv6 without brackets) is loopback: `localhost`, `*.localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase()
  return n === 'localhost' || n.endsWith('.localhost') || n === '::1' || n === '::ffff:127.0.0.1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(n)
}
