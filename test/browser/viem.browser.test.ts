/**
 * A real client outside Node: viem in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core; no browser is downloaded). The page (./page.ts, bundled by esbuild) is served
 * from one origin, http://127.0.0.1:<port>, and calls the double on another,
 * http://ethereum-mainnet.localhost:<port> (Chromium resolves *.localhost itself): over http()
 * every call is a cross-origin POST after a CORS preflight, over webSocket() the browser's own
 * WebSocket. What the page sees is read from it; the calls it made from the request log.
 * Skips, saying why, when Chromium is absent (.ci/run installs it).
 */
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import type { Browser, Page } from 'playwright-core'
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/gateway/requestLog.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { logPosition, startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { bob, carol, token } from '../e2e/support/fixture.ts'
import { until } from '../support/socket.ts'

const CHROMIUM = '/usr/bin/chromium'
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`test/browser skipped: no Chromium at ${CHROMIUM} (Debian's package: apt-get install chromium; .ci/run installs it)`)

/** The flags this machine's Chromium needs (its closed network refuses the background connections). */
const FLAGS = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** What the page exposes (./page.ts), as the test calls it through page.evaluate. */
interface PageApi {
  seen: { blockNumbers: string[]; httpLogs: unknown[]; wsLogs: unknown[]; errors: string[] }
  read(url: string, token: string, holder: string): Promise<{ chainId: number; blockNumber: string; balance: string }>
  watch(url: string, wsUrl: string, token: string): void
  unwatch(): void
  close(): Promise<void>
  probe(url: string, wsUrl: string): Promise<{ http: string; ws: string }>
}
/** The page's global, as functions run in the page reach it (page.evaluate sends their source: no closures). */
type PageGlobal = { gd: PageApi }

let server: ControlServer
let pages: Server
let pageOrigin: string
let browser: Browser
let page: Page
/** What the page's console printed as errors (Chromium prints refused requests there). */
const consoleErrors: string[] = []
/** What Chromium's network layer saw: every request to the double, preflights included. */
const wire: { method: string; url: string; type: string; status?: number; allowOrigin?: string }[] = []

beforeAll(async () => {
  if (!hasChromium) return
  server = await startControlServer()
  const bundle = await build({ entryPoints: [new URL('./page.ts', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', target: 'chrome120', write: false, logLevel: 'silent' })
  const script = bundle.outputFiles[0]!.text
  pages = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>dapp</title><script type="module" src="/page.js"></script>')
    else res.writeHead(req.url === '/favicon.ico' ? 204 : 404).end()
  })
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  // Playwright starts Chromium with a new empty profile of its own (removed on close), headless,
  // with --no-sandbox (chromiumSandbox: false).
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: FLAGS })
  page = await browser.newPage()
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text())
  })
  // Chromium's own view of the network (the CDP Network domain): preflights are requests of their own there.
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.enable')
  const byId = new Map<string, (typeof wire)[number]>()
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!e.request.url.startsWith(server.url.slice(0, server.url.indexOf('/v3/')))) return
    const seen = { method: e.request.method, url: e.request.url, type: e.initiator.type }
    byId.set(e.requestId, seen)
    wire.push(seen)
  })
  cdp.on('Network.responseReceived', (e) => {
    const seen = byId.get(e.requestId)
    if (seen === undefined) return
    seen.status = e.response.status
    const allow = Object.entries(e.response.headers).find(([name]) => name.toLowerCase() === 'access-control-allow-origin')
    if (allow !== undefined) seen.allowOrigin = String(allow[1])
  })
  await page.goto(`${pageOrigin}/`)
  await page.waitForFunction(() => (globalThis as unknown as { gd?: unknown }).gd !== undefined)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  if (pages !== undefined) await new Promise((resolve) => pages.close(resolve))
  await server?.close()
})

/** Entries logged since `since` (HTTP and WebSocket), the calls of each. */
const calls = (entries: RequestLogEntry[]) => entries.flatMap((e) => (e.socket?.stage === 'upgrade' ? ['upgrade'] : e.calls.map((c) => c.method)))

describe.skipIf(!hasChromium)('viem in Chromium, from another origin', () => {
  it('reads over http(): each POST a cross-origin request after a CORS preflight (204, the page origin allowed back), answered as in Node', async () => {
    const since = logPosition(server)
    wire.length = 0
    const read = await page.evaluate(([url, address, holder]) => (globalThis as unknown as PageGlobal).gd.read(url!, address!, holder!), [server.url, token, bob.address])
    const node = createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
    expect(read).toEqual({
      chainId: 1,
      blockNumber: String(await node.getBlockNumber()),
      balance: String(await node.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [bob.address] })),
    })
    const logged = server.control.requestLog({ since }).slice(0, 3)
    expect(calls(logged).sort()).toEqual(['eth_blockNumber', 'eth_call', 'eth_chainId'])
    expect(logged.map((e) => [e.transport, e.status, e.network])).toEqual(Array(3).fill(['http', 200, 'ethereum']))
    // Chromium asked before its first POST (it may keep the answer for access-control-max-age).
    const preflights = wire.filter((r) => r.method === 'OPTIONS')
    expect(preflights.length).toBeGreaterThanOrEqual(1)
    expect(preflights[0]).toMatchObject({ type: 'preflight', status: 204, url: server.url })
    const posts = wire.filter((r) => r.method === 'POST')
    expect(posts).toHaveLength(3)
    for (const post of posts) expect(post).toMatchObject({ status: 200, allowOrigin: pageOrigin, url: server.url })
  })

  it("a key's origins allowlist judges the browser's own Origin, on a POST and on the WebSocket upgrade alike", async () => {
    const allowed = 'a1'.repeat(16)
    const refused = 'b2'.repeat(16)
    server.control.addKeys([
      { key: allowed, networks: ['ethereum'], allowlists: { origins: [pageOrigin.slice('http://'.length)] } },
      { key: refused, networks: ['ethereum'], allowlists: { origins: ['https://dapp.example.com'] } },
    ])
    const since = logPosition(server)
    const probe = (key: string) => page.evaluate(([url, wsUrl]) => (globalThis as unknown as PageGlobal).gd.probe(url!, wsUrl!), [server.urlFor('ethereum', key), server.wsUrlFor('ethereum', key)])
    const head = await createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) }).getBlockNumber()
    expect(await probe(allowed)).toEqual({ http: `block ${head}`, ws: 'open' })
    expect(consoleErrors).toEqual([])
    // viem reads the 403's JSON-RPC body; the browser's WebSocket only sees the upgrade fail.
    expect(await probe(refused)).toEqual({ http: 'ResourceUnavailableRpcError: rejected due to project ID settings', ws: 'closed 1006' })
    expect(consoleErrors.splice(0)).toEqual([
      'Failed to load resource: the server responded with a status of 403 (Forbidden)',
      `WebSocket connection to '${server.wsUrlFor('ethereum', refused)}' failed: Error during WebSocket handshake: Unexpected response code: 403`,
    ])
    const entries = server.control.requestLog({ since }).filter((e) => e.key === refused)
    expect(entries.map((e) => [e.transport, e.status, e.credits])).toEqual([['http', 403, 0], ['ws', 403, 0]])
  })

  it('watches over http() (a filter, polled) and webSocket() (subscriptions): a transfer mined in Node reaches the page both ways, the block by newHeads; a reorg as removed logs', async () => {
    const since = logPosition(server)
    await page.evaluate(([url, wsUrl, address]) => (globalThis as unknown as PageGlobal).gd.watch(url!, wsUrl!, address!), [server.url, server.wsUrls.ethereum!, token])
    const log = () => server.control.requestLog({ since })
    await until(() => calls(log()).filter((m) => m === 'eth_subscribe').length === 2 && calls(log()).includes('eth_newFilter'), 10_000, 'the page to subscribe and make its filter')
    const wallet = createWalletClient({ account: privateKeyToAccount(bob.privateKey), chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [carol.address, parseEther('2')] })
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).gd.seen.httpLogs.length > 0 && (globalThis as unknown as PageGlobal).gd.seen.wsLogs.length > 0 && (globalThis as unknown as PageGlobal).gd.seen.blockNumbers.length > 0, undefined, { timeout: 15_000 })
    const receipt = await createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) }).getTransactionReceipt({ hash })
    const transfer = { blockHash: receipt.blockHash, transactionHash: hash, from: getAddress(bob.address), to: getAddress(carol.address), value: String(parseEther('2')), removed: false }
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).gd.seen)).toEqual({ blockNumbers: [String(receipt.blockNumber)], httpLogs: [transfer], wsLogs: [transfer], errors: [] })

    // A reorg replaces that block: both watchers get its log again with removed: true, then the new block's.
    const moved = (await server.control.reorg('ethereum', { depth: 1 })).added[0]!.hash
    await page.waitForFunction(() => (globalThis as unknown as PageGlobal).gd.seen.httpLogs.length >= 3 && (globalThis as unknown as PageGlobal).gd.seen.wsLogs.length >= 3, undefined, { timeout: 15_000 })
    const again = [transfer, { ...transfer, removed: true }, { ...transfer, blockHash: moved }]
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).gd.seen)).toEqual({ blockNumbers: [String(receipt.blockNumber), String(receipt.blockNumber)], httpLogs: again, wsLogs: again, errors: [] })

    await page.evaluate(() => (globalThis as unknown as PageGlobal).gd.unwatch())
    await until(() => calls(log()).filter((m) => m === 'eth_unsubscribe').length === 2 && calls(log()).includes('eth_uninstallFilter'), 10_000, 'the page to unsubscribe and uninstall its filter')
    await page.evaluate(() => (globalThis as unknown as PageGlobal).gd.close())
    const entries = log()
    const sockets = entries.filter((e) => e.transport === 'ws')
    // One socket for both watchers: its upgrade, two subscriptions, a head (50) per block and a block's logs (300) per block
    // added or removed, two unsubscriptions.
    expect(new Set(sockets.map((e) => e.socket!.connection)).size).toBe(1)
    expect(calls(sockets).filter((m) => m !== 'eth_subscription')).toEqual(['upgrade', 'eth_subscribe', 'eth_subscribe', 'eth_unsubscribe', 'eth_unsubscribe'])
    expect(sockets.filter((e) => e.socket!.stage === 'event').map((e) => [e.socket!.subscription!.type, e.credits]).sort()).toEqual([['logs', 300], ['logs', 300], ['logs', 300], ['newHeads', 50], ['newHeads', 50]])
    // The http() watcher took the filter path, across origins: no eth_getLogs.
    const page_ = calls(entries.filter((e) => e.transport === 'http' && e.calls.some((c) => c.method?.includes('Filter'))))
    expect(page_[0]).toBe('eth_newFilter')
    expect(page_.at(-1)).toBe('eth_uninstallFilter')
    expect(page_.slice(1, -1).every((m) => m === 'eth_getFilterChanges')).toBe(true)
    expect(calls(entries)).not.toContain('eth_getLogs')
    expect(consoleErrors).toEqual([])
  })
})
