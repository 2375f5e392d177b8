/**
 * eth_fillTransaction on the test endpoint, as geth answers it: viem's wallet client with a local
 * account prepares a transaction in that one call (then signs it and sends the raw bytes), where
 * a node without it costs four calls. The answer's `raw` is the unsigned transaction's bytes and
 * `tx` its JSON in geth's field order and shape; over `/v3/` the method is not the service's
 * (-32601, as before).
 */
import { createWalletClient, http, keccak256, parseEther, parseTransaction } from 'viem'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ethereumAccounts } from '../../src/fixtures/index.ts'
import { startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { rawRpc } from './support/fixture.ts'

let server: ControlServer
beforeAll(async () => {
  server = await startControlServer()
})
afterAll(async () => {
  await server.close()
})

const dev = () => `${server.controlUrl}/rpc/ethereum`
const post = async (url: string, method: string, params: unknown[], host?: string) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(host ? { host } : {}) }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await res.json()) as { result?: { raw: Hex; tx: Record<string, unknown> }; error?: { code: number; message: string } }
}

describe('eth_fillTransaction', () => {
  it("viem's wallet client with a local account prepares in one call, then sends the signed bytes", async () => {
    const methods: string[] = []
    const account = privateKeyToAccount(ethereumAccounts.carol.privateKey)
    const wallet = createWalletClient({
      account,
      chain: mainnet,
      transport: http(dev(), { onFetchRequest: async (req) => void methods.push((JSON.parse(await req.clone().text()) as { method: string }).method) }),
    })
    const hash = await wallet.sendTransaction({ to: ethereumAccounts.dave.address, value: parseEther('1') })
    expect(methods).toEqual(['eth_fillTransaction', 'eth_sendRawTransaction'])
    const receipt = await rawRpc<{ status: string; from: string }>(dev(), 'eth_getTransactionReceipt', [hash])
    expect(receipt).toMatchObject({ status: '0x1', from: ethereumAccounts.carol.address })
  })

  it("answers geth's { raw, tx }: the unsigned bytes, the filled fields in geth's order, the hash of the bytes", async () => {
    const { result } = await post(dev(), 'eth_fillTransaction', [{ from: ethereumAccounts.alice.address, to: ethereumAccounts.bob.address, value: '0x1' }])
    const nonce = await rawRpc<string>(dev(), 'eth_getTransactionCount', [ethereumAccounts.alice.address, 'pending'])
    const { raw, tx } = result!
    expect(Object.keys(tx)).toEqual(['type', 'chainId', 'nonce', 'to', 'gas', 'gasPrice', 'maxPriorityFeePerGas', 'maxFeePerGas', 'value', 'input', 'accessList', 'v', 'r', 's', 'yParity', 'hash'])
    expect(tx).toMatchObject({ type: '0x2', chainId: '0x1', nonce, to: ethereumAccounts.bob.address, gas: '0x5208', gasPrice: null, value: '0x1', input: '0x', accessList: [], v: '0x0', r: '0x0', s: '0x0', yParity: '0x0' })
    expect(tx.hash).toBe(keccak256(raw))
    // The bytes are the fields: viem parses them back to the same transaction.
    const parsed = parseTransaction(raw)
    expect(parsed).toMatchObject({ type: 'eip1559', chainId: 1, nonce: Number(nonce), to: ethereumAccounts.bob.address, gas: 21000n, value: 1n })
    expect(parsed.maxFeePerGas).toBe(BigInt(tx.maxFeePerGas as string))
    expect(parsed.maxPriorityFeePerGas).toBe(BigInt(tx.maxPriorityFeePerGas as string))
    // A legacy request (gasPrice given) and a creation: no chainId (unprotected), null fee caps, to null.
    const legacy = (await post(dev(), 'eth_fillTransaction', [{ from: ethereumAccounts.alice.address, gasPrice: '0x3b9aca00', data: '0x6000', gas: '0x10000' }])).result!
    expect(legacy.tx).toEqual({ type: '0x0', nonce, to: null, gas: '0x10000', gasPrice: '0x3b9aca00', maxPriorityFeePerGas: null, maxFeePerGas: null, value: '0x0', input: '0x6000', v: '0x0', r: '0x0', s: '0x0', hash: keccak256(legacy.raw) })
    expect(parseTransaction(legacy.raw)).toMatchObject({ type: 'legacy', nonce: Number(nonce), gas: 0x10000n, gasPrice: 0x3b9aca00n, data: '0x6000' })
    // Nothing was sent.
    expect(await rawRpc<string>(dev(), 'eth_getTransactionCount', [ethereumAccounts.alice.address, 'pending'])).toBe(nonce)
  })

  it('a revert in the estimate answers as eth_estimateGas does; over /v3/ the method does not exist (-32601)', async () => {
    const overdraw = { from: ethereumAccounts.erin.address, to: ethereumAccounts.bob.address, value: '0xffffffffffffffffffffffffffffffff' }
    expect((await post(dev(), 'eth_fillTransaction', [overdraw])).error?.message).toMatch(/insufficient funds/)
    const v3 = await post(`${server.origin}/v3/${server.devKey}`, 'eth_fillTransaction', [{ from: ethereumAccounts.alice.address }])
    expect(v3.error?.code).toBe(-32601)
  })
})
