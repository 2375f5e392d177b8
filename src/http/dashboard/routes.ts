/**
 * The dashboard's routes under the control prefix: the page at `/_double/` (`/_double` redirects
 * there, so the page's relative URLs resolve), and uPlot's script and stylesheet read once from
 * the installed `uplot` package (a dependency: nothing comes from a CDN).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Router } from 'express'
import { UPLOT_CSS, UPLOT_JS, dashboardPage } from './page.ts'

const require = createRequire(import.meta.url)
let files: { js: string; css: string } | undefined

function uplotFiles(): { js: string; css: string } {
  return (files ??= {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  })
}

export function dashboardRoutes(router: Router): void {
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
