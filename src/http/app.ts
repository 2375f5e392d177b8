/**
 * `createApp(deps)`: the Express app around the gateway core, without listening (a supertest
 * target). Every method and path goes to the core, which answers `POST /v3/<key>` and refuses
 * everything else in the hosted service's shapes; Express parses nothing (no body parser), so the
 * core gets the raw bytes and parse errors are its own.
 */
import express from 'express'
import type { Express } from 'express'
import { createGateway } from '../gateway/gateway.ts'
import type { Gateway, GatewayOptions } from '../gateway/gateway.ts'
import { createNodeHandler } from './nodeHandler.ts'

/** What the app serves: `GatewayOptions` (networks, keys, serviceHost, clock, logger, rpc, batchLimit). */
export type AppDeps = GatewayOptions

export interface GatewayApp extends Express {
  /** The core the app serves (its ledger, keys and networks). */
  readonly gateway: Gateway
}

export function createApp(deps: AppDeps | { gateway: Gateway }): GatewayApp {
  const gateway = 'gateway' in deps ? deps.gateway : createGateway(deps)
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag')
  const listener = createNodeHandler(gateway)
  app.use((req, res) => listener(req, res))
  return Object.assign(app, { gateway })
}
