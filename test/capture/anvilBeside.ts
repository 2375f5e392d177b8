/**
 * Test helper: the Anvil of the devDependencies beside a double with its controls on, started for
 * a file (`beforeAll`) and stopped after it, and one JSON-RPC call to either: the double's test
 * endpoint of `ethereum` takes the same test methods as Anvil, so a test sends the same calls to
 * both and compares. Nothing starts where Anvil is not installed (the file's tests skip).
 */
import { afterAll, beforeAll } from 'vitest'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { anvilBinary, startAnvil } from './anvil.ts'
import type { RunningAnvil } from './anvil.ts'

export interface RpcAnswer {
  result?: any
  error?: { code: number; message: string }
}

/** Starts both for the file; `endpoints()` names their URLs (`anvil`, `double`) once started. */
export function anvilBesideDouble(): { endpoints: () => Record<'anvil' | 'double', string> } {
  let anvil: RunningAnvil | undefined
  let server: ControlServer | undefined
  beforeAll(async () => {
    if (anvilBinary() === undefined) return
    ;[anvil, server] = await Promise.all([startAnvil(), startControlServer()])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([anvil?.stop(), server?.close()])
  })
  return { endpoints: () => ({ anvil: anvil!.url, double: `${server!.controlUrl}/rpc/ethereum` }) }
}

/** One JSON-RPC call, its answer as sent. */
export async function rpcCall(url: string, method: string, params: unknown[]): Promise<RpcAnswer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await res.json()) as RpcAnswer
}
