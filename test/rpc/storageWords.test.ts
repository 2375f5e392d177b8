/**
 * eth_getStorageAt's kept words (src/chain/store/storageWords.ts) through the wire: a slot read
 * often enough to be answered from them answers what the state holds after each change of it (a
 * state edit, a mined block, a revert), and an older block's read its own value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { HEAD } from '../e2e/support/fixture.ts'
import { postRpc } from '../support/wire.ts'

let server: ControlServer

async function call(path: 'dev' | 'gw', method: string, params: unknown[] = []): Promise<any> {
  const payload = { jsonrpc: '2.0', id: 1, method, params }
  const text =
    path === 'dev'
      ? await (await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })).text()
      : (await postRpc(server.origin, server.devKey, payload)).text
  const body = JSON.parse(text)
  if (body.error) throw new Error(`${body.error.code} ${body.error.message}`)
  return body.result
}

const holder = '0x00000000000000000000000000000000000b1e55'
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`
/** The slot read three times (the first walks the trie, the second keeps the word, the third is answered from it): the answers. */
const readWarm = async (slot: string, block = 'latest') => Promise.all([0, 1, 2].map(() => call('gw', 'eth_getStorageAt', [holder, slot, block])))
const readSequence = async (slot: string, block = 'latest') => {
  const seen: string[] = []
  for (let i = 0; i < 3; i++) seen.push(await call('gw', 'eth_getStorageAt', [holder, slot, block]))
  return seen
}

beforeAll(async () => {
  server = await startControlServer()
})
afterAll(async () => {
  await server.close()
})

describe("eth_getStorageAt's kept words follow the state", () => {
  it('a state edit, a mined block and a revert each change what a warm slot reads; an older block keeps its own', async () => {
    expect(await readSequence('0x2')).toEqual([word(0n), word(0n), word(0n)])
    const snapshot = await call('dev', 'evm_snapshot')
    expect(await call('dev', 'anvil_setStorageAt', [holder, '0x2', word(7n)])).toBe(true)
    expect(await readSequence('0x2')).toEqual([word(7n), word(7n), word(7n)])
    // The same slot written another way (leading zeros) is its own text, read alike.
    expect(await readWarm('0x0000000000000000000000000000000000000000000000000000000000000002')).toEqual([word(7n), word(7n), word(7n)])
    await call('dev', 'anvil_mine', ['0x1'])
    expect(await call('dev', 'anvil_setStorageAt', [holder, '0x2', word(9n)])).toBe(true)
    expect(await readSequence('0x2')).toEqual([word(9n), word(9n), word(9n)])
    // The block before keeps the value edited while it was the head, read warm too, then the head again.
    const before = `0x${HEAD.toString(16)}`
    expect(await readSequence('0x2', before)).toEqual([word(7n), word(7n), word(7n)])
    expect(await readSequence('0x2')).toEqual([word(9n), word(9n), word(9n)])
    expect(await call('dev', 'evm_revert', [snapshot])).toBe(true)
    expect(await readSequence('0x2')).toEqual([word(0n), word(0n), word(0n)])
    expect(await call('gw', 'eth_blockNumber')).toBe(`0x${HEAD.toString(16)}`)
  })

  it('a bad slot is refused before an unknown block, as before the words were kept', async () => {
    await readSequence('0x3')
    await expect(call('gw', 'eth_getStorageAt', [holder, '0xzz', '0x999999'])).rejects.toThrow(/^-32602/)
    await expect(call('gw', 'eth_getStorageAt', [holder, '0x3', '0x999999'])).rejects.toThrow('-32000 header not found')
  })
})
