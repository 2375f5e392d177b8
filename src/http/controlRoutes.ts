/**
 * The HTTP control endpoint: the gateway's `control` facet (src/gateway/control/) as JSON routes,
 * a group of routes per part of the facet,
 * under `/_double/`, never under the gateway's `/v3/`. Mounted by `createApp` only when asked
 * (`control: true`); otherwise `/_double/...` answers like any unknown path.
 *
 * Requests from other origins' pages, for other hosts, or with bodies that are not
 * `application/json` are refused first (./controlGuard.ts). Bodies are JSON (an empty body is `{}`). Errors answer
 * `{"error":{"message":"..."}}`: 400 when a field is wrong (the message names it), 404 for an
 * unknown network, key, snapshot, fault or route, 501 when the chain lacks the feature.
 *
 * `POST /_double/rpc/<network>` is the test endpoint: JSON-RPC in and out (the gateway's methods
 * and Anvil's test methods, src/gateway/devRpc.ts), bodies up to 32 MiB (a state dump can be
 * large), always 200 with the JSON-RPC answer.
 */
import type { ErrorRequestHandler, Request, Router } from 'express'
import { ControlInputError } from '../gateway/controlError.ts'
import type { GatewayControl } from '../gateway/control/types.ts'
import type { Logger } from '../gateway/gateway.ts'
import { silentLogger } from '../gateway/gateway.ts'

import { controlFailure } from './controlFailure.ts'
import { controlGuard } from './controlGuard.ts'
import type { ControlAccess } from '../gateway/controlAccess.ts'
import { CONTROL_PREFIX, DEV_RPC_BODY_LIMIT } from './controlPrefix.ts'
import { dashboardRoutes } from './dashboard/routes.ts'
import { loadExpress } from './express.ts'
import { writeResponse } from './nodeHandler.ts'

export { CONTROL_PREFIX, DEV_RPC_BODY_LIMIT }

/** The body as an object (`{}` when empty); anything else is a 400. */
function body(req: Request): Record<string, unknown> {
  const b: unknown = req.body
  if (b === undefined || b === null) return {}
  if (typeof b !== 'object' || Array.isArray(b)) throw new ControlInputError('body', 'must be a JSON object')
  return b as Record<string, unknown>
}

/** The body's fields, when they are all among `allowed` (as in config files, an unknown field is a 400). */
function fields(req: Request, allowed: readonly string[]): Record<string, unknown> {
  const b = body(req)
  for (const name of Object.keys(b)) {
    if (!allowed.includes(name)) throw new ControlInputError(name, `unknown field (allowed: ${allowed.join(', ')})`)
  }
  return b
}

function param(req: Request, name: string): string {
  return String(req.params[name])
}

export function createControlRouter(control: GatewayControl, logger: Logger = silentLogger, access: ControlAccess & { serviceHost?: string } = {}): Router {
  const express = loadExpress()
  const router = express.Router()
  router.use(controlGuard(access.serviceHost ?? 'localhost', access))
  // The test endpoint reads its body raw: JSON-RPC parse errors are its own answers.
  router.post('/rpc/:network', express.raw({ type: () => true, limit: DEV_RPC_BODY_LIMIT }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
    // Written as the core made it, not with Express's set(): that would add "; charset=utf-8" to
    // the content type, which Anvil's and the gateway's answers do not carry.
    writeResponse(res, await control.rpc(param(req, 'network'), body))
  })
  router.use(express.json({ type: () => true, strict: false, limit: '1mb' }))
  for (const routes of [snapshotRoutes, clockRoutes, keyRoutes, networkRoutes, logRoutes, usageRoutes, faultRoutes]) routes(router, control)
  dashboardRoutes(router)
  router.use((req, res) => {
    res.status(404).json({ error: { message: `no control route ${req.method} ${CONTROL_PREFIX}${req.path}` } })
  })

  router.use(controlErrors(logger))
  return router
}

/** `/snapshots`: take, list, restore, delete. */
function snapshotRoutes(router: Router, control: GatewayControl): void {
  router.get('/snapshots', (_req, res) => {
    res.json({ snapshots: control.snapshots() })
  })
  router.post('/snapshots', async (req, res) => {
    res.status(201).json(await control.snapshot(fields(req, ['networks']) as { networks?: string[] }))
  })
  router.post('/snapshots/:id/restore', async (req, res) => {
    res.json(await control.restore(param(req, 'id')))
  })
  router.delete('/snapshots/:id', (req, res) => {
    control.deleteSnapshot(param(req, 'id'))
    res.status(204).end()
  })
}

/** `/clock`: read, set or advance, reset. */
function clockRoutes(router: Router, control: GatewayControl): void {
  router.get('/clock', (_req, res) => {
    res.json(control.clock())
  })
  router.post('/clock', (req, res) => {
    res.json(control.setClock(body(req)))
  })
  router.delete('/clock', (_req, res) => {
    res.json(control.resetClock())
  })
}

/** `/keys`: list, add, read; a key's credits and networks. */
function keyRoutes(router: Router, control: GatewayControl): void {
  router.get('/keys', (_req, res) => {
    res.json({ keys: control.keys() })
  })
  router.post('/keys', (req, res) => {
    const b: unknown = req.body
    const keys = Array.isArray(b) ? b : fields(req, ['keys']).keys
    if (keys === undefined) throw new ControlInputError('keys', 'give {"keys": [...]} in the config-file shape')
    res.status(201).json({ keys: control.addKeys(keys) })
  })
  router.get('/keys/:key', (req, res) => {
    res.json(control.key(param(req, 'key')))
  })
  router.put('/keys/:key/credits', (req, res) => {
    res.json(control.setCredits(param(req, 'key'), fields(req, ['remaining']).remaining as number))
  })
  router.put('/keys/:key/networks/:network', (req, res) => {
    res.json(control.setNetworkEnabled(param(req, 'key'), param(req, 'network'), true))
  })
  router.delete('/keys/:key/networks/:network', (req, res) => {
    res.json(control.setNetworkEnabled(param(req, 'key'), param(req, 'network'), false))
  })
}

/** `/networks`: list, fork, read; a network's mining mode, mine a block. */
function networkRoutes(router: Router, control: GatewayControl): void {
  router.get('/networks', (_req, res) => {
    res.json({ networks: control.networks() })
  })
  router.post('/networks', async (req, res) => {
    res.status(201).json(await control.fork(body(req) as { name: string; from: string }))
  })
  router.get('/networks/:name', (req, res) => {
    res.json(control.network(param(req, 'name')))
  })
  router.put('/networks/:name/mining', (req, res) => {
    res.json(control.setMiningMode(param(req, 'name'), fields(req, ['mode']).mode as 'auto'))
  })
  router.post('/networks/:name/reorg', async (req, res) => {
    res.json(await control.reorg(param(req, 'name'), body(req) as never))
  })
  router.post('/networks/:name/mine', async (req, res) => {
    res.json(await control.mine(param(req, 'name')))
  })
  router.get('/networks/:name/export', (req, res) => {
    const exported = control.exportNetwork(param(req, 'name'))
    const files = Object.fromEntries([...exported.files].map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]))
    res.json({ network: exported.network, headNumber: exported.headNumber, encoding: 'base64', files })
  })
}

/** `/log`: read after a seq, clear. */
function logRoutes(router: Router, control: GatewayControl): void {
  router.get('/log', (req, res) => {
    const since = req.query.since
    let n: number | undefined
    if (since !== undefined) {
      n = typeof since === 'string' && /^\d+$/.test(since) ? Number(since) : Number.NaN
      if (Number.isNaN(n)) throw new ControlInputError('since', `must be an integer of at least 0, got ${JSON.stringify(since)}`)
    }
    res.json({ entries: control.requestLog(n === undefined ? {} : { since: n }) })
  })
  router.delete('/log', (_req, res) => {
    control.clearRequestLog()
    res.status(204).end()
  })
}

/** `/usage` (query `window`, `key`, `network`, `method`), `/usage/totals`, `/events` (server-sent quota alerts). */
function usageRoutes(router: Router, control: GatewayControl): void {
  router.get('/usage', (req, res) => {
    res.json(control.usage(req.query as Record<string, string>))
  })
  router.get('/usage/totals', (_req, res) => {
    res.json(control.usageTotals())
  })
  router.get('/events', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' })
    const send = (alert: unknown) => res.write(`event: alert\ndata: ${JSON.stringify(alert)}\n\n`)
    for (const alert of control.alerts()) send(alert)
    const stop = control.onAlert(send)
    req.on('close', stop)
  })
}

/** `/faults`: list, add, clear, remove one. */
function faultRoutes(router: Router, control: GatewayControl): void {
  router.get('/faults', (_req, res) => {
    res.json({ faults: control.faults() })
  })
  router.post('/faults', (req, res) => {
    res.status(201).json(control.addFault(body(req) as never))
  })
  router.delete('/faults', (_req, res) => {
    control.clearFaults()
    res.status(204).end()
  })
  router.delete('/faults/:id', (req, res) => {
    control.removeFault(param(req, 'id'))
    res.status(204).end()
  })
}

/** Control errors in the endpoint's shape, `{"error":{"message"}}`; anything unknown a logged 500 (./controlFailure.ts). */
function controlErrors(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    writeResponse(res, controlFailure(err, logger, req))
  }
}
