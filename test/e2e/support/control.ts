/**
 * A real server with the HTTP control endpoint on, for the fault and snapshot end-to-end tests,
 * and the few control calls they make over HTTP (plain `fetch` to `server.controlUrl`, which
 * answers on 127.0.0.1: no name resolution needed).
 */
import { expect } from 'vitest'
import type { Fault, FaultInput } from '../../../src/gateway/faults.ts'
import type { RequestLogEntry } from '../../../src/gateway/requestLog.ts'
import { startServer } from '../../../src/http/server.ts'
import type { RunningServer } from '../../../src/http/server.ts'

export type ControlServer = RunningServer & { url: string; controlUrl: string; devKey: string }

/** The default config (three fixture networks) on a free port, control routes on. */
export async function startControlServer(): Promise<ControlServer> {
  const server = await startServer({ port: 0, control: true })
  const url = server.urls.ethereum
  if (url === undefined || server.controlUrl === undefined || server.devKey === undefined) {
    throw new Error('the default config serves no ethereum network, or the control endpoint is off')
  }
  return Object.assign(server, { url, controlUrl: server.controlUrl, devKey: server.devKey })
}

/** One control route: its JSON answer, after checking the status. */
export async function controlRoute<T = unknown>(server: ControlServer, method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const res = await fetch(`${server.controlUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  expect(res.status, text).toBe(status)
  return (text === '' ? undefined : JSON.parse(text)) as T
}

/** `POST /_double/faults`: the fault as listed, with its id. */
export function addFaultOverHttp(server: ControlServer, fault: FaultInput): Promise<Fault> {
  return controlRoute<Fault>(server, 'POST', '/faults', fault, 201)
}

/**
 * The request log after `since` once it holds `n` entries. Entries of dropped or abandoned
 * requests are written when the server side lets go (the client's socket closing), which can
 * come a moment after the client has already rejected; this waits for them (a few ms at a time,
 * at most ~2 s) and then checks the count exactly.
 */
export async function logAfter(server: ControlServer, since: number, n: number): Promise<RequestLogEntry[]> {
  for (let i = 0; i < 400 && server.control.requestLog({ since }).length < n; i++) await new Promise((r) => setTimeout(r, 5))
  const entries = server.control.requestLog({ since })
  expect(entries.map((e) => `${e.status}/${e.fault}`)).toHaveLength(n)
  return entries
}

/** The seq of the last log entry (0 before any): read before a step, pass to `logAfter`. */
export function logPosition(server: ControlServer): number {
  return server.control.requestLog().at(-1)?.seq ?? 0
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    (v: unknown) => expect.unreachable(`resolved with ${String(v)} instead of failing`),
    (e: unknown) => e,
  )
}
