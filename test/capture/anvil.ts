/**
 * Test helper: Anvil from the npm package `@foundry-rs/anvil-linux-amd64`, on 127.0.0.1 and a port
 * it picks itself (read back from its "Listening on" line), killed by `stop()`.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export function anvilBinary(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

/** A running Anvil as viem names a chain (for its wallet clients): `id` is what Anvil answers to eth_chainId. */
export function anvilChain(id: number, url: string) {
  return { id, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } } as const
}

export interface RunningAnvil {
  url: string
  /** Stops it (SIGTERM, or the signal given: SIGINT is Ctrl+C) and waits until it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** What it printed so far (stdout and stderr). */
  output(): string
}

export async function startAnvil(args: readonly string[] = []): Promise<RunningAnvil> {
  const bin = anvilBinary()
  if (bin === undefined) throw new Error('@foundry-rs/anvil-linux-amd64 is not installed')
  const child: ChildProcess = spawn(bin, ['--host', '127.0.0.1', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString()
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /Listening on (127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve(`http://${m[1]}`)
    })
    child.on('exit', (code) => reject(new Error(`anvil exited (${code}) before listening: ${out}`)))
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  return {
    url,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
    output: () => `${out}${child.exitCode !== null || child.signalCode !== null ? `\n(exited: code ${child.exitCode}, signal ${child.signalCode})` : ''}`,
  }
}
