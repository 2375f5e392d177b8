/**
 * `npm run bench:fork`: what a fork costs its upstream and how soon it answers. The upstream is an
 * Anvil holding two tokens and a pool with a few hundred blocks of history (the fork tests' world,
 * test/e2e/support/fork/world.ts), behind a counting proxy. Alternating, `--rounds` times each:
 * - gateway-double cold: a fresh cache; from `startServer` to the answer of its first `eth_call`
 *   (a swap quote through the pool: the pool's and both tokens' code and storage);
 * - gateway-double warm: the same fork again, its cache kept (the upstream still up);
 * - Anvil: `anvil --fork-url <proxy> --fork-block-number <block>`, from spawning it to the same
 *   call's answer (Anvil's own cache for a local chain id is off).
 * Prints the upstream requests of each start (start and first call together) and the times; the
 * machine is shared, so compare the rows of one run.
 */
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { encodeFunctionData, parseEther } from 'viem'
import { parseConfig } from '../src/gateway/config.ts'
import { startServer } from '../src/http/server.ts'
import { startAnvil } from '../test/capture/anvil.ts'
import { ACCOUNTS, buildWorld } from '../test/e2e/support/fork/world.ts'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, help: { type: 'boolean', short: 'h' } } })
if (values.help) {
  console.log('Usage: npm run bench:fork -- [--rounds <n> (default 3)]')
  process.exit(0)
}
const rounds = Number(values.rounds)
const loadBefore = loadavg()[0]!

const world = await buildWorld()
let counted = 0
const proxy = createServer((req, res) => {
  counted++
  const target = new URL(world.anvil.url)
  const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  req.pipe(forward)
})
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
const quote = { to: world.pool, from: ACCOUNTS[1]!.address, data: encodeFunctionData({ abi: world.poolAbi, functionName: 'swap', args: [parseEther('5'), true, ACCOUNTS[1]!.address] }) }

async function firstCall(url: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [quote, 'latest'] }) })
  const body = (await res.json()) as { result?: string; error?: unknown }
  if (typeof body.result !== 'string' || body.result.length !== 66) throw new Error(`first eth_call: ${JSON.stringify(body)}`)
}

async function double(cacheDir: string): Promise<{ ms: number; requests: number }> {
  const config = parseConfig({ networks: { up: { fork: { url: proxyUrl, block: Number(world.forkBlock), cacheDir } } }, keys: [{ key: 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0', networks: ['up'] }] }, process.cwd())
  counted = 0
  const started = performance.now()
  const server = await startServer({ config, port: 0 })
  await firstCall(server.url!)
  const ms = performance.now() - started
  const requests = counted
  await server.close()
  return { ms, requests }
}

async function anvil(): Promise<{ ms: number; requests: number }> {
  counted = 0
  const started = performance.now()
  const forked = await startAnvil(['--fork-url', proxyUrl, '--fork-block-number', String(world.forkBlock), '--accounts', '0', '--no-storage-caching'])
  await firstCall(forked.url)
  const ms = performance.now() - started
  const requests = counted
  await forked.stop()
  return { ms, requests }
}

const rows: Record<string, { ms: number[]; requests: number[] }> = { 'gateway-double cold': { ms: [], requests: [] }, 'gateway-double warm (cached)': { ms: [], requests: [] }, 'anvil --fork-url': { ms: [], requests: [] } }
const note = (name: string, r: { ms: number; requests: number }) => {
  rows[name]!.ms.push(r.ms)
  rows[name]!.requests.push(r.requests)
}
try {
  for (let i = 0; i < rounds; i++) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'gd-bench-fork-'))
    try {
      note('gateway-double cold', await double(cacheDir))
      note('anvil --fork-url', await anvil())
      note('gateway-double warm (cached)', await double(cacheDir))
    } finally {
      rmSync(cacheDir, { recursive: true, force: true })
    }
  }
} finally {
  proxy.close()
  await world.anvil.stop()
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`fork at block ${world.forkBlock} of an Anvil with two tokens and a pool; first eth_call: a swap quote; ${rounds} rounds, alternating`)
console.log(`${'target'.padEnd(30)} ${'upstream requests'.padStart(18)} ${'start + first eth_call, median ms'.padStart(34)}`)
for (const [name, r] of Object.entries(rows)) console.log(`${name.padEnd(30)} ${String(median(r.requests)).padStart(18)} ${median(r.ms).toFixed(0).padStart(34)}`)
console.log(`load average: ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`)
