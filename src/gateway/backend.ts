/**
 * What the gateway is given to work with besides its configuration: the JSON-RPC layer it
 * dispatches calls to (src/rpc/dispatch.ts unless a test injects one) and where it tells failures.
 */
import { execute as rpcExecute, isSupportedMethod as rpcIsSupported } from '../rpc/dispatch.ts'
import type { RpcContext } from '../rpc/method.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../rpc/types.ts'

export interface Logger {
  error(message: string, err?: unknown): void
  info?(message: string): void
}

export const silentLogger: Logger = { error() {} }

/** The JSON-RPC layer the gateway dispatches to (src/rpc/dispatch.ts unless a test injects one). */
export interface RpcBackend {
  isSupportedMethod(method: string): boolean
  execute(ctx: RpcContext, request: JsonRpcRequest): Promise<JsonRpcResponse>
}

export const defaultRpcBackend: RpcBackend = { isSupportedMethod: rpcIsSupported, execute: rpcExecute }
