/**
 * A typical viem test suite against the test endpoint, as viem's docs write it:
 * `createTestClient({ mode: 'anvil' })` on `POST /_double/rpc/ethereum` of a real server, each
 * test between `snapshot()` and `revert()`: set a balance, impersonate the token's whale and send
 * from it (a value transfer and an ERC-20 `transfer` through `writeContract`), mine with automine
 * off, advance time, set the next timestamp, mine many blocks at an interval, dump and load state.
 * Every change is also read through the gateway's own `/v3/` URL with a public client (the same
 * chain), and the test endpoint charges no credits and writes no request log entries.
 */
import { createPublicClient, createTestClient, encodeAbiParameters, http, keccak256, parseEther, publicActions, walletActions } from 'viem'
import type { PublicClient } from 'viem'
import { mainnet } from 'viem/chains'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { tokenAbi } from './support/abis.ts'
import { logPosition, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { alice, bob, HEAD, token } from './support/fixture.ts'

let server: ControlServer
let gateway: PublicClient
const whale = alice.address
const newcomer = '0x00000000000000000000000000000000000c0ffe' as const

function testClient() {
  return createTestClient({ mode: 'anvil', chain: mainnet, cacheTime: 0, transport: http(`${server.controlUrl}/rpc/ethereum`) })
    .extend(publicActions)
    .extend(walletActions)
}
let test: ReturnType<typeof testClient>
let id: `0x${string}`

beforeAll(async () => {
  server = await startControlServer()
  gateway = createPublicClient({ chain: mainnet, cacheTime: 0, transport: http(server.url, { fetchFn: localhostFetch }) })
  test = testClient()
})
afterAll(async () => {
  await server.close()
})
beforeEach(async () => {
  id = await test.snapshot()
})
afterEach(async () => {
  await test.revert({ id })
})

const tokenBalance = (client: PublicClient | typeof test, holder: `0x${string}`) =>
  client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [holder] })

describe("viem's test client (mode: 'anvil') on the test endpoint", () => {
  it('starts at the fixture head; snapshot ids count from 0x0', async () => {
    expect(await test.getBlockNumber()).toBe(HEAD)
    expect(id).toMatch(/^0x[0-9a-f]+$/)
  })

  it('sets a balance, seen at once by the test client and through /v3/ without a new block', async () => {
    await test.setBalance({ address: newcomer, value: parseEther('1000') })
    expect(await test.getBalance({ address: newcomer })).toBe(parseEther('1000'))
    expect(await gateway.getBalance({ address: newcomer })).toBe(parseEther('1000'))
    expect(await gateway.getBlockNumber()).toBe(HEAD)
  })

  it('impersonates the whale: a transfer and an ERC-20 transfer from an account whose key it never uses', async () => {
    await test.impersonateAccount({ address: whale })
    const before = await tokenBalance(gateway, newcomer)
    const hash = await test.sendTransaction({ account: whale, to: newcomer, value: parseEther('3') })
    const receipt = await test.waitForTransactionReceipt({ hash })
    expect(receipt).toMatchObject({ status: 'success', from: whale, to: newcomer, blockNumber: HEAD + 1n })
    expect(await gateway.getBalance({ address: newcomer })).toBe(parseEther('3'))

    const transfer = await test.writeContract({ account: whale, address: token, abi: tokenAbi, functionName: 'transfer', args: [newcomer, parseEther('250')] })
    expect((await gateway.waitForTransactionReceipt({ hash: transfer })).status).toBe('success')
    expect(await tokenBalance(gateway, newcomer)).toBe(before + parseEther('250'))
    // The gateway serves the impersonated transaction like any other.
    expect(await gateway.getTransaction({ hash: transfer })).toMatchObject({ from: whale, to: token })

    await test.stopImpersonatingAccount({ address: whale })
    await expect(test.sendTransaction({ account: whale, to: newcomer, value: 1n })).rejects.toThrow(/No Signer available/)
  })

  it('deals tokens by writing the balances mapping, and the newcomer spends them impersonated', async () => {
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [newcomer, 0n]))
    await test.setStorageAt({ address: token, index: slot, value: `0x${parseEther('42').toString(16).padStart(64, '0')}` })
    await test.setBalance({ address: newcomer, value: parseEther('1') })
    expect(await tokenBalance(gateway, newcomer)).toBe(parseEther('42'))
    await test.impersonateAccount({ address: newcomer })
    const hash = await test.writeContract({ account: newcomer, address: token, abi: tokenAbi, functionName: 'transfer', args: [bob.address, parseEther('40')] })
    expect((await test.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await tokenBalance(test, newcomer)).toBe(parseEther('2'))
  })

  it('with automine off, sends wait for mine(); time moves with increaseTime and setNextBlockTimestamp', async () => {
    await test.setAutomine(false)
    expect(await test.getAutomine()).toBe(false)
    await test.impersonateAccount({ address: whale })
    const hash = await test.sendTransaction({ account: whale, to: newcomer, value: 5n })
    expect(await gateway.getBlockNumber()).toBe(HEAD)
    expect(await gateway.getTransaction({ hash })).toMatchObject({ blockNumber: null })
    await test.mine({ blocks: 1 })
    const mined = await gateway.getTransactionReceipt({ hash })
    expect(mined.blockNumber).toBe(HEAD + 1n)

    const t0 = (await test.getBlock()).timestamp
    await test.increaseTime({ seconds: 3600 })
    await test.mine({ blocks: 1 })
    const t1 = (await test.getBlock()).timestamp
    expect(t1 - t0).toBeGreaterThanOrEqual(3600n)
    expect(t1 - t0).toBeLessThan(3600n + 60n)

    await test.setNextBlockTimestamp({ timestamp: t1 + 86_400n })
    await test.mine({ blocks: 1 })
    expect((await gateway.getBlock()).timestamp).toBe(t1 + 86_400n)

    await test.mine({ blocks: 5, interval: 12 })
    const stamps = (await Promise.all([3n, 4n, 5n, 6n, 7n, 8n].map((n) => gateway.getBlock({ blockNumber: HEAD + n })))).map((b) => b.timestamp)
    // The first 12 s after the time the next block would have had, each next one exactly 12 s after.
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(12n)
    expect(stamps.slice(2).map((t, i) => t - stamps[i + 1]!)).toEqual([12n, 12n, 12n, 12n])
    expect(await gateway.getBlockNumber()).toBe(HEAD + 8n)
  })

  it('reverts to the snapshot: blocks, balances, storage and automine as they were', async () => {
    const inner = await test.snapshot()
    await test.setBalance({ address: newcomer, value: 7n })
    await test.setAutomine(false)
    await test.mine({ blocks: 3 })
    await test.revert({ id: inner })
    expect(await gateway.getBlockNumber()).toBe(HEAD)
    expect(await gateway.getBalance({ address: newcomer })).toBe(0n)
    expect(await test.getAutomine()).toBe(true)
    // A reverted snapshot is gone (Anvil's rule): reverting to it again answers false.
    expect(await test.request({ method: 'evm_revert', params: [inner] })).toBe(false)
  })

  it('dumps the state and loads it back over later changes', async () => {
    await test.setBalance({ address: newcomer, value: 11n })
    const dump = await test.dumpState()
    expect(dump).toMatch(/^0x1f8b/)
    await test.setBalance({ address: newcomer, value: 99n })
    await test.setCode({ address: newcomer, bytecode: '0x00' })
    await test.loadState({ state: dump })
    expect(await gateway.getBalance({ address: newcomer })).toBe(11n)
    expect(await gateway.getCode({ address: newcomer })).toBeUndefined()
  })

  it('charges no credits and logs nothing; the gateway path has none of the test methods', async () => {
    const credits = server.control.key(server.devKey).remaining
    const position = logPosition(server)
    await test.setBalance({ address: newcomer, value: 1n })
    await test.mine({ blocks: 2 })
    await test.getBlockNumber()
    expect(server.control.key(server.devKey).remaining).toBe(credits)
    expect(logPosition(server)).toBe(position)
    await expect(gateway.request({ method: 'evm_snapshot' as never })).rejects.toThrow(/The method evm_snapshot does not exist\/is not available/)
  })
})
