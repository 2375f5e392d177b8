/**
 * `npm run bench:simulate`: the time of one eth_simulateV1 of a 3-call ERC-20 bundle (alice sends
 * bob a token, bob sends alice two, alice reads bob's balance) on the default ethereum fixture's
 * Token, through a real server (`startServer`, `POST /v3/<key>`, the network's Host), one request
 * at a time. For scale, in the same run and interleaved with it: an eth_call of one transfer, and
 * an eth_estimateGas of one (a different amount each time, so that no kept answer is reused).
 * Each simulation has different amounts too.
 *
 * Prints p50, p99 and mean per request, the ratio to eth_call, and the load average before and
 * after (the machine is shared: compare the rows of one run, not runs).
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { encodeFunctionData, parseAbi } from 'viem'
import { localhostFetch } from '../src/http/client.ts'
import { startServer } from '../src/http/server.ts'

const ALICE = '0x8f41fd4479ae08632001bc4b1fcbfdc464ed1c49'
const BOB = '0x724f0f3bde1c17da298e2af780968ff5a8271427'
const TOKEN = '0x7d4c351edf255f0d4532fe1eb8f7b7c5eefcb105'
const ERC20 = parseAbi(['function transfer(address,uint256) returns (bool)', 'function balanceOf(address) view returns (uint256)'])
const transfer = (to: `0x${string}`, amount: bigint) => encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [to, amount] })

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' }, warmup: { type: 'string', default: '20' }, help: { type: 'boolean', short: 'h' } } })
if (values.help) {
  console.log('Usage: npm run bench:simulate -- [--runs <n> (default 200)] [--warmup <n> (default 20)]')
  process.exit(0)
}
const runs = Number(values.runs)
const warmup = Number(values.warmup)

const requests: Record<string, (i: number) => unknown> = {
  'eth_simulateV1, 3-call ERC-20 bundle': (i) => ({
    method: 'eth_simulateV1',
    params: [
      {
        blockStateCalls: [
          {
            calls: [
              { from: ALICE, to: TOKEN, data: transfer(BOB, 10n ** 18n + BigInt(i)) },
              { from: BOB, to: TOKEN, data: transfer(ALICE, 2n * 10n ** 18n + BigInt(i)) },
              { from: ALICE, to: TOKEN, data: encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [BOB] }) },
            ],
          },
        ],
      },
      'latest',
    ],
  }),
  'eth_call, 1 transfer': (i) => ({ method: 'eth_call', params: [{ from: ALICE, to: TOKEN, data: transfer(BOB, 10n ** 18n + BigInt(i)) }, 'latest'] }),
  'eth_estimateGas, 1 transfer': (i) => ({ method: 'eth_estimateGas', params: [{ from: ALICE, to: TOKEN, data: transfer(BOB, 10n ** 18n + BigInt(i)) }, 'latest'] }),
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')
const loadBefore = load()
const server = await startServer({ port: 0 })
const url = server.urls.ethereum!
let id = 0
async function post(body: unknown): Promise<number> {
  const started = performance.now()
  const res = await localhostFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...(body as object) }) })
  const answer = (await res.json()) as { error?: unknown }
  const ms = performance.now() - started
  if (answer.error !== undefined) throw new Error(`${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(answer.error)}`)
  return ms
}

const times = new Map<string, number[]>(Object.keys(requests).map((k) => [k, []]))
for (let i = 0; i < warmup + runs; i++) {
  for (const [name, make] of Object.entries(requests)) {
    const ms = await post(make(i))
    if (i >= warmup) times.get(name)!.push(ms)
  }
}
await server.close()

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
  return { p50: at(50), p99: at(99), mean: xs.reduce((a, b) => a + b, 0) / xs.length }
}
const base = stats(times.get('eth_call, 1 transfer')!)
console.log(`eth_simulateV1 bench: ${runs} runs each (after ${warmup}), one request at a time, default ethereum fixture`)
console.log(`load average before: ${loadBefore}`)
console.log('request                                   p50 ms   p99 ms   mean ms   mean / eth_call')
for (const [name, xs] of times) {
  const s = stats(xs)
  console.log(`${name.padEnd(40)} ${s.p50.toFixed(2).padStart(7)} ${s.p99.toFixed(2).padStart(8)} ${s.mean.toFixed(2).padStart(9)} ${(s.mean / base.mean).toFixed(2).padStart(12)}`)
}
console.log(`load average after: ${load()}`)
