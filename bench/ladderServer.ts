/**
 * One rung of the request-path ladder (./ladder.ts): a server that answers `POST` with one
 * JSON-RPC answer, each rung one step closer to gateway-double's own lane, so that the CPU a rung
 * adds per request is what that step costs. Run as `node --import tsx bench/ladderServer.ts
 * <rung> <port> <config.json>`; it tells its parent `ready` over IPC once it listens.
 *
 * - `bare`: the bench's node:http reference row (bench.ts `fixedReplyServer`): body ignored, one
 *   fixed reply with two headers;
 * - `body`: + the body collected (`data` and `end` listeners, `Buffer.concat`, `toString`);
 * - `json`: + `JSON.parse` of it and a `JSON.stringify` of the reply, its length computed;
 * - `headers`: + `vary: Origin`, the three headers of gateway-double's answer;
 * - `handler`: `createNodeHandler` (src/http/nodeHandler.ts) in a bare server, over a minimal
 *   gateway that parses the body and answers with `jsonRpcResponse` and `decorate`;
 * - `listener`: the same minimal gateway behind `listenOn` (src/http/listener.ts: the connection
 *   bound, the drainer, the lanes' dispatch);
 * - `gateway`: `startServer` on the config given (the bench's chain, control on), from dist/ when
 *   it is built (as the bench runs it), else from src/.
 */
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { decorate } from '../src/gateway/cors.ts'
import type { Gateway } from '../src/gateway/gateway.ts'
import type { GatewayRequest } from '../src/gateway/request.ts'
import { jsonRpcResponse } from '../src/gateway/response.ts'
import { listenOn } from '../src/http/listener.ts'
import { createNodeHandler } from '../src/http/nodeHandler.ts'
import { ROOT } from './fixture.ts'
import { LOOPBACK } from './processes.ts'

const RUNGS = ['bare', 'body', 'json', 'headers', 'handler', 'listener', 'gateway'] as const
type Rung = (typeof RUNGS)[number]

const FIXED = Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x3"}')

/** A reply to a body read whole, by the rungs `body`, `json` and `headers`. */
function collecting(reply: (text: string, res: ServerResponse) => void): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => reply(Buffer.concat(chunks).toString(), res))
  }
}

function parsedReply(vary: boolean): RequestListener {
  return collecting((text, res) => {
    const { id } = JSON.parse(text) as { id: number }
    const body = JSON.stringify({ jsonrpc: '2.0', id, result: '0x3' })
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
    if (vary) headers.vary = 'Origin'
    res.writeHead(200, headers)
    res.end(body)
  })
}

/** Only what `createNodeHandler` and `listenOn` call on the request path. */
const minimalGateway = {
  logger: { error: (message: string, err: unknown) => console.error(message, err) },
  respond(request: GatewayRequest) {
    const { id } = JSON.parse(request.body.toString()) as { id: number }
    return decorate(jsonRpcResponse({ jsonrpc: '2.0', id, result: '0x3' }), request.headers.origin as string | undefined)
  },
  logTransportAnswer() {},
} as unknown as Gateway

const LISTENERS: Partial<Record<Rung, RequestListener>> = {
  bare: (req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': FIXED.length })
      res.end(FIXED)
    })
  },
  body: collecting((text, res) => {
    if (text.length === 0) res.destroy()
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': FIXED.length })
    res.end(FIXED)
  }),
  json: parsedReply(false),
  headers: parsedReply(true),
  handler: createNodeHandler(minimalGateway),
}

async function serve(rung: Rung, port: number, config: string): Promise<void> {
  if (rung === 'listener') {
    await listenOn(minimalGateway, () => Promise.reject(new Error('no Express app on the ladder')), { port, host: LOOPBACK })
    return
  }
  if (rung === 'gateway') {
    const built = join(ROOT, 'dist/index.js')
    const from = existsSync(built) ? pathToFileURL(built).href : '../src/http/server.ts'
    const { startServer } = (await import(from)) as typeof import('../src/http/server.ts')
    await startServer({ config, port, host: LOOPBACK, control: true })
    return
  }
  const server = createServer(LISTENERS[rung]!)
  await new Promise<void>((resolve) => server.listen(port, LOOPBACK, resolve))
}

const [rung, port, config] = process.argv.slice(2)
if (!RUNGS.includes(rung as Rung) || port === undefined || config === undefined || process.send === undefined) {
  console.error(`usage (from bench/ladder.ts): node --import tsx bench/ladderServer.ts <${RUNGS.join('|')}> <port> <config.json>`)
  process.exit(2)
}
await serve(rung as Rung, Number(port), config)
process.send({ type: 'ready' })
process.once('disconnect', () => process.exit(0))
