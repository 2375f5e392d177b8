/**
 * Child processes of the bench (gateway-double, Anvil): spawned on loopback, tracked, and stopped
 * at the end whatever happens (error, Ctrl+C, an exit without cleanup). Also: free ports, resident
 * memory from /proc, and a small keep-alive JSON-RPC client for the control requests.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'

export const LOOPBACK = '127.0.0.1'

/** A port the kernel just gave out on 127.0.0.1 (closed again, so free unless someone races us). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, LOOPBACK, () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

const running = new Set<ChildProcess>()

function killNow(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

let hooked = false
function hookExit(): void {
  if (hooked) return
  hooked = true
  // Last resort: whatever is still running when this process exits is killed.
  process.on('exit', killNow)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping the servers\n`)
      void stopAll().finally(() => process.exit(130))
    })
  }
}

/** Spawns a tracked child. Its stdout/stderr are kept (the last 64 KiB) for error messages. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = {}): TrackedChild {
  hookExit()
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  running.add(child)
  const tracked = new TrackedChild(child, `${command.split('/').pop()} ${args.join(' ')}`)
  child.once('exit', () => running.delete(child))
  return tracked
}

export class TrackedChild {
  #output = ''
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>

  constructor(
    readonly child: ChildProcess,
    readonly label: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-65536)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
    child.once('error', (err) => {
      this.#output += `\n(spawn error: ${err.message})`
    })
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.label}: not started`)
    return this.child.pid
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  output(): string {
    return this.#output
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 2000): Promise<void> {
    if (!this.alive) return
    this.child.kill('SIGTERM')
    const timer = setTimeout(() => this.alive && this.child.kill('SIGKILL'), graceMs)
    await this.exited
    clearTimeout(timer)
  }
}

/** Stops every tracked child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000)
      await new Promise((resolve) => child.once('exit', resolve))
      clearTimeout(timer)
    }),
  )
}

/** Resident memory of a process, from /proc/<pid>/status: VmRSS now and VmHWM (the peak), in KiB. */
export function residentMemory(pid: number): { rssKiB: number; peakKiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)
    if (!m) throw new Error(`/proc/${pid}/status has no ${name}`)
    return Number(m[1])
  }
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') }
}

/** Where and how to POST JSON-RPC: gateway-double wants its Host and key path, Anvil takes `/`. */
export interface Endpoint {
  readonly name: string
  readonly port: number
  readonly path: string
  readonly host: string
}

export interface HttpAnswer {
  status: number
  body: string
}

const controlAgent = new Agent({ keepAlive: true, maxSockets: 4 })

/**
 * One POST on loopback, with a timeout: on the shared keep-alive agent, or (`fresh`) on a new
 * connection closed after it, as start-up polling needs.
 */
export function post(endpoint: Endpoint, body: string, timeoutMs = 30_000, fresh = false): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: endpoint.host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
    if (fresh) headers.connection = 'close'
    const req = request(
      { host: LOOPBACK, port: endpoint.port, path: endpoint.path, method: 'POST', agent: fresh ? false : controlAgent, headers, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`${endpoint.name}: no answer within ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })
}

/** The same POST on a fresh connection each time (for start-up polling). */
export function postOnce(endpoint: Endpoint, body: string, timeoutMs: number): Promise<HttpAnswer> {
  return post(endpoint, body, timeoutMs, true)
}

export function closeControlConnections(): void {
  controlAgent.destroy()
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
