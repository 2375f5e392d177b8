/**
 * Secret rule: a key with a secret requires HTTP basic auth whose password is the secret and
 * whose user is empty (as the docs' `curl --user :SECRET`) or the key itself. No credentials:
 * 403 `rejected due to project ID settings`; wrong ones: 401 `invalid project id or project
 * secret`. For a key without a secret, credentials are ignored.
 */
import { timingSafeEqual } from 'node:crypto'
import { InvalidProjectSecretError, RejectedBySettingsError } from '../errors.ts'
import { header } from '../request.ts'
import type { RequestRule } from '../request.ts'

/** user and password of a `Basic` Authorization header, or undefined. */
export function parseBasicAuth(value: string | undefined): { user: string; password: string } | undefined {
  const m = value === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value)
  if (!m) return undefined
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export function createSecretRule(): RequestRule {
  return function secret(state) {
    const key = state.key
    if (key?.secret === undefined) return
    const auth = header(state.request, 'authorization')
    if (auth === undefined) throw new RejectedBySettingsError('the key requires its secret')
    const credentials = parseBasicAuth(auth)
    if (!credentials || (credentials.user !== '' && credentials.user !== key.key) || !sameText(credentials.password, key.secret)) {
      throw new InvalidProjectSecretError()
    }
    state.secretVerified = true
  }
}
