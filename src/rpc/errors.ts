/**
 * JSON-RPC errors. Each class carries its JSON-RPC `code`; the one serializer
 * (`toErrorObject` in ./response.ts) turns anything thrown into the wire shape.
 * Messages follow geth's wording, since the real service runs geth.
 */

export interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export class RpcError extends Error {
  override readonly name: string = 'RpcError'
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }

  toErrorObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

export class ParseError extends RpcError {
  static readonly code = -32700
  override readonly name = 'ParseError'
  constructor(message = 'parse error') {
    super(ParseError.code, message)
  }
}

export class InvalidRequestError extends RpcError {
  static readonly code = -32600
  override readonly name = 'InvalidRequestError'
  constructor(message = 'invalid request') {
    super(InvalidRequestError.code, message)
  }
}

export class MethodNotFoundError extends RpcError {
  static readonly code = -32601
  override readonly name = 'MethodNotFoundError'
  /** The hosted service's wording (capital "The"), not geth's lowercase one. */
  constructor(method: string) {
    super(MethodNotFoundError.code, `The method ${method} does not exist/is not available`)
  }
}

export class InvalidParamsError extends RpcError {
  static readonly code = -32602
  override readonly name = 'InvalidParamsError'
  constructor(message: string) {
    super(InvalidParamsError.code, message)
  }
}

export class InternalError extends RpcError {
  static readonly code = -32603
  override readonly name = 'InternalError'
  constructor(message = 'internal error') {
    super(InternalError.code, message)
  }
}

/** geth's catch-all code for execution and state errors (`errcodeDefault`). */
export class ServerError extends RpcError {
  static readonly code = -32000
  override readonly name = 'ServerError'
  constructor(message: string, data?: unknown) {
    super(ServerError.code, message, data)
  }
}

/** A REVERT: code 3, geth's `execution reverted[: reason]`, the raw revert bytes as hex `data`. */
export class ExecutionRevertedError extends RpcError {
  static readonly code = 3
  override readonly name = 'ExecutionRevertedError'
  constructor(message: string, data: string) {
    super(ExecutionRevertedError.code, message, data)
  }
}

/** EIP-1474's "limit exceeded": what the service answers a query over its limits (results, filters). */
export class LimitExceededError extends RpcError {
  static readonly code = -32005
  override readonly name = 'LimitExceededError'
  constructor(message: string, data?: unknown) {
    super(LimitExceededError.code, message, data)
  }
}

/**
 * eth_simulateV1's errors: geth's codes for a call it refuses (-38010 nonce too low ... -38026
 * client limit exceeded) and for the simulator's own checks, with geth's message.
 */
export class SimulationError extends RpcError {
  override readonly name = 'SimulationError'
  constructor(code: number, message: string) {
    super(code, message)
  }
}
