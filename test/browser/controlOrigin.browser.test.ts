/**
 * A page on another origin, in headless Chromium, tries the controls and the test endpoint the way
 * a hostile page would (no-cors "simple" requests, whose answers it cannot read but whose effects
 * would happen): refused, nothing changes; the same page's calls to `/v3/<key>` work (the
 * service's CORS). Skips, saying why, when Chromium is absent.
 */
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import { chromium } from 'playwright-core'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'

const CHROMIUM = '/usr/bin/chromium'
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`test/browser skipped: no Chromium at ${CHROMIUM} (Debian's package: apt-get install chromium; .ci/run installs it)`)
const FLAGS = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const WHALE = '0x00000000000000000000000000000000000beef2'

let server: ControlServer
let browser: Browser
let site: Server
let siteUrl: string

beforeAll(async () => {
  if (!hasChromium) return
  server = await startControlServer()
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'))
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: FLAGS })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await new Promise((resolve) => site?.close(resolve))
})

describe.runIf(hasChromium)('a page on another origin', () => {
  it('cannot drive the controls or the test endpoint; its /v3/ calls work', async () => {
    const page = await browser.newPage()
    await page.goto(siteUrl)
    const key = server.devKey
    const creditsBefore = server.gateway.balance(key)!
    const outcome = await page.evaluate(
      async ({ control, v3, key, whale }) => {
        const set = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [whale, '0x1234'] })
        const tries = [
          fetch(`${control}/rpc/ethereum`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: set }),
          fetch(`${control}/snapshots`, { method: 'POST', mode: 'no-cors' }),
          fetch(`${control}/keys/${key}/credits`, { method: 'POST', mode: 'no-cors', body: '{"remaining":5}' }),
        ]
        const settled = await Promise.allSettled(tries)
        // A cross-origin read of the controls, in cors mode: refused by the browser (no CORS headers) and by the double.
        const read = await fetch(`${control}/snapshots`).then(() => 'read', () => 'blocked')
        const rpc = await fetch(v3, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) })
        return { sent: settled.map((s) => s.status), read, v3: ((await rpc.json()) as { result: string }).result }
      },
      { control: server.controlUrl, v3: server.url, key, whale: WHALE },
    )
    expect(outcome).toEqual({ sent: ['fulfilled', 'fulfilled', 'fulfilled'], read: 'blocked', v3: '0x1' })
    expect(server.control.snapshots()).toEqual([])
    // Charged for the page's eth_chainId (5 credits), not set to 5 by the page.
    expect(server.gateway.balance(key)).toBe(creditsBefore - 5)
    const res = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [WHALE, 'latest'] }) })
    expect(((await res.json()) as { result: string }).result).toBe('0x0')
    await page.close()
  })
})
