/**
 * `createApp(deps)`: the Express app around the gateway core, without listening (a supertest
 * target). Every method and path goes to the core, which answers `POST /v3/<key>` and refuses
 * everything else in the hosted service's shapes; Express parses nothing on those paths (no body
 * parser), so the core gets the raw bytes and parse errors are its own.
 *
 * With `control: true`, the control routes (./controlRoutes.ts) answer under `/_double/` first;
 * without it, `/_double/...` reaches the core like any other unknown path (404).
 */
import type { ErrorRequestHandler, Express } from 'express'
import { createGateway, silentLogger } from '../gateway/gateway.ts'
import type { Gateway, GatewayOptions } from '../gateway/gateway.ts'
import type { ControlAccess } from '../gateway/controlAccess.ts'
import { CONTROL_PREFIX, createControlRouter } from './controlRoutes.ts'
import { loadExpress } from './express.ts'
import { answerFailure, createNodeHandler } from './nodeHandler.ts'

export interface AppOptions {
  /** Serve the HTTP control endpoint under `/_double/`. Default false. */
  readonly control?: boolean
  /** Who may call the controls besides loopback pages of the double's own (./controlGuard.ts). */
  readonly controlAccess?: ControlAccess
}

/** What the app serves: `GatewayOptions` (networks, keys, serviceHost, clock, logger, rpc, batchLimit), plus `control`. */
export type AppDeps = GatewayOptions & AppOptions

export interface GatewayApp extends Express {
  /** The core the app serves (its ledger, keys, networks and `control` facet). */
  readonly gateway: Gateway
}

export function createApp(deps: AppDeps | ({ gateway: Gateway; logger?: GatewayOptions['logger'] } & AppOptions)): GatewayApp {
  const gateway = 'gateway' in deps ? deps.gateway : createGateway(deps)
  const express = loadExpress()
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag')
  if (deps.control === true) app.use(CONTROL_PREFIX, createControlRouter(gateway.control, deps.logger ?? silentLogger, { ...deps.controlAccess, serviceHost: gateway.serviceHost }))
  const listener = createNodeHandler(gateway)
  app.use((req, res) => listener(req, res))
  // Nothing above passes an error on; should anything, it is answered as the gateway's own 500
  // (never Express's default page, which shows the stack outside production).
  const lastResort: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    gateway.logger.error('transport failure', err)
    answerFailure(res)
  }
  app.use(lastResort)
  return Object.assign(app, { gateway })
}
