/**
 * A profile's eth_getLogs result limit (`getLogsResults`): past `maxLogs` the call is refused with
 * the provider's error, naming the widest range from the query's first block that stays within
 * the limit, which ponder's getLogsRetryHelper reads to chunk the query; the gateway's own
 * profile keeps the service's limit and wording. On the default ethereum fixture's token Transfer
 * logs, with the limits made small through `extends`.
 */
import { getLogsRetryHelper } from '@ponder/utils'
import type { Hex, RpcError } from 'viem'
import { numberToHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ethereumContracts } from '../../src/fixtures/accounts.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'

const token = ethereumContracts.token.address
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

let server: RunningServer
beforeAll(async () => {
  server = await startServer({
    port: 0,
    profiles: [
      { profile: { extends: 'alchemy', getLogsResults: { maxLogs: 3, error: { code: -32602, message: 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [{from}, {to}]' } } } },
      { profile: { extends: 'ankr', getLogsResults: { maxLogs: 3, error: { code: -32005, message: 'query exceeds max results {limit}, retry with the range {from}-{to}' } } } },
    ],
  })
}, 60_000)
afterAll(async () => {
  await server?.close()
})

async function getLogs(url: string, params: { fromBlock: Hex; toBlock: Hex }): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ address: token, topics: [TRANSFER], ...params }] }) })
  return res.json()
}

/** Which block holds each of the token's Transfer logs, from the gateway's own answer. */
async function transferBlocks(): Promise<bigint[]> {
  const all = await getLogs(server.url!, { fromBlock: '0x0', toBlock: numberToHex(server.gateway.networks.get('ethereum')!.chain.head.number) })
  return all.result.map((l: { blockNumber: string }) => BigInt(l.blockNumber))
}

describe("a profile's eth_getLogs result limit", () => {
  it("Alchemy's: -32602 with the range that fits, which ponder's helper chunks by", async () => {
    const blocks = await transferBlocks()
    expect(blocks.length).toBeGreaterThan(3)
    const head = numberToHex(server.gateway.networks.get('ethereum')!.chain.head.number)
    const answer = await getLogs(server.profiles.alchemy!.url!, { fromBlock: '0x0', toBlock: head })
    expect(answer.error.code).toBe(-32602)
    // The widest range from block 0 holding at most 3 logs ends before the block of the 4th.
    const last = blocks[3]! - 1n
    expect(answer.error.message).toBe(`Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x0, ${numberToHex(last)}]`)
    const retry = getLogsRetryHelper({ params: [{ address: token, fromBlock: '0x0', toBlock: head }], error: { message: answer.error.message, code: answer.error.code, details: answer.error.message } as unknown as RpcError })
    expect(retry).toMatchObject({ shouldRetry: true, isSuggestedRange: true })
    const first = (retry as { ranges: { fromBlock: Hex; toBlock: Hex }[] }).ranges[0]!
    expect(first).toEqual({ fromBlock: '0x0', toBlock: numberToHex(last) })
    expect((await getLogs(server.profiles.alchemy!.url!, first)).result.length).toBeLessThanOrEqual(3)
  })

  it("Ankr's: -32005 query exceeds max results, which ponder's helper halves", async () => {
    const head = numberToHex(server.gateway.networks.get('ethereum')!.chain.head.number)
    const answer = await getLogs(server.profiles.ankr!.url!, { fromBlock: '0x0', toBlock: head })
    expect(answer.error.code).toBe(-32005)
    expect(answer.error.message).toMatch(/^query exceeds max results 3, retry with the range 0x0-0x[0-9a-f]+$/)
    const retry = getLogsRetryHelper({ params: [{ address: token, fromBlock: '0x0', toBlock: head }], error: { message: answer.error.message, code: answer.error.code, details: answer.error.message } as unknown as RpcError })
    expect(retry).toMatchObject({ shouldRetry: true, isSuggestedRange: false })
  })

  it("the gateway's own profile keeps the service's limit (10,000): the same query is answered", async () => {
    expect((await transferBlocks()).length).toBeGreaterThan(3)
  })
})
