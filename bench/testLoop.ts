/**
 * The transaction loop as a test suite drives it (issue 19, item 3): one client, one operation at a
 * time, each server in turn (gateway-double's test endpoint `POST /_double/rpc/<network>`, Anvil's
 * `/`), both with automine on, for `rounds` rounds of `durationMs` each (at least one operation a
 * round). Rows:
 *
 * - viem `sendTransaction` (a local account: viem asks for the nonce, the fees and the gas, then
 *   sends it raw) + `waitForTransactionReceipt`;
 * - an ERC-20 transfer signed here, `eth_sendRawTransaction`, then `eth_getTransactionReceipt`;
 * - a deploy of the bench's Token (1.5 KB of init code) the same way;
 * - `evm_snapshot`, one such transfer, `evm_revert`;
 * - `anvil_mine` of `mineBlocks` empty blocks (one per round);
 * - a 20-test suite: each test `evm_snapshot`, deploy, 5 transfers (each with its receipt), 5
 *   `eth_call` balanceOf, `evm_revert` (its transactions signed before the clock starts).
 *
 * Every row is a rate (operations per second, so the ratio reads as the others: higher is better);
 * their targets are bench/targets.ts's (the suite's is on its time: <= 1.2x Anvil's).
 */
import type { Hex, PrivateKeyAccount } from 'viem'
import { createPublicClient, createWalletClient, defineChain, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { percentile } from './load.ts'
import type { Endpoint } from './processes.ts'
import type { ServerStats, ThroughputRow } from './report.ts'
import { RpcClient } from './rpc.ts'

export interface TestLoopOptions {
  /** gateway-double's test endpoint and Anvil, on the same chain. */
  gatewayDouble: Endpoint
  anvil: Endpoint
  /** The `--before` build's test endpoint on the same chain, run in turn with the two when given. */
  before?: Endpoint
  chainId: number
  token: Hex
  /** Token's creation code with its constructor argument (the bench chain's first transaction). */
  deployData: Hex
  /** Funded accounts holding tokens, one per row (6). */
  keys: readonly Hex[]
  durationMs: number
  /** Unmeasured operations first, for this long on each server (at least one); not for once-a-round rows. */
  warmupMs: number
  rounds: number
  /** Empty blocks per `anvil_mine` (1,000 unless a smaller run asks fewer). */
  mineBlocks: number
  /** Only the rows with these ids (all when absent). */
  only?: readonly string[]
  log(line: string): void
}

/**
 * How long viem's waitForTransactionReceipt waits. Its default is minutes, and against Anvil 1.7.1 it
 * now and then never sees a receipt of a transaction that was mined (seen in this row's second or
 * third round on a quiet machine): bounded, such an operation counts as the server's failure.
 */
const RECEIPT_TIMEOUT_MS = 10_000
const GAS_PRICE = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1n }
const pad32 = (h: string) => h.replace(/^0x/, '').padStart(64, '0')
const transferData = (to: string, amount: bigint): Hex => `0xa9059cbb${pad32(to)}${pad32(amount.toString(16))}`
const balanceOfData = (holder: string): Hex => `0x70a08231${pad32(holder)}`
const recipient = (n: number) => `0xbeef${n.toString(16).padStart(36, '0')}`

type ServerName = 'gateway-double' | 'before' | 'anvil'

/** The rows' ids, in the order they run (each row signs with `keys[its index]`). */
export const LOOP_ROW_IDS: readonly string[] = ['loop.viem-send', 'loop.erc20-raw', 'loop.deploy', 'loop.snapshot-revert', 'loop.mine', 'loop.suite']

/** One server's side of a row: `op` as often as the round's time allows, each after its untimed `prepare`. */
interface Side {
  prepare?(i: number): Promise<void>
  op(i: number): Promise<boolean>
}

interface LoopRow {
  id: string
  label: string
  /** What one operation is, for the table's rate (`tx/s`, `deploys/s`...). */
  unit: string
  /** At most this many operations per round (anvil_mine: one). */
  perRound?: number
  side(server: ServerName, rpc: RpcClient, endpoint: Endpoint, account: PrivateKeyAccount): Promise<Side>
}

async function receiptOf(rpc: RpcClient, hash: string): Promise<{ status: string; contractAddress: string | null }> {
  for (let tries = 0; ; tries++) {
    const receipt = await rpc.call<{ status: string; contractAddress: string | null } | null>('eth_getTransactionReceipt', [hash])
    if (receipt !== null) return receipt
    if (tries > 1000) throw new Error(`${rpc.name}: no receipt for ${hash}`)
    await new Promise((r) => setTimeout(r, 1))
  }
}

/** Signs for `account` from its next nonce on `rpc`, counting on. */
async function signer(rpc: RpcClient, account: PrivateKeyAccount, chainId: number) {
  let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [account.address, 'latest']))
  return {
    nonce: () => nonce,
    setNonce: (n: number) => void (nonce = n),
    sign: (to: Hex | undefined, data: Hex, gas: bigint) =>
      account.signTransaction({ type: 'eip1559', chainId, nonce: nonce++, ...(to ? { to } : {}), data, gas, ...GAS_PRICE }),
  }
}

function rows(opts: TestLoopOptions): LoopRow[] {
  const chain = defineChain({ id: opts.chainId, name: 'bench', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } })
  const urlOf = (e: Endpoint) => `http://${e.host}${e.path}`
  const sendRaw = async (rpc: RpcClient, raw: Hex) => (await receiptOf(rpc, await rpc.call<string>('eth_sendRawTransaction', [raw]))).status === '0x1'
  return [
    {
      id: 'loop.viem-send',
      label: 'viem sendTransaction + waitForTransactionReceipt, one after another (tx/s)',
      unit: 'tx/s',
      side: async (_server, _rpc, endpoint, account) => {
        const transport = http(urlOf(endpoint), { retryCount: 0 })
        const wallet = createWalletClient({ account, chain, transport })
        const reader = createPublicClient({ chain, transport, cacheTime: 0 })
        return {
          op: async (i) => {
            const hash = await wallet.sendTransaction({ to: recipient(i) as Hex, value: 1n })
            return (await reader.waitForTransactionReceipt({ hash, pollingInterval: 1, timeout: RECEIPT_TIMEOUT_MS })).status === 'success'
          },
        }
      },
    },
    {
      id: 'loop.erc20-raw',
      label: 'ERC-20 transfer sent raw + receipt, one after another (tx/s)',
      unit: 'tx/s',
      side: async (_server, rpc, _endpoint, account) => {
        const s = await signer(rpc, account, opts.chainId)
        return { op: async (i) => sendRaw(rpc, await s.sign(opts.token, transferData(recipient(i), 1n), 100_000n)) }
      },
    },
    {
      id: 'loop.deploy',
      label: 'deploy a 1.5 KB contract (Token) + receipt (deploys/s)',
      unit: 'deploys/s',
      side: async (_server, rpc, _endpoint, account) => {
        const s = await signer(rpc, account, opts.chainId)
        return { op: async () => sendRaw(rpc, await s.sign(undefined, opts.deployData, 2_000_000n)) }
      },
    },
    {
      id: 'loop.snapshot-revert',
      label: 'evm_snapshot, an ERC-20 transfer + receipt, evm_revert (pairs/s)',
      unit: 'pairs/s',
      side: async (_server, rpc, _endpoint, account) => {
        const s = await signer(rpc, account, opts.chainId)
        const start = s.nonce()
        // The revert takes the nonce back (Anvil refuses a transaction it saw, even reverted: each is new).
        let raw: Hex
        return {
          prepare: async (i) => {
            s.setNonce(start)
            raw = await s.sign(opts.token, transferData(recipient(i), 1n), 100_000n)
          },
          op: async () => {
            const id = await rpc.call<string>('evm_snapshot')
            const ok = await sendRaw(rpc, raw)
            return (await rpc.call<boolean>('evm_revert', [id])) && ok
          },
        }
      },
    },
    {
      id: 'loop.mine',
      label: `anvil_mine of ${opts.mineBlocks.toLocaleString('en-US')} empty blocks (calls/s)`,
      unit: 'calls/s',
      perRound: 1,
      side: async (_server, rpc) => ({ op: async () => (await rpc.call('anvil_mine', [`0x${opts.mineBlocks.toString(16)}`]), true) }),
    },
    {
      id: 'loop.suite',
      label: '20-test suite: snapshot, deploy, 5 writes, 5 reads, revert each (suites/s)',
      unit: 'suites/s',
      side: async (_server, rpc, _endpoint, account) => {
        const s = await signer(rpc, account, opts.chainId)
        const start = s.nonce()
        const { getContractAddress } = await import('viem')
        const deployed = getContractAddress({ from: account.address, nonce: BigInt(start) })
        // Each test's transactions, signed before the clock starts; every test starts at the same nonce.
        const tests: Hex[][] = []
        const amount = (i: number, w: number) => BigInt(i * 10 + w + 1)
        let run = 0
        return {
          prepare: async (i) => {
            run = i
            tests.length = 0
            for (let t = 0; t < 20; t++) {
              s.setNonce(start)
              const txs = [await s.sign(undefined, opts.deployData, 2_000_000n)]
              for (let w = 0; w < 5; w++) txs.push(await s.sign(deployed, transferData(recipient(t * 5 + w), amount(i, w)), 100_000n))
              tests.push(txs)
            }
          },
          op: async () => {
            let ok = true
            for (const [t, txs] of tests.entries()) {
              const id = await rpc.call<string>('evm_snapshot')
              for (const raw of txs) ok = (await sendRaw(rpc, raw)) && ok
              for (let r = 0; r < 5; r++) {
                const balance = await rpc.call<string>('eth_call', [{ to: deployed, data: balanceOfData(recipient(t * 5 + r)) }, 'latest'])
                ok = BigInt(balance) === amount(run, r) && ok
              }
              ok = (await rpc.call<boolean>('evm_revert', [id])) && ok
            }
            return ok
          },
        }
      },
    },
  ]
}

function stats(ops: number[][], seconds: number[], failures: number): ServerStats {
  const all = Float64Array.from(ops.flat()).sort()
  const answered = all.length
  const total = seconds.reduce((a, b) => a + b, 0)
  return {
    reqPerSec: answered / total,
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    answered,
    ok: answered - failures,
    rpcErrors: failures,
    failures: 0,
    statuses: {},
    rounds: ops.map((r, i) => r.length / seconds[i]!),
  }
}

/** The rows, gateway-double (then the `--before` build, when given) and Anvil alternating round by round. */
export async function testLoopRows(opts: TestLoopOptions): Promise<ThroughputRow[]> {
  const servers: { name: ServerName; endpoint: Endpoint; rpc: RpcClient }[] = [
    { name: 'gateway-double', endpoint: opts.gatewayDouble, rpc: new RpcClient(opts.gatewayDouble) },
    ...(opts.before === undefined ? [] : [{ name: 'before' as const, endpoint: opts.before, rpc: new RpcClient(opts.before) }]),
    { name: 'anvil', endpoint: opts.anvil, rpc: new RpcClient(opts.anvil) },
  ]
  for (const s of servers) await s.rpc.call('evm_setAutomine', [true])
  // An operation that throws (a receipt that did not come in time) is a failure of that server,
  // named on its own line, and its time is left out of the rate; the row goes on (its "!" mark
  // counts the failures). undefined: it threw.
  const attempt = async (server: string, id: string, side: Side, i: number): Promise<boolean | undefined> => {
    try {
      return await side.op(i)
    } catch (err) {
      opts.log(`  ${id}: ${server} failed operation ${i} (left out of its time): ${(err as Error).message.split('\n')[0]}`)
      return undefined
    }
  }
  const out: ThroughputRow[] = []
  for (const [n, row] of rows(opts).entries()) {
    if (opts.only !== undefined && !opts.only.includes(row.id)) continue
    const account = privateKeyToAccount(opts.keys[n]!)
    const sides = await Promise.all(servers.map((s) => row.side(s.name, s.rpc, s.endpoint, account)))
    const times = servers.map(() => ({ ops: [] as number[][], seconds: [] as number[], failed: 0, next: 0 }))
    // Unmeasured operations first, for `warmupMs` (at least one) on each server: each row starts on
    // a fresh server (./loopPairs.ts), whose first operations load and compile what the next ones
    // reuse, as the throughput rows warm up first. A suite pays that once, not per operation.
    if (row.perRound === undefined) {
      for (const [k, side] of sides.entries()) {
        const started = performance.now()
        do {
          await side.prepare?.(times[k]!.next)
          if (!(await attempt(servers[k]!.name, row.id, side, times[k]!.next++))) times[k]!.failed++
        } while (performance.now() - started < opts.warmupMs)
      }
    }
    for (let round = 1; round <= opts.rounds; round++) {
      const line: string[] = []
      for (const [k, side] of sides.entries()) {
        const t = times[k]!
        const ops: number[] = []
        const started = performance.now()
        let busy = 0
        do {
          await side.prepare?.(t.next)
          const at = performance.now()
          const ok = await attempt(servers[k]!.name, row.id, side, t.next++)
          if (ok !== true) t.failed++
          if (ok === undefined) continue
          ops.push(performance.now() - at)
          busy += ops.at(-1)!
        } while (performance.now() - started < opts.durationMs && ops.length < (row.perRound ?? Infinity))
        t.ops.push(ops)
        t.seconds.push(busy / 1000)
        line.push(`${servers[k]!.name} ${(busy === 0 ? 0 : ops.length / t.seconds.at(-1)!).toFixed(1)}/s`)
      }
      opts.log(`  ${row.id} round ${round}/${opts.rounds}: ${line.join(', ')}`)
    }
    const statsOf = (name: ServerName): ServerStats | undefined => {
      const k = servers.findIndex((s) => s.name === name)
      return k < 0 ? undefined : stats(times[k]!.ops, times[k]!.seconds, times[k]!.failed)
    }
    const g = statsOf('gateway-double')!
    const a = statsOf('anvil')!
    const before = statsOf('before')
    out.push({ kind: 'throughput', id: row.id, label: row.label, unit: row.unit, gatewayDouble: g, anvil: a, ratio: g.reqPerSec / a.reqPerSec, ...(before === undefined ? {} : { before }) })
  }
  return out
}
