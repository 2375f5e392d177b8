/**
 * Drives a real server with seeded fuzz requests (./generate.ts) over real sockets, `concurrency`
 * at a time, and checks every answer (./oracle.ts): a documented status, a documented body shape,
 * no stack trace, an answer within `answerTimeoutMs`; then that the server still answers, and that
 * the key's ledger moved by exactly the sum of the documented prices of what was charged.
 */
import { connect } from 'node:net'
import { request } from 'node:http'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { FUZZ_KEY, Generator } from './generate.ts'
import type { FuzzRequest } from './generate.ts'
import { bodyProblem, DOCUMENTED_STATUSES, expectedCost } from './oracle.ts'

export interface FuzzOptions {
  seed: number
  /** Stop after this many requests... */
  requests: number
  /** ...or this long, whichever comes first. */
  maxMs?: number
  concurrency?: number
  answerTimeoutMs?: number
  /** Told of progress every `progressEvery` requests. */
  onProgress?: (figures: FuzzFigures) => void
  progressEvery?: number
}

export interface FuzzFigures {
  seed: number
  requests: number
  seconds: number
  /** Answers by kind and status (`rpc 200`, `control 400`, `raw 431`, `rpc dropped`...). */
  statuses: Record<string, number>
  /** What the ledger says was spent, and what the documented prices add up to. */
  creditsSpent: number
  creditsExpected: number
  /** Problems found (empty when all is well), at most 50 kept. */
  violations: string[]
  /** Lines the server logged as failures (a -32603 or a 500 each). */
  failuresLogged: string[]
  rssMiB: number
  heapMiB: number
}

const DAILY = 1_000_000_000_000_000

interface Answer {
  status: number | 'dropped' | 'timeout'
  contentType: string | undefined
  text: string
}

function sendHttp(server: RunningServer, r: FuzzRequest, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...r.headers }
    if (r.host !== '') headers.host = r.host
    const req = request(`${server.origin}${r.path}`, { method: r.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', () => resolve({ status: 'dropped', contentType: undefined, text: '' }))
    })
    req.setTimeout(timeoutMs, () => {
      req.destroy()
      resolve({ status: 'timeout', contentType: undefined, text: '' })
    })
    req.on('error', () => resolve({ status: 'dropped', contentType: undefined, text: '' }))
    req.end(r.body)
  })
}

function sendRaw(server: RunningServer, r: FuzzRequest, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.end(r.body!))
    let text = ''
    socket.setTimeout(timeoutMs, () => {
      socket.destroy()
      resolve({ status: 'timeout', contentType: undefined, text })
    })
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(text)
      resolve({ status: m ? Number(m[1]) : 'dropped', contentType: undefined, text: '' })
    })
    socket.on('error', () => undefined)
  })
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzFigures> {
  const failuresLogged: string[] = []
  // A clock far from 00:00 UTC: the daily balance must not be restored during a run.
  const started = Date.now()
  const server = await startServer({
    port: 0,
    control: true,
    keys: [{ key: FUZZ_KEY, networks: ['ethereum', 'polygon', 'base'], dailyCredits: DAILY }],
    clock: { now: () => Date.parse('2030-06-15T12:00:00Z') + (Date.now() - started) },
    logger: { error: (message, err) => failuresLogged.push(`${message}: ${err instanceof Error ? err.message : String(err)}`) },
  })
  const gen = new Generator(opts.seed)
  const figures: FuzzFigures = {
    seed: opts.seed,
    requests: 0,
    seconds: 0,
    statuses: {},
    creditsSpent: 0,
    creditsExpected: 0,
    violations: [],
    failuresLogged,
    rssMiB: 0,
    heapMiB: 0,
  }
  const violation = (text: string) => {
    if (figures.violations.length < 50) figures.violations.push(text)
  }
  const timeoutMs = opts.answerTimeoutMs ?? 30_000
  const t0 = performance.now()
  const deadline = t0 + (opts.maxMs ?? Number.POSITIVE_INFINITY)
  let issued = 0
  const worker = async () => {
    while (issued < opts.requests && performance.now() < deadline) {
      const n = issued++
      const r = gen.request()
      const answer = r.kind === 'raw' ? await sendRaw(server, r, timeoutMs) : await sendHttp(server, r, timeoutMs)
      const label = `${r.kind} ${answer.status}`
      figures.statuses[label] = (figures.statuses[label] ?? 0) + 1
      figures.requests++
      const what = `#${n} ${r.kind} ${r.method} ${r.path.slice(0, 60)} ${r.body?.subarray(0, 120).toString('utf8') ?? ''}`
      if (answer.status === 'timeout') violation(`no answer within ${timeoutMs} ms: ${what}`)
      else if (answer.status === 'dropped') {
        // Only a body over the limit may be cut while it is still being sent (after its 413).
        if (!(r.body !== undefined && r.body.length > 5 * 1024 * 1024)) violation(`connection dropped: ${what}`)
      } else {
        if (!DOCUMENTED_STATUSES[r.kind]!.includes(answer.status)) violation(`status ${answer.status}: ${what} -> ${answer.text.slice(0, 200)}`)
        if (r.kind !== 'raw' && r.method !== 'HEAD') {
          const problem = bodyProblem(r.kind, answer.status, answer.contentType, answer.text)
          if (problem !== undefined) violation(`${problem}: ${what}`)
        }
        if (r.kind === 'rpc' && (answer.status === 200 || answer.status === 400)) figures.creditsExpected += expectedCost(r.body!)
      }
      if (opts.onProgress && figures.requests % (opts.progressEvery ?? 1000) === 0) {
        figures.seconds = (performance.now() - t0) / 1000
        figures.rssMiB = process.memoryUsage().rss / 2 ** 20
        opts.onProgress(figures)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker))
    figures.seconds = (performance.now() - t0) / 1000
    // Still serving.
    const alive = await sendHttp(
      server,
      { kind: 'rpc', method: 'POST', path: `/v3/${FUZZ_KEY}`, host: 'ethereum-mainnet.localhost', headers: {}, body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}') },
      timeoutMs,
    )
    if (alive.text !== '{"jsonrpc":"2.0","id":1,"result":"0x1"}') violation(`the server no longer answers: ${alive.status} ${alive.text}`)
    else figures.creditsExpected += 5
    figures.creditsSpent = DAILY - server.gateway.balance(FUZZ_KEY)!
    if (figures.creditsSpent !== figures.creditsExpected) violation(`ledger spent ${figures.creditsSpent}, documented prices add up to ${figures.creditsExpected}`)
    for (const line of failuresLogged) violation(`server failure: ${line}`)
    const memory = process.memoryUsage()
    figures.rssMiB = memory.rss / 2 ** 20
    figures.heapMiB = memory.heapUsed / 2 ** 20
    return figures
  } finally {
    await server.close()
  }
}
