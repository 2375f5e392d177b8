/**
 * Express, required on first use (createApp, the control routes) instead of imported: it is 120
 * CommonJS modules, about a third of what `import('gateway-double')` loaded, and a server that
 * answers only `POST /v3/` never needs it. `require` of a CommonJS package is synchronous, so
 * `createApp` stays a plain function.
 */
import { createRequire } from 'node:module'

type ExpressModule = typeof import('express')

let loaded: ExpressModule | undefined

export function loadExpress(): ExpressModule {
  return (loaded ??= createRequire(import.meta.url)('express') as ExpressModule)
}
