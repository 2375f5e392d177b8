/**
 * Errors of the control API (src/gateway/control.ts): what a test asked for is malformed (400,
 * the message names the field), names something that does not exist (404), would keep more than
 * a bound allows (409: ./controlLimits.ts), or needs a chain feature this chain lacks (501). The HTTP control routes answer them as `{"error":{"message"}}`.
 */
import { RpcError } from '../rpc/errors.ts'

export type ControlErrorStatus = 400 | 404 | 409 | 501

const CODES: Readonly<Record<ControlErrorStatus, number>> = { 400: -32602, 404: -32001, 409: -32005, 501: -32004 }

export class ControlError extends RpcError {
  override readonly name: string = 'ControlError'
  readonly httpStatus: ControlErrorStatus
  constructor(httpStatus: ControlErrorStatus, message: string) {
    super(CODES[httpStatus], message)
    this.httpStatus = httpStatus
  }
}

/** 400: `<field>: <problem>`. */
export class ControlInputError extends ControlError {
  override readonly name = 'ControlInputError'
  constructor(field: string, problem: string) {
    super(400, `${field}: ${problem}`)
  }
}

/** 404: an unknown network, key, snapshot or fault. */
export class ControlNotFoundError extends ControlError {
  override readonly name = 'ControlNotFoundError'
  constructor(what: 'network' | 'key' | 'snapshot' | 'fault', name: string) {
    super(404, `unknown ${what} ${JSON.stringify(name)}`)
  }
}

/**
 * 409: one more snapshot, fault or key would pass a bound (./controlLimits.ts); nothing was kept.
 * The message says the bound and what frees room.
 */
export class ControlLimitError extends ControlError {
  override readonly name = 'ControlLimitError'
  constructor(message: string) {
    super(409, message)
  }
}

/** 501: the chain behind a network lacks the method an operation needs. */
export class ChainFeatureMissingError extends ControlError {
  override readonly name = 'ChainFeatureMissingError'
  constructor(network: string, feature: string) {
    super(501, `network ${JSON.stringify(network)}: its chain does not support ${feature} (chain.${feature} is missing)`)
  }
}
