/**
 * Methods a provider serves beyond a node's (its "enhanced APIs"), computed from the chain: a
 * provider profile names those it serves (`extraMethods`, src/gateway/profiles/profile.ts); the
 * gateway's own profile and the test endpoint serve none of them.
 */
import type { RpcMethod } from './method.ts'
import { alchemy_getAssetTransfers } from './methods/alchemy_getAssetTransfers.ts'
import { alchemy_getTokenBalances } from './methods/alchemy_getTokenBalances.ts'

const all = [alchemy_getTokenBalances, alchemy_getAssetTransfers] as RpcMethod[]

export const PROVIDER_METHODS: Readonly<Record<string, RpcMethod>> = Object.fromEntries(all.map((m) => [m.name, m]))
