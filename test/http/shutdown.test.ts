/**
 * SIGTERM and SIGINT stop the command gracefully: no new connections, every request in flight
 * answered, then exit 0; a request still running past the grace period is cut at its end. The
 * CLI is spawned as a user runs it.
 */
import { Agent, request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import { startCli } from '../support/cliProcess.ts'
import { postRpc, send } from '../support/wire.ts'

const KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'
const BLOCK_NUMBER = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'

/** POSTs on its own connection; resolves with the status, or the error's code. */
function post(origin: string, agent: Agent): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${origin}/v3/${KEY}`, { method: 'POST', agent, headers: { host: 'ethereum-mainnet.localhost' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    req.end(BLOCK_NUMBER)
  })
}

describe('stopping', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: the 150 requests in flight are answered, new connections refused, exit 0', async (signal) => {
    const { child, origin, exited } = await startCli(['--port', '0', '--control'])
    const agent = new Agent({ keepAlive: true, maxSockets: 200 })
    try {
      // Each request is held a second (a scripted latency), so all are in flight at the signal.
      expect((await send(origin, '/_double/faults', JSON.stringify({ kind: 'latency', ms: 1000 }))).status).toBe(201)
      const answers = Array.from({ length: 150 }, () => post(origin, agent))
      for (let fired = 0; fired < 150; ) {
        await new Promise((r) => setTimeout(r, 20))
        fired = JSON.parse((await send(origin, '/_double/faults', undefined, { method: 'GET' })).text).faults[0].fired
      }
      child.kill(signal)
      await new Promise((r) => setTimeout(r, 100))
      expect(await post(origin, new Agent())).toBe('ECONNREFUSED')
      const statuses = await Promise.all(answers)
      expect(statuses.filter((s) => s === 200)).toHaveLength(150)
      expect(await exited).toBe(0)
    } finally {
      agent.destroy()
      child.kill('SIGKILL')
    }
  })

  it('past the grace period, what is still running is cut', async () => {
    const server = await startServer({ port: 0 })
    server.control.addFault({ kind: 'latency', ms: 60_000 })
    const held = postRpc(server.origin, server.devKey!, BLOCK_NUMBER).then(
      (res) => res.status,
      (err: NodeJS.ErrnoException) => err.code,
    )
    await new Promise((r) => setTimeout(r, 100))
    await server.shutdown({ graceMs: 300 })
    expect(await held).toBe('ECONNRESET')
    expect(server.control.requestLog().at(-1)).toMatchObject({ fault: 'latency', status: null })
  })
})
