/**
 * newHeads latency: how long from asking a server to mine a block (`evm_mine` on both: on
 * gateway-double's test endpoint `POST /_double/rpc/<name>`) until each subscriber's socket has the
 * block's `eth_subscription` notification, with 1 and with 100 subscribers (one socket each, one
 * `newHeads` subscription each). Blocks are mined one at a time: the next once every subscriber
 * has the last. Samples are one per subscriber per block; the last subscriber of each block is
 * the block's fan-out time. For gateway-double the time from the block itself (its chain's
 * `blockAdded` event, told by the server process over IPC, on the same wall clock) to each
 * notification is measured too: the delivery alone, without the mining.
 */
import type { LookupFunction } from 'node:net'
import { WebSocket } from 'ws'
import { percentile } from './load.ts'
import type { LatencyRow } from './report.ts'

export interface LatencyStats {
  /** Notifications measured. */
  samples: number
  p50Ms: number
  p99Ms: number
  /** Median over blocks of the last subscriber's latency. */
  lastP50Ms: number
  /** From the block's event in the server to each notification (when the server tells it). */
  fromBlock?: { p50Ms: number; p99Ms: number }
}

/** Wall-clock ms with sub-ms precision, comparable across processes of one machine. */
export const wallNow = (): number => performance.timeOrigin + performance.now()

export interface NewHeadsOptions {
  /** The WebSocket endpoint. */
  url: string
  /** Name resolution for `*.localhost` (gateway-double's host-routed URL). */
  lookup?: LookupFunction
  subscribers: number
  /** Measured blocks (after `warmup` unmeasured ones). */
  blocks: number
  warmup: number
  /** Asks the server to mine one block; resolves when it answered. */
  mine(): Promise<void>
  /** When each block's event happened in the server (`wallNow` there), filled as the server tells it. */
  blockTimes?: ReadonlyMap<number, number>
}

const TIMEOUT_MS = 30_000

function open(url: string, lookup: LookupFunction | undefined): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, ...(lookup ? { lookup } : {}) })
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

/** Sends eth_subscribe newHeads and waits for the subscription id. */
function subscribe(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data) => {
      const answer = JSON.parse(String(data)) as { result?: string; error?: unknown }
      if (typeof answer.result === 'string') resolve()
      else reject(new Error(`eth_subscribe: ${JSON.stringify(answer.error)}`))
    })
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
  })
}

export async function newHeadsLatency(opts: NewHeadsOptions): Promise<LatencyStats> {
  const sockets: WebSocket[] = []
  try {
    for (let i = 0; i < opts.subscribers; i++) sockets.push(await open(opts.url, opts.lookup))
    await Promise.all(sockets.map(subscribe))
    const samples: number[] = []
    const last: number[] = []
    /**
     * Each measured notification and its arrival (wall clock), read once the blocks are done:
     * parsed as they come, every notification held back the next subscriber's by the parse, for
     * gateway-double's rows only (Anvil's tell no block times).
     */
    const arrivals: [Buffer, number][] = []
    let started = 0
    let waiting = 0
    let done: (() => void) | undefined
    let measured = false
    for (const ws of sockets) {
      ws.on('message', (data) => {
        const ms = performance.now() - started
        if (measured) {
          samples.push(ms)
          if (opts.blockTimes) arrivals.push([data as Buffer, wallNow()])
        }
        if (--waiting === 0) {
          if (measured) last.push(ms)
          done?.()
        }
      })
    }
    for (let b = 0; b < opts.warmup + opts.blocks; b++) {
      measured = b >= opts.warmup
      waiting = sockets.length
      const all = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`newHeads: ${waiting} of ${sockets.length} subscribers had no notification after ${TIMEOUT_MS} ms`)), TIMEOUT_MS)
        done = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      started = performance.now()
      await opts.mine()
      await all
    }
    const sorted = Float64Array.from(samples).sort()
    const lastSorted = Float64Array.from(last).sort()
    const stats: LatencyStats = { samples: samples.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), lastP50Ms: percentile(lastSorted, 50) }
    if (opts.blockTimes) {
      // The server's messages may come after the notifications: a moment for the last ones.
      await new Promise((r) => setTimeout(r, 200))
      const times = opts.blockTimes
      const numbered = arrivals.map(([data, at]) => [Number((JSON.parse(String(data)) as { params: { result: { number: string } } }).params.result.number), at] as const)
      const fromBlock = Float64Array.from(numbered.filter(([n]) => times.has(n)).map(([n, at]) => at - times.get(n)!)).sort()
      if (fromBlock.length > 0) stats.fromBlock = { p50Ms: percentile(fromBlock, 50), p99Ms: percentile(fromBlock, 99) }
    }
    return stats
  } finally {
    for (const ws of sockets) ws.terminate()
  }
}

export interface NewHeadsRowsOptions {
  gatewayDouble: { port: number; network: string; key: string; blockTimes: ReadonlyMap<number, number> }
  anvil: { port: number; mine(): Promise<void> }
  /** Asks gateway-double to mine (its control route). */
  mineGatewayDouble(): Promise<void>
  /** Subscriber counts, one row each. */
  subscribers: readonly number[]
  blocks: number
  warmup: number
  lookup: LookupFunction
  log(line: string): void
}

/** One row per subscriber count: gateway-double, then Anvil, on the same blocks count. */
export async function newHeadsRows(opts: NewHeadsRowsOptions): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = []
  const gd = opts.gatewayDouble
  for (const subscribers of opts.subscribers) {
    const common = { subscribers, blocks: opts.blocks, warmup: opts.warmup }
    const g = await newHeadsLatency({ ...common, url: `ws://${gd.network}-mainnet.localhost:${gd.port}/ws/v3/${gd.key}`, lookup: opts.lookup, mine: opts.mineGatewayDouble, blockTimes: gd.blockTimes })
    const a = await newHeadsLatency({ ...common, url: `ws://127.0.0.1:${opts.anvil.port}`, mine: opts.anvil.mine })
    const fromBlock = g.fromBlock ? ` (from the block: p50 ${g.fromBlock.p50Ms.toFixed(2)} ms p99 ${g.fromBlock.p99Ms.toFixed(2)} ms)` : ''
    opts.log(`  newHeads, ${subscribers} subscriber(s): gateway-double p50 ${g.p50Ms.toFixed(2)} ms p99 ${g.p99Ms.toFixed(2)} ms${fromBlock}, anvil p50 ${a.p50Ms.toFixed(2)} ms p99 ${a.p99Ms.toFixed(2)} ms`)
    rows.push({
      kind: 'latency',
      id: `newHeads.${subscribers}`,
      label: `newHeads: mine request to notification, ${subscribers} subscriber${subscribers === 1 ? '' : 's'} (${opts.blocks} blocks)`,
      gatewayDouble: g,
      anvil: a,
      ratio: g.p50Ms / a.p50Ms,
    })
  }
  return rows
}
