/**
 * JWT rule: a key with JWT settings (../jwtConfig.ts) checks a token sent as
 * `Authorization: Bearer <token>` with `jose`: signed (RS256 or ES256) by the public key its `kid`
 * names, for the key's audience (`infura.io`), unexpired by the gateway's clock (an `exp` is
 * required). With "require JWT" a request without a token is refused; without it, a request
 * without one passes but an invalid or expired one is refused, as the service documents. Every
 * refusal is 401 `invalid JWT` (../errors.ts). A key without JWT settings ignores tokens.
 *
 * Verifying is asynchronous (`jose` verifies through WebCrypto), so this is not one of the
 * synchronous request rules: `checkJwt` returns undefined when there is nothing to verify (the
 * common case costs one property read) and a promise when there is; it runs after them.
 *
 * `jose` (46 modules) is imported the first time a token is checked, not at start: most servers
 * never see one. A refusal found before it is loaded is the same refusal, as a rejected promise
 * (the pipeline answers both alike).
 */
import type * as Jose from 'jose'
import type { Clock } from '../credits.ts'
import { InvalidJwtError } from '../errors.ts'
import { header } from '../request.ts'
import type { RequestState } from '../request.ts'

const BEARER_RE = /^Bearer[ \t]+([A-Za-z0-9_.-]+)[ \t]*$/i

let jose: typeof Jose | undefined
let loading: Promise<typeof Jose> | undefined
const loadJose = () => (loading ??= import('jose').then((m) => (jose = m)))

/** Why jose refused a token, in a few words (for logs; the wire says `invalid JWT`). */
function reasonOf({ errors }: typeof Jose, err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'expired'
  if (err instanceof errors.JWTClaimValidationFailed) return `claim ${err.claim}: ${err.reason}`
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad signature'
  if (err instanceof errors.JOSEError) return err.code
  return 'not a JWT'
}

export type JwtCheck = (state: RequestState) => Promise<void> | undefined

export function createJwtRule(clock: Clock): JwtCheck {
  return function jwt(state) {
    const settings = state.key?.jwt
    if (settings === undefined) return undefined
    if (jose === undefined) return loadJose().then((j) => verify(j, clock, state))
    return verify(jose, clock, state)
  }
}

function verify(j: typeof Jose, clock: Clock, state: RequestState): Promise<void> | undefined {
  const settings = state.key!.jwt!
  const auth = header(state.request, 'authorization')
  const bearer = auth === undefined ? null : BEARER_RE.exec(auth)
  if (bearer === null) {
    // A Basic header is the secret's (./secret.ts), not a token.
    if (settings.required) throw new InvalidJwtError(auth === undefined ? 'no token' : 'not a Bearer token')
    return undefined
  }
  const token = bearer[1]!
  let kid: string | undefined
  try {
    kid = j.decodeProtectedHeader(token).kid
  } catch {
    throw new InvalidJwtError('not a JWT')
  }
  const publicKey = kid === undefined ? undefined : settings.keys.get(kid)
  if (publicKey === undefined) throw new InvalidJwtError(kid === undefined ? 'no kid' : `unknown kid ${kid.slice(0, 64)}`)
  return j.jwtVerify(token, publicKey.key, {
    algorithms: [publicKey.algorithm],
    audience: settings.audience,
    currentDate: new Date(clock.now()),
    requiredClaims: ['exp'],
  }).then(
    () => undefined,
    (err: unknown) => {
      throw new InvalidJwtError(reasonOf(j, err))
    },
  )
}
