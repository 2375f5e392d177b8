/**
 * Param parsers never overflow on nesting: a value 10,000 arrays deep, in any position of any
 * method, or inside a call object or filter, is an ordinary -32602 (or the method's own error),
 * never -32603. Through a real server, as a client would send it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { METHODS } from '../../src/rpc/registry.ts'
import { postRpc } from '../support/wire.ts'

const DEEP = `${'['.repeat(10_000)}${']'.repeat(10_000)}`

describe('params nested 10,000 deep', () => {
  let server: RunningServer
  const call = async (method: string, params: string) => {
    const res = await postRpc(server.origin, server.devKey!, `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`)
    expect(res.status).toBe(200)
    return JSON.parse(res.text) as { result?: unknown; error?: { code: number; message: string } }
  }
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server?.close())

  it('eth_feeHistory block count: -32602 quoting the value as geth does', async () => {
    const answer = await call('eth_feeHistory', `[${DEEP},"latest",[]]`)
    expect(answer.error?.code).toBe(-32602)
    expect(answer.error?.message).toBe(`invalid argument 0: invalid hex or decimal integer ${JSON.stringify(DEEP)}`)
  })

  it("eth_getLogs' block fields: -32602", async () => {
    for (const field of ['fromBlock', 'toBlock']) {
      const answer = await call('eth_getLogs', `[{"${field}":${DEEP}}]`)
      expect(answer.error, field).toEqual({ code: -32602, message: 'invalid argument 0: hex string without 0x prefix' })
    }
  })

  it('every method, every position, and inside objects: never -32603', async () => {
    const shapes = (i: number) => [
      `[${[...Array(i).fill('"latest"'), DEEP].join(',')}]`,
      `[${[...Array(i).fill('"latest"'), `{"to":${DEEP},"data":${DEEP},"address":${DEEP},"topics":${DEEP},"blockHash":${DEEP}}`].join(',')}]`,
      `[${[...Array(i).fill('"latest"'), `{"topics":[${DEEP}],"accessList":[{"address":"0x0000000000000000000000000000000000000000","storageKeys":${DEEP}}]}`].join(',')}]`,
    ]
    for (const method of Object.keys(METHODS)) {
      for (let i = 0; i < 4; i++) {
        for (const params of shapes(i)) {
          const answer = await call(method, params)
          expect(answer.error?.code, `${method} ${params.slice(0, 60)}`).not.toBe(-32603)
        }
      }
    }
  })
})
