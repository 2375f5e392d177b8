/**
 * The state history a chain keeps (src/chain/store/chainStore.ts, docs/limits.md), through the
 * wire: the state of the last STATE_HISTORY mined blocks, of every loaded block and of every block
 * a snapshot holds stays readable; an older mined block's state is geth's `-32000 missing trie node`
 * on `/v3/` (HTTP 200, as geth answers a pruned state), while its block stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRUNE_EVERY, STATE_HISTORY } from '../../src/chain/store/stateHistory.ts'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { alice, HEAD } from '../e2e/support/fixture.ts'
import { postRpc } from '../support/wire.ts'

let server: ControlServer

async function dev(method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
  if (body.error) throw new Error(`${body.error.code} ${body.error.message}`)
  return body.result
}

/** A call on `/v3/`: its status and parsed body. */
async function gw(method: string, params: unknown[] = []): Promise<{ status: number; body: any }> {
  const res = await postRpc(server.origin, server.devKey, { jsonrpc: '2.0', id: 1, method, params })
  return { status: res.status, body: JSON.parse(res.text) }
}

const whale = '0x00000000000000000000000000000000000b1e55'
const hex = (n: number | bigint) => `0x${n.toString(16)}`

beforeAll(async () => {
  server = await startControlServer()
})
afterAll(async () => {
  await server.close()
})

describe('state history', () => {
  it('keeps the last mined states and the loaded ones; an older mined state is -32000 missing trie node, its block stays; a snapshot keeps its state', async () => {
    const loadedHead = BigInt(await dev('eth_blockNumber'))
    const aliceAtHead = (await gw('eth_getBalance', [alice.address, hex(HEAD)])).body.result
    expect(aliceAtHead).toMatch(/^0x[0-9a-f]+$/)

    await dev('anvil_setBalance', [whale, '0x1234'])
    await dev('anvil_mine', ['0x1'])
    const edited = loadedHead + 1n
    const block = (await gw('eth_getBlockByNumber', [hex(edited), false])).body.result
    await dev('anvil_mine', ['0x1'])
    await dev('anvil_setBalance', [whale, '0x5678'])
    await dev('anvil_mine', [hex(STATE_HISTORY + 2 * PRUNE_EVERY)])
    const head = BigInt(await dev('eth_blockNumber'))

    // The pruned state: geth's words, with the block's state root; the block itself is still served.
    const pruned = await gw('eth_getBalance', [whale, hex(edited)])
    expect(pruned.status).toBe(200)
    expect(pruned.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: `missing trie node ${block.stateRoot.slice(2)} (path ) <nil>` } })
    expect((await gw('eth_call', [{ to: whale }, hex(edited)])).body.error).toEqual(pruned.body.error)
    expect((await gw('eth_getBlockByNumber', [hex(edited), false])).body.result).toEqual(block)

    // The last STATE_HISTORY blocks' states, the loaded blocks' and the head's stay.
    expect((await gw('eth_getBalance', [whale, hex(head - BigInt(STATE_HISTORY) + 1n)])).body.result).toBe('0x5678')
    expect((await gw('eth_getBalance', [alice.address, hex(HEAD)])).body.result).toBe(aliceAtHead)
    expect((await gw('eth_getBalance', [alice.address, hex(loadedHead)])).body).not.toHaveProperty('error')
    expect((await gw('eth_getBalance', [whale, 'latest'])).body.result).toBe('0x5678')

    // A snapshot holds its state however many blocks follow, and a revert goes back to it.
    await dev('anvil_setBalance', [whale, '0x9abc'])
    const snapshot = await dev('evm_snapshot')
    await dev('anvil_mine', [hex(STATE_HISTORY + 2 * PRUNE_EVERY)])
    expect((await gw('eth_getBalance', [whale, hex(head)])).body.result).toBe('0x9abc')
    expect(await dev('evm_revert', [snapshot])).toBe(true)
    expect(BigInt(await dev('eth_blockNumber'))).toBe(head)
    expect((await gw('eth_getBalance', [whale, 'latest'])).body.result).toBe('0x9abc')
    await dev('anvil_mine', ['0x1'])
    expect((await gw('eth_getBalance', [whale, 'latest'])).body.result).toBe('0x9abc')
  }, 120_000)
})
