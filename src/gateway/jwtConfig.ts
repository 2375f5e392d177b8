/**
 * A key's JWT settings, as the service's key settings have them: up to three named public keys
 * (PEM, RSA for RS256 or P-256 for ES256; three for rotation, as the service allows) and
 * "require JWT for all requests". A token's `kid` names the public key by its id (the service
 * shows a NAME, an ID and a FINGERPRINT per key; here the id is `id`, by default the name).
 * Checked in ./rules/jwt.ts.
 */
import { createPublicKey } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { describe, expectRecord, expectString, fail, onlyFields } from './configFields.ts'

/** The audience the service's tokens carry (`aud: "infura.io"`). */
export const DEFAULT_JWT_AUDIENCE = 'infura.io'
/** The service keeps up to three public keys per key, for rotation. */
export const MAX_JWT_KEYS = 3

export type JwtAlgorithm = 'RS256' | 'ES256'

export interface JwtPublicKey {
  readonly name: string
  /** What a token's `kid` must be. */
  readonly id: string
  readonly algorithm: JwtAlgorithm
  readonly key: KeyObject
}

export interface JwtSettings {
  /** Refuse a request without a token (a token, when sent, is checked either way). */
  readonly required: boolean
  readonly audience: string
  /** By id. */
  readonly keys: ReadonlyMap<string, JwtPublicKey>
}

/** The shape in a config file. */
export interface JwtConfigInput {
  required?: boolean
  audience?: string
  publicKeys: { name: string; id?: string; pem: string }[]
}

function algorithmOf(key: KeyObject, where: string): JwtAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256'
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256'
  return fail(where, `must be an RSA (RS256) or P-256 EC (ES256) public key, got ${key.asymmetricKeyType ?? 'another kind'}${key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''}`)
}

export function parseJwtSettings(v: unknown, where: string): JwtSettings | undefined {
  if (v === undefined) return undefined
  const obj = expectRecord(v, where)
  onlyFields(obj, ['required', 'audience', 'publicKeys'], where)
  if (obj.required !== undefined && typeof obj.required !== 'boolean') fail(`${where}.required`, `must be true or false, got ${describe(obj.required)}`)
  const audience = obj.audience === undefined ? DEFAULT_JWT_AUDIENCE : expectString(obj.audience, `${where}.audience`)
  if (!Array.isArray(obj.publicKeys) || obj.publicKeys.length === 0) fail(`${where}.publicKeys`, `must be an array of 1 to ${MAX_JWT_KEYS} keys, got ${describe(obj.publicKeys)}`)
  if (obj.publicKeys.length > MAX_JWT_KEYS) fail(`${where}.publicKeys`, `at most ${MAX_JWT_KEYS} keys, got ${obj.publicKeys.length}`)
  const keys = new Map<string, JwtPublicKey>()
  obj.publicKeys.forEach((entry: unknown, i: number) => {
    const at = `${where}.publicKeys[${i}]`
    const k = expectRecord(entry, at)
    onlyFields(k, ['name', 'id', 'pem'], at)
    const name = expectString(k.name, `${at}.name`)
    const id = k.id === undefined ? name : expectString(k.id, `${at}.id`)
    const pem = expectString(k.pem, `${at}.pem`)
    let key: KeyObject
    try {
      key = createPublicKey(pem)
    } catch {
      fail(`${at}.pem`, 'not a PEM public key (-----BEGIN PUBLIC KEY-----)')
    }
    if (keys.has(id)) fail(`${at}.id`, `duplicate key id ${JSON.stringify(id)}`)
    keys.set(id, { name, id, algorithm: algorithmOf(key, `${at}.pem`), key })
  })
  return { required: obj.required === true, audience, keys }
}
