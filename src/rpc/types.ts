import type { RpcErrorObject } from './errors.ts'

export type JsonRpcId = string | number | null

/** A request that passed envelope validation. */
export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: JsonRpcId
  method: string
  params: unknown[]
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: RpcErrorObject }
