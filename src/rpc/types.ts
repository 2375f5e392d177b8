/** The JSON-RPC 2.0 envelope as the rpc layer sees it: ids, validated requests, responses. */
import type { RpcErrorObject } from './errors.ts'

import type { RawId } from './rawIds.ts'

/** A request's id: as parsed, or as the client wrote it when parsing would change it (./rawIds.ts). */
export type JsonRpcId = string | number | null | RawId

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
