/** The command (bin/gateway-double.js) started as a user starts it, in its own node process, until it listens. */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))

export interface CliProcess {
  child: ChildProcess
  /** `http://127.0.0.1:<port>`, from the start banner's "listening on" line. */
  origin: string
  exited: Promise<number | null>
  /** What it wrote to stderr so far. */
  stderr(): string
}

/** Spawns `node [nodeArgs] bin/gateway-double.js [args]` and waits for its banner (rejects if it exits first). */
export async function startCli(args: string[], nodeArgs: string[] = []): Promise<CliProcess> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const origin = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    void exited.then((code) => reject(new Error(`exited ${code} before listening: ${out}${stderr}`)))
  })
  return { child, origin, exited, stderr: () => stderr }
}
