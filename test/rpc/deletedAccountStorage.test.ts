/**
 * An account deleted with storage stays without it when it is made again. EIP-161 deletes a
 * touched empty account (nonce, balance and code: storage is not looked at, as in geth's
 * `empty()`), and geth's StateDB then drops its storage; an EIP-7702 authorization makes the
 * account again without CREATE's storage clear. EthereumJS 10.1.3's `deleteAccount` kept the
 * account's storage trie at its old root, so the delegated code read the deleted slot and the
 * next block's state root held it again (src/chain/vm/recordingState.ts). Storage on an empty
 * account comes from the test endpoint (`anvil_setStorageAt`). Anvil keeps a touched empty
 * account with storage (its in-memory database does not apply EIP-161's deletion), so it is not
 * the reference here: the double's own reads between the two transactions are.
 */
import { createPublicClient, createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { alice } from '../e2e/support/fixture.ts'

let server: ControlServer
let url: string

async function dev(method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`)
  return body.result
}

const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}` as const
/** The delegate: copies slot 0 to slot 1 (PUSH1 0 SLOAD PUSH1 1 SSTORE STOP). */
const delegate = '0x00000000000000000000000000000000000d1e9a'
const authority = privateKeyToAccount(`0x${'42'.repeat(32)}`)
const funder = privateKeyToAccount(alice.privateKey)

beforeAll(async () => {
  server = await startControlServer()
  url = `${server.controlUrl}/rpc/ethereum`
})
afterAll(async () => {
  await server.close()
})

describe('an account deleted by EIP-161 with storage, made again by EIP-7702', () => {
  it('has none of its old storage: its delegated code reads zero, and the proof holds no slot', async () => {
    const chainId = Number(await dev('eth_chainId'))
    const chain = { id: chainId, name: 'double', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } } as const
    const wallet = createWalletClient({ chain, transport: http(url), account: funder })
    const client = createPublicClient({ chain, transport: http(url) })
    await dev('anvil_setCode', [delegate, '0x60005460015500'])
    await dev('anvil_setStorageAt', [authority.address, '0x0', word(0x99n)])
    await dev('evm_mine')
    expect(await client.getStorageAt({ address: authority.address, slot: '0x0' })).toBe(word(0x99n))

    // Touched by a transfer of nothing: empty (nonce 0, balance 0, no code), so deleted, storage and all.
    const touch = await wallet.sendTransaction({ to: authority.address, value: 0n, gas: 50_000n })
    expect((await client.waitForTransactionReceipt({ hash: touch })).status).toBe('success')
    expect(await client.getStorageAt({ address: authority.address, slot: '0x0' })).toBe(word(0n))
    // No account (a proof of absence answers a zero storage hash, as geth does).
    expect((await dev('eth_getProof', [authority.address, [word(0n)], 'latest'])).storageHash).toBe(word(0n))

    // Made again by a delegation (no CREATE, no storage clear), its delegate run in its context.
    const authorization = await wallet.signAuthorization({ account: authority, contractAddress: delegate, chainId, nonce: 0 })
    const call = await wallet.sendTransaction({ to: authority.address, authorizationList: [authorization], gas: 100_000n })
    expect((await client.waitForTransactionReceipt({ hash: call })).status).toBe('success')
    expect(await client.getStorageAt({ address: authority.address, slot: '0x1' })).toBe(word(0n))
    expect(await client.getStorageAt({ address: authority.address, slot: '0x0' })).toBe(word(0n))
    const proof = await dev('eth_getProof', [authority.address, [word(0n), word(1n)], 'latest'])
    expect(proof.nonce).toBe('0x1')
    expect(proof.storageHash).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
  })
})
