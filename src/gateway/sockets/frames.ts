/**
 * What a socket's frames carry: a payload, whole or in parts (`FrameData`), and what a refused or
 * faulted message looks like over a socket. Over HTTP a refusal is the whole
 * response (a 402, 429 or 403 body, a load balancer's page); a socket has no status, and a
 * client matches answers to its requests by id, so each call gets the refusal's JSON-RPC error
 * object under its own id: one object for a single call, an array for a batch (notifications get
 * nothing, as they would get nothing answered).
 */
import type { RpcErrorObject } from '../../rpc/errors.ts'
import type { JsonRpcId } from '../../rpc/types.ts'
import { LimitError } from '../errors.ts'
import type { GatewayError } from '../errors.ts'
import { ProfileRefusal } from '../profiles/refusal.ts'

/** The calls of a message as answers address them. */
export interface MessageCalls {
  readonly batch: boolean
  /** Each call's id; undefined for a notification (a batch member that is not a request object has id null, and is answered). */
  readonly ids: readonly (JsonRpcId | undefined)[]
}

/** The error object a refusal has in its HTTP body (402/429 with `event` and `details`). */
export function refusalErrorObject(err: GatewayError): RpcErrorObject & { event?: number; details?: string } {
  if (err instanceof LimitError) return { code: err.code, event: err.event, message: err.message, details: err.details }
  if (err instanceof ProfileRefusal) return err.wsError
  return { code: err.code, message: err.message }
}

/** The service's own internal error, which is what a socket gets for a 5xx fault. */
export const INTERNAL_ERROR_OBJECT: RpcErrorObject = Object.freeze({ code: -32603, message: 'internal error' })

/** The frame answering every call of a message with `error`; undefined when no call is answered. */
export function errorFrame(calls: MessageCalls, error: object): string | undefined {
  const answers = calls.ids.filter((id) => id !== undefined).map((id) => ({ jsonrpc: '2.0', id, error }))
  if (!calls.batch) return answers.length === 0 ? undefined : JSON.stringify(answers[0])
  return answers.length === 0 ? undefined : JSON.stringify(answers)
}

/**
 * A text frame's payload: its text, its UTF-8 bytes, or those bytes in parts written as one frame
 * (a newHeads notification: the subscription's prefix, the block's header shared by every
 * subscriber, the end), so a payload is copied once, into its frame.
 */
export type FrameData = string | Buffer | readonly Buffer[]

/** A payload's length in bytes. */
export function frameDataBytes(data: FrameData): number {
  if (typeof data === 'string') return Buffer.byteLength(data)
  if (Buffer.isBuffer(data)) return data.byteLength
  let bytes = 0
  for (const part of data as readonly Buffer[]) bytes += part.byteLength
  return bytes
}
