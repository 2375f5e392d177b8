/**
 * What the fuzzer checks each answer against, from the documentation, not the gateway's code:
 * the price a body must be charged (docs/errors-and-credits.md: the envelope rules; prices from the
 * credit table), the statuses each kind of request may get, and the shapes of bodies (JSON-RPC
 * objects, the control error shape, the plain-text refusals; never a stack trace), and the
 * errors' words: no -32603 but geth's own, never EthereumJS's messages.
 */
import { methodCost } from '../../src/gateway/credits.ts'
import { METHODS } from '../../src/rpc/registry.ts'

const BAD_REQUEST = 5
const UNKNOWN_METHOD = 160
const BATCH_ENVELOPE = 80
const BATCH_LIMIT = 1000

function validMessage(m: unknown): boolean {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false
  const o = m as Record<string, unknown>
  const idOk = !('id' in o) || o.id === null || typeof o.id === 'string' || typeof o.id === 'number'
  return o.jsonrpc === '2.0' && typeof o.method === 'string' && idOk && (o.params === undefined || o.params === null || Array.isArray(o.params))
}

function callCost(m: unknown): number {
  if (!validMessage(m)) return BAD_REQUEST
  const method = (m as { method: string }).method
  return Object.hasOwn(METHODS, method) ? methodCost(method) : UNKNOWN_METHOD
}

/** The credits a body is charged once it is read (the request passed the key and network rules). */
export function expectedCost(body: Buffer): number {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    return BAD_REQUEST
  }
  if (!Array.isArray(json)) return callCost(json)
  if (json.length === 0 || json.length > BATCH_LIMIT) return BAD_REQUEST
  return json.reduce((sum: number, m) => sum + callCost(m), BATCH_ENVELOPE)
}

/** Statuses documented for each kind of request (no scripted faults are in force). */
export const DOCUMENTED_STATUSES: Record<string, readonly number[]> = {
  rpc: [200, 400, 402, 413],
  http: [204, 400, 401, 404, 405, 413],
  control: [200, 201, 204, 400, 404, 413, 501],
  // The test endpoint: its JSON-RPC answers are all 200; an unknown network or a path that is not
  // one are the controls' 404 and 400.
  dev: [200, 400, 404],
  raw: [400, 431],
}

const TEXT_BODIES = [
  /^project id required in the url\n$/,
  /^invalid project id\n$/,
  /^no network is served at host "[^"]*"; hosts served: .*\n$/,
  /^404 page not found\n$/,
  /^request entity too large\n$/,
]

/**
 * The -32603 answers geth itself gives: eth_simulateV1's refusals that `txValidationError` codes as
 * internal, and the EVM timeout. Any other -32603 is a failure of the double's.
 */
const GETH_INTERNAL = /^(?:err: (?:nonce has max value|blob transaction |blob \d+ has invalid hash version|max fee per blob gas less than block blob gas fee|EIP-7702 transaction |insufficient gas for floor data gas cost)|execution aborted \(timeout)/
/** EthereumJS's own words, which must never reach the wire (geth's are answered instead). */
const ETHEREUMJS_WORDS = /cannot be less than|cannot exceed MAX_INTEGER|The total must be the larger|hf=|is less than the block's baseFeePerGas|the sender's account|INTRINSIC_GAS_TOO_LOW|gasLimit is too low|not EOA \(EIP-3607\)|Invalid Signature|EIP-\d+ not (?:enabled|activated)/

/** What is wrong with an error object of an answer (undefined: nothing). */
function errorProblem(e: { code: number; message: string }): string | undefined {
  if (e.code === -32603 && !GETH_INTERNAL.test(e.message)) return `-32603 ${JSON.stringify(e.message.slice(0, 200))}`
  if (ETHEREUMJS_WORDS.test(e.message)) return `EthereumJS's words: ${JSON.stringify(e.message.slice(0, 200))}`
  return undefined
}

function isRpcResponse(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const o = v as Record<string, unknown>
  if (o.jsonrpc !== '2.0' || !('id' in o)) return false
  if ('result' in o) return !('error' in o)
  const e = o.error as Record<string, unknown> | undefined
  return typeof e === 'object' && e !== null && Number.isInteger(e.code) && typeof e.message === 'string'
}

/** What is wrong with an answer's body (undefined: nothing). */
export function bodyProblem(kind: string, status: number, contentType: string | undefined, text: string): string | undefined {
  if (/\n\s+at .+:\d+:\d+/.test(text) || text.includes('node_modules/')) return 'a stack trace on the wire'
  if (status === 204 || (status === 200 && text === '')) return undefined
  // Node's own refusal of malformed HTTP (a DELETE with a chunked body...): no body.
  if (status === 400 && text === '' && contentType === undefined) return undefined
  if (kind === 'control' || (kind === 'dev' && status >= 400)) {
    if (status >= 400) {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return `control ${status} is not JSON`
      }
      const message = (body as { error?: { message?: unknown } }).error?.message
      return typeof message === 'string' ? undefined : 'control error not in {"error":{"message"}} shape'
    }
    return contentType?.startsWith('application/json') === true ? undefined : 'control answer is not JSON'
  }
  if (status === 405) return text === '' ? undefined : '405 with a body'
  if (contentType?.startsWith('text/plain') === true) return TEXT_BODIES.some((re) => re.test(text)) ? undefined : `undocumented text body ${JSON.stringify(text.slice(0, 100))}`
  if (contentType !== 'application/json') return `content type ${String(contentType)}`
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return 'JSON answer is not JSON'
  }
  if (status === 402 || status === 413) return undefined
  const answers = Array.isArray(body) ? body : [body]
  if (answers.length === 0) return 'empty batch answer'
  if (!answers.every(isRpcResponse)) return `not JSON-RPC: ${text.slice(0, 200)}`
  for (const a of answers) {
    const e = (a as { error?: { code: number; message: string } }).error
    const problem = e === undefined ? undefined : errorProblem(e)
    if (problem !== undefined) return problem
  }
  return undefined
}
