/** The method table: wire name to method. One module per method in ./methods/. */
import type { RpcMethod } from './method.ts'

export const METHODS: Record<string, RpcMethod> = {}
