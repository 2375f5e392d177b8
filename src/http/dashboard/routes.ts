/**
 * The dashboard's routes under the control prefix: the page at `/_double/` (`/_double` redirects
 * there, so the page's relative URLs resolve), uPlot's script and stylesheet read once from
 * the installed `uplot` package (a dependency: nothing comes from a CDN), and `/_double/routes`,
 * the index of the control routes (method and path of each, read from the router itself).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Router } from 'express'
import { CONTROL_PREFIX } from '../controlPrefix.ts'
import { UPLOT_CSS, UPLOT_JS, dashboardPage } from './page.ts'

const require = createRequire(import.meta.url)
let files: { js: string; css: string } | undefined

function uplotFiles(): { js: string; css: string } {
  return (files ??= {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  })
}

/** The routes `router` answers, in the order they were added (the page, the assets and the index included). */
function routeIndex(router: Router): { method: string; path: string }[] {
  const index: { method: string; path: string }[] = []
  for (const layer of router.stack as { route?: { path: string; methods: Record<string, boolean> } }[]) {
    if (layer.route === undefined) continue
    for (const method of Object.keys(layer.route.methods)) index.push({ method: method.toUpperCase(), path: `${CONTROL_PREFIX}${layer.route.path}`.replace('//', '/') })
  }
  return index
}

export function dashboardRoutes(router: Router): void {
  router.get('/routes', (_req, res) => {
    res.json({ routes: routeIndex(router) })
  })
  router.get('/', (req, res) => {
    if (!req.originalUrl.split('?', 1)[0]!.endsWith('/')) {
      res.redirect(301, `${req.baseUrl}/`)
      return
    }
    res.type('html').set('cache-control', 'no-store').send(dashboardPage())
  })
  router.get(`/${UPLOT_JS}`, (_req, res) => {
    res.type('js').send(uplotFiles().js)
  })
  router.get(`/${UPLOT_CSS}`, (_req, res) => {
    res.type('css').send(uplotFiles().css)
  })
}
