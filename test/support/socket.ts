/**
 * A WebSocket client for tests, on the `ws` package: frames kept in order and awaited one by
 * one, the close code and reason, and a refused upgrade's status, headers and body as received.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { WebSocket } from 'ws'
import type { ClientOptions } from 'ws'
import { localhostLookup } from '../../src/http/client.ts'

export interface Closed {
  code: number
  reason: string
}

export interface TestSocket {
  ws: WebSocket
  /** The next frame not yet taken, parsed (waits up to `ms`). */
  next(ms?: number): Promise<unknown>
  /** The next frame as text. */
  nextText(ms?: number): Promise<string>
  /** Frames received and not yet taken. */
  readonly pending: readonly string[]
  /** Sends a value as JSON (a string as it is) and returns the next frame. */
  call(body: unknown): Promise<unknown>
  send(body: unknown): void
  /** Resolves when the connection is closed, with the code and reason the client saw. */
  readonly closed: Promise<Closed>
  close(): Promise<Closed>
}

export interface Refused {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
    p.then(
      (v) => {
        clearTimeout(t)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(t)
        reject(e as Error)
      },
    )
  })
}

/** Opens a socket (`*.localhost` to 127.0.0.1); rejects with the refusal when the upgrade is refused. */
export function openSocket(url: string, options: ClientOptions = {}): Promise<TestSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { lookup: localhostLookup, ...options })
    const frames: string[] = []
    const waiters: ((text: string) => void)[] = []
    const closed = new Promise<Closed>((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() })))
    ws.on('message', (data) => {
      const text = String(data)
      const waiter = waiters.shift()
      if (waiter) waiter(text)
      else frames.push(text)
    })
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { refused: { status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() } })))
    })
    ws.on('error', (err) => reject(err))
    ws.on('open', () => {
      const nextText = (ms = 5000) =>
        frames.length > 0 ? Promise.resolve(frames.shift()!) : withTimeout(new Promise<string>((r) => waiters.push(r)), ms, 'a frame')
      const socket: TestSocket = {
        ws,
        nextText,
        next: async (ms) => JSON.parse(await nextText(ms)) as unknown,
        get pending() {
          return frames
        },
        send: (body) => ws.send(typeof body === 'string' ? body : JSON.stringify(body)),
        async call(body) {
          socket.send(body)
          return socket.next()
        },
        closed,
        close() {
          ws.close()
          return closed
        },
      }
      resolve(socket)
    })
  })
}

/** The answer to an upgrade that must be refused. */
export async function refusedUpgrade(url: string, options: ClientOptions = {}): Promise<Refused> {
  try {
    const socket = await openSocket(url, options)
    await socket.close()
  } catch (err) {
    const refused = (err as { refused?: Refused }).refused
    if (refused) return refused
    throw err
  }
  throw new Error(`the upgrade to ${url} was accepted`)
}

/** Waits until `check` holds (polling every 5 ms, at most `ms`). */
export async function until(check: () => boolean, ms = 5000, what = 'a condition'): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
