/**
 * The dashboard at `/_double/` in a real browser: headless Chromium (Debian's /usr/bin/chromium,
 * driven by playwright-core) loads the page from a running server, Node sends requests over HTTP
 * (viem) and a WebSocket, and the page's numbers, tables and uPlot chart change as they arrive
 * (the page polls the control routes every second). uPlot is served by the package itself (no
 * CDN): the page loads only from its own origin. The screenshot the README shows is taken here:
 * written to docs/images/dashboard.png with UPDATE_SCREENSHOTS=1, else to a temporary folder.
 * Skips, saying why, when Chromium is absent (.ci/run installs it).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { Browser, Page } from 'playwright-core'
import { createPublicClient, http } from 'viem'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { openSocket } from '../support/socket.ts'

const CHROMIUM = '/usr/bin/chromium'
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`test/browser skipped: no Chromium at ${CHROMIUM} (Debian's package: apt-get install chromium; .ci/run installs it)`)

const FLAGS = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const SCREENSHOT = new URL('../../docs/images/dashboard.png', import.meta.url).pathname

let server: ControlServer
let browser: Browser
let page: Page
/** Every URL the page requested, and what the console printed as errors. */
const requested: string[] = []
const consoleErrors: string[] = []

beforeAll(async () => {
  if (!hasChromium) return
  server = await startControlServer()
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: FLAGS })
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
  page.on('request', (r) => requested.push(r.url()))
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text())
  })
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** The little of the DOM read from the page (the tests are typechecked without the DOM library). */
interface El {
  readonly textContent: string | null
  querySelector(selector: string): El | null
  querySelectorAll(selector: string): ArrayLike<El> & Iterable<El>
  toDataURL(): string
}
type Doc = El & { getElementById(id: string): El | null; readonly body: { readonly dataset: Record<string, string | undefined> } }
/** The page's document, as functions run in the page reach it (page.evaluate sends their source: no closures). */
type PageGlobal = { document: Doc }

/** What the page shows: the cards' numbers, the tables' rows and the chart's plotted requests. */
async function shown(): Promise<{ updates: number; requests: number; credits: number; failures: number; methods: string[]; logRows: number; statuses: string[]; contracts: string[]; faults: string[]; snapshots: number; chartRequests: number; chartPoints: number; canvas: string }> {
  return page.evaluate(() => {
    const document = (globalThis as unknown as PageGlobal).document
    const num = (id: string) => Number(document.getElementById(id)!.textContent!.replace(/,/g, ''))
    const firstCells = (id: string) => [...document.querySelectorAll(`#${id} tr`)].slice(1).map((tr) => tr.querySelector('td')!.textContent!)
    // `chart` is the page script's global uPlot instance (a top-level `let` of a classic script).
    const plot = (globalThis as unknown as { eval(s: string): { data: number[][] } | null }).eval('chart')
    const canvas = document.querySelector('#chart canvas')
    return {
      updates: Number(document.body.dataset.updates ?? 0),
      requests: num('requests'),
      credits: num('credits'),
      failures: num('failures'),
      methods: firstCells('methods'),
      logRows: document.querySelectorAll('#log tr').length - 1,
      statuses: firstCells('statuses'),
      contracts: [...document.querySelectorAll('#contracts tr')].slice(1).map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''),
      faults: [...document.querySelectorAll('#faults tr')].slice(1).map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''),
      snapshots: document.querySelectorAll('#snapshots tr td:not(.none)').length > 0 ? document.querySelectorAll('#snapshots tr').length - 1 : 0,
      chartRequests: plot ? plot.data[1]!.reduce((a, b) => a + (b ?? 0), 0) : -1,
      chartPoints: plot ? plot.data[0]!.length : -1,
      canvas: canvas ? canvas.toDataURL() : '',
    }
  })
}

/** Waits for the page's next redraws (it redraws every second). */
async function nextUpdates(n = 2): Promise<void> {
  const from = await page.evaluate(() => Number((globalThis as unknown as PageGlobal).document.body.dataset.updates ?? 0))
  await page.waitForFunction((at) => Number((globalThis as unknown as PageGlobal).document.body.dataset.updates ?? 0) >= at, from + n, { timeout: 20_000 })
}

describe.skipIf(!hasChromium)('the dashboard in headless Chromium', () => {
  it('loads from the package (uPlot included, no CDN), then its numbers, tables and chart follow HTTP and WebSocket traffic', async () => {
    const response = await page.goto(`${server.controlUrl}/`)
    expect(response!.status()).toBe(200)
    await page.waitForFunction(() => Number((globalThis as unknown as PageGlobal).document.body.dataset.updates ?? 0) >= 1, undefined, { timeout: 20_000 })
    const before = await shown()
    expect(before.chartPoints).toBeGreaterThan(0)
    // Everything the page loaded came from the double's own origin: uPlot is served from the package.
    const origin = new URL(server.controlUrl).origin
    expect(requested.filter((u) => !u.startsWith(origin))).toEqual([])
    expect(requested.some((u) => u.endsWith('/_double/dashboard/uPlot.iife.min.js'))).toBe(true)
    expect(await page.evaluate(() => typeof (globalThis as { uPlot?: unknown }).uPlot)).toBe('function')

    // Traffic: viem over HTTP, a refused request, a batch, and a WebSocket with a subscription.
    const client = createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch, retryCount: 0 }) })
    for (let i = 0; i < 5; i++) await client.getBlockNumber({ cacheTime: 0 })
    await client.getChainId()
    const token = server.control.network('ethereum').contracts.token! as `0x${string}`
    await client.call({ to: token, data: '0x18160ddd' }) // totalSupply()
    await server.control.snapshot()
    server.control.addFault({ kind: 'rateLimit', method: 'eth_chainId', times: 2 })
    await client.getChainId().catch(() => undefined) // faulted once: one left
    const refused = await localhostFetch(server.url.replace(/\/v3\/.*/, '/v3/no-such-key'), { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
    expect(refused.status).toBe(401)
    const socket = await openSocket(server.wsUrls.ethereum!)
    await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })
    await socket.call({ jsonrpc: '2.0', id: 2, method: 'eth_gasPrice', params: [] })
    await server.control.mine('ethereum')
    await socket.next()
    await socket.close()

    await nextUpdates()
    const after = await shown()
    const usage = server.control.usage({ window: '24h' })
    // The page shows what the counters say, and more than before.
    expect(after.requests).toBe(usage.totals.requests)
    expect(after.credits).toBe(usage.totals.credits)
    expect(after.failures).toBe(usage.totals.failures)
    expect(after.requests).toBeGreaterThanOrEqual(before.requests + 13)
    expect(after.credits).toBeGreaterThan(before.credits)
    expect(after.failures).toBeGreaterThan(before.failures)
    expect(after.methods).toEqual(expect.arrayContaining(['eth_blockNumber', 'eth_chainId', 'eth_call', 'eth_subscribe', 'eth_subscription', 'eth_gasPrice']))
    expect(after.statuses).toEqual(expect.arrayContaining(['401', '429']))
    expect(after.contracts).toEqual([token.toLowerCase()])
    expect(after.faults).toEqual(['rateLimit'])
    expect(after.snapshots).toBe(1)
    expect(after.logRows).toBeGreaterThanOrEqual(10)
    // The chart was redrawn with the new requests.
    expect(after.chartRequests).toBe(usage.series.reduce((sum, p) => sum + p.requests, 0))
    expect(after.chartRequests).toBeGreaterThan(before.chartRequests)
    expect(after.canvas).not.toBe(before.canvas)
    expect(consoleErrors).toEqual([])

    const file = process.env.UPDATE_SCREENSHOTS === '1' ? SCREENSHOT : join(mkdtempSync(join(tmpdir(), 'dashboard-')), 'dashboard.png')
    const png = await page.screenshot({ fullPage: true })
    writeFileSync(file, png)
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
  })

  it('the README shows the screenshot', () => {
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain('](docs/images/dashboard.png)')
    expect(readFileSync(SCREENSHOT).subarray(1, 4).toString('latin1')).toBe('PNG')
  })
})
