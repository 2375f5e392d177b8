/**
 * A state edit larger than the chain's state caches (src/chain/vm/keepWritten.ts): EthereumJS's
 * caches hold 10,000 accounts, 2,000 codes and 20,000 addresses' storage in LRUs and write them at
 * the flush, so an `anvil_loadState` of more than that, applied and flushed once, lost the first
 * accounts (their balance read 0) and codes. Every account, code and slot of the dump is read back, through
 * the test endpoint and the gateway's `/v3/`, and the next block mines on them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { postRpc } from '../support/wire.ts'

let server: ControlServer
beforeAll(async () => {
  server = await startControlServer()
}, 60_000)
afterAll(async () => {
  await server?.close()
})

async function dev(method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
  if (body.error) throw new Error(`${body.error.code} ${body.error.message}`)
  return body.result
}

/** A batch of reads on `/v3/`, their results in order. */
async function readAll(calls: [string, unknown[]][]): Promise<unknown[]> {
  const res = await postRpc(server.origin, server.devKey, calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })))
  const answers = JSON.parse(res.text) as { id: number; result?: unknown; error?: unknown }[]
  return answers.sort((a, b) => a.id - b.id).map((a) => a.result ?? a.error)
}

const ACCOUNTS = 10_300
const CONTRACTS = 2_100
const address = (i: number) => `0x${(0xa11ce000000 + i).toString(16).padStart(40, '0')}`
const balance = (i: number) => `0x${(1_000_000 + i).toString(16)}`
/** A distinct code per contract: PUSH2 i, STOP. */
const code = (i: number) => `0x61${i.toString(16).padStart(4, '0')}00`
const slotValue = (i: number) => `0x${(i + 1).toString(16).padStart(64, '0')}`
const SLOT = `0x${'0'.repeat(63)}7`

describe('an anvil_loadState larger than the state caches', () => {
  it('keeps every account, code and slot it names', async () => {
    const accounts: Record<string, unknown> = {}
    for (let i = 0; i < ACCOUNTS; i++) {
      accounts[address(i)] = { nonce: i < CONTRACTS ? 1 : 0, balance: balance(i), code: i < CONTRACTS ? code(i) : '0x', storage: i < CONTRACTS ? { [SLOT]: slotValue(i) } : {} }
    }
    expect(await dev('anvil_loadState', [{ block: null, accounts }])).toBe(true)
    // The first ones were the ones lost; a sample of the rest, the last ones included.
    const sample = [0, 1, 2, 999, 1_999, 2_050, CONTRACTS - 1, CONTRACTS, 5_000, 9_999, 10_000, ACCOUNTS - 1]
    const reads = await readAll(sample.flatMap((i) => [
      ['eth_getBalance', [address(i), 'latest']],
      ['eth_getCode', [address(i), 'latest']],
      ['eth_getStorageAt', [address(i), SLOT, 'latest']],
    ] as [string, unknown[]][]))
    sample.forEach((i, k) => {
      expect(reads[3 * k], `balance of account ${i}`).toBe(balance(i))
      expect(reads[3 * k + 1], `code of account ${i}`).toBe(i < CONTRACTS ? code(i) : '0x')
      expect(reads[3 * k + 2], `slot of account ${i}`).toBe(i < CONTRACTS ? slotValue(i) : `0x${'0'.repeat(64)}`)
    })
    // Every balance of the first 2,000 (the LRUs drop their oldest first), in batches of 1,000 (the gateway's batch limit).
    for (let from = 0; from < 2_000; from += 1_000) {
      const balances = await readAll(Array.from({ length: 1_000 }, (_, k) => ['eth_getBalance', [address(from + k), 'latest']] as [string, unknown[]]))
      balances.forEach((b, k) => expect(b, `balance of account ${from + k}`).toBe(balance(from + k)))
    }
    // The next block executes on them: the state it mines on still holds the first account.
    await dev('evm_mine')
    expect((await readAll([['eth_getBalance', [address(0), 'latest']]]))[0]).toBe(balance(0))
  }, 120_000)
})
