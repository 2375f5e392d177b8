/**
 * Snapshots and manual mining through a real client: viem's public and wallet clients (as its
 * docs show, `fetchFn: localhostFetch`) against a real server with the control endpoint on.
 *
 * A snapshot is taken (library and HTTP route), then real signed transactions change the chain
 * (an ETH transfer, an ERC-20 transfer by `writeContract`) and the key's credits change; restoring
 * gives back exactly the earlier answers: block number and hash, balances, token balances, the
 * storage slot behind them, nonces, credits; the discarded transactions are gone, and sending
 * again lands in the same block number as the first discarded one. Then manual mining: three
 * sends wait in the pool and land in one block at `mine`.
 *
 * Tests run in file order on one server.
 */
import { createPublicClient, createWalletClient, http, keccak256, parseEther } from 'viem'
import type { Hash, PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NetworkInfo, SnapshotInfo } from '../../src/gateway/control/types.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { tokenAbi } from './support/abis.ts'
import { controlRoute, logPosition, startControlServer } from './support/control.ts'
import type { ControlServer } from './support/control.ts'
import { HEAD, balanceSlot, bob, carol, dave, erin, sendSupported, token } from './support/fixture.ts'

let server: ControlServer
let client: PublicClient

beforeAll(async () => {
  server = await startControlServer()
  // cacheTime 0: every read is a request (a restore moves the chain back under viem's cache).
  client = createPublicClient({ chain: mainnet, cacheTime: 0, pollingInterval: 20, transport: http(server.url, { fetchFn: localhostFetch }) })
})
afterAll(async () => {
  await server.close()
})

const wallet = (privateKey: `0x${string}`) =>
  createWalletClient({ account: privateKeyToAccount(privateKey), chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })

const credits = () => server.control.key(server.devKey).remaining

/** Everything the restore must give back, read through viem. */
async function answers() {
  const head = await client.getBlock()
  const tokenBalance = (holder: `0x${string}`) => client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [holder] })
  return {
    blockNumber: await client.getBlockNumber(),
    head: { number: head.number, hash: head.hash, stateRoot: head.stateRoot },
    balances: {
      dave: await client.getBalance({ address: dave.address }),
      erin: await client.getBalance({ address: erin.address }),
      bob: await client.getBalance({ address: bob.address }),
    },
    tokens: { bob: await tokenBalance(bob.address), carol: await tokenBalance(carol.address) },
    carolSlot: await client.getStorageAt({ address: token, slot: balanceSlot(keccak256, carol.address) }),
    nonces: {
      dave: await client.getTransactionCount({ address: dave.address }),
      bob: await client.getTransactionCount({ address: bob.address }),
      davePending: await client.getTransactionCount({ address: dave.address, blockTag: 'pending' }),
    },
  }
}

/** A receipt as the node answers it (viem's getTransactionReceipt throws on null). */
const rawReceipt = (hash: Hash) => client.request({ method: 'eth_getTransactionReceipt', params: [hash] })
const rawTransaction = (hash: Hash) => client.request({ method: 'eth_getTransactionByHash', params: [hash] })

describe.skipIf(!sendSupported)('snapshot, transactions and credits, restore', () => {
  let before: Awaited<ReturnType<typeof answers>>
  let creditsBefore: number
  let byLibrary: SnapshotInfo
  let byRoute: SnapshotInfo
  const discarded: { hash: Hash; blockNumber: bigint }[] = []
  const transfer = { to: erin.address, value: parseEther('0.5') } as const

  it('takes a snapshot through the library and one through POST /_double/snapshots', async () => {
    before = await answers()
    expect(before.blockNumber).toBe(HEAD)
    creditsBefore = credits()
    byLibrary = await server.control.snapshot()
    byRoute = await controlRoute<SnapshotInfo>(server, 'POST', '/snapshots', {}, 201)
    expect(byLibrary.networks).toContain('ethereum')
    expect(byRoute).toMatchObject({ networks: byLibrary.networks, logPosition: byLibrary.logPosition })
    expect(byRoute.id).not.toBe(byLibrary.id)
  })

  it('sends an ETH transfer and an ERC-20 transfer (writeContract), then changes the credits', async () => {
    const first = await wallet(dave.privateKey).sendTransaction(transfer)
    const r1 = await client.waitForTransactionReceipt({ hash: first })
    const second = await wallet(bob.privateKey).writeContract({
      address: token,
      abi: tokenAbi,
      functionName: 'transfer',
      args: [carol.address, parseEther('7')],
    })
    const r2 = await client.waitForTransactionReceipt({ hash: second })
    expect([r1.status, r2.status]).toEqual(['success', 'success'])
    expect([r1.blockNumber, r2.blockNumber]).toEqual([HEAD + 1n, HEAD + 2n])
    discarded.push({ hash: first, blockNumber: r1.blockNumber }, { hash: second, blockNumber: r2.blockNumber })

    server.control.setCredits(server.devKey, 100_000)
    const after = await answers()
    expect(credits()).toBeLessThan(100_000)
    expect(after.blockNumber).toBe(HEAD + 2n)
    expect(after.balances.erin).toBe(before.balances.erin + transfer.value)
    expect(after.tokens.carol).toBe(before.tokens.carol + parseEther('7'))
    expect(after.nonces).toEqual({ dave: before.nonces.dave + 1, bob: before.nonces.bob + 1, davePending: before.nonces.dave + 1 })
    expect(after.carolSlot).not.toBe(before.carolSlot)
  })

  it('restore (library): the earlier answers, credits and log position exactly; the discarded transactions are gone', async () => {
    expect(await server.control.restore(byLibrary.id)).toEqual(byLibrary)
    expect(credits()).toBe(creditsBefore)
    expect(logPosition(server)).toBe(byLibrary.logPosition)
    expect(await answers()).toEqual(before)
    for (const { hash } of discarded) {
      expect(await rawReceipt(hash)).toBeNull()
      expect(await rawTransaction(hash)).toBeNull()
    }
  })

  it('sending again after the restore works, in the block number of the first discarded one', async () => {
    const hash = await wallet(dave.privateKey).sendTransaction(transfer)
    const receipt = await client.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.blockNumber).toBe(discarded[0]!.blockNumber)
    expect(await client.getBalance({ address: erin.address })).toBe(before.balances.erin + transfer.value)
  })

  it('restore (POST /_double/snapshots/:id/restore): the earlier answers again; a snapshot restores any number of times', async () => {
    server.control.setCredits(server.devKey, 5)
    expect(await controlRoute(server, 'POST', `/snapshots/${byRoute.id}/restore`)).toEqual(byRoute)
    expect(credits()).toBe(creditsBefore)
    expect(await answers()).toEqual(before)
    await server.control.restore(byLibrary.id)
    expect(await answers()).toEqual(before)
  })
})

describe.skipIf(!sendSupported)('manual mining through the control API', () => {
  it('three sends wait in the pool, then land in one block at mine', async () => {
    const manual = await controlRoute<NetworkInfo>(server, 'PUT', '/networks/ethereum/mining', { mode: 'manual' })
    expect(manual).toMatchObject({ miningMode: 'manual', pending: 0 })
    const head = await client.getBlockNumber()
    const sender = wallet(dave.privateKey)
    const nonce = await client.getTransactionCount({ address: dave.address })

    // Each send reads the pending nonce (the pool counts), so three in a row need no nonce by hand.
    const hashes: Hash[] = []
    for (const value of [1n, 2n, 3n]) hashes.push(await sender.sendTransaction({ to: erin.address, value }))
    expect(server.control.network('ethereum')).toMatchObject({ miningMode: 'manual', pending: 3 })
    expect(await client.getBlockNumber()).toBe(head)
    expect(await client.getTransactionCount({ address: dave.address, blockTag: 'pending' })).toBe(nonce + 3)
    for (const hash of hashes) expect(await rawReceipt(hash)).toBeNull()

    const mined = await controlRoute<{ number: number; transactions: Hash[] }>(server, 'POST', '/networks/ethereum/mine')
    expect(mined.number).toBe(Number(head) + 1)
    expect(mined.transactions).toEqual(hashes)
    const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })))
    expect(receipts.map((r) => [r.blockNumber, r.transactionIndex, r.status])).toEqual([
      [head + 1n, 0, 'success'],
      [head + 1n, 1, 'success'],
      [head + 1n, 2, 'success'],
    ])
    expect((await client.getBlock({ blockNumber: head + 1n })).transactions).toEqual(hashes)
    expect(await client.getTransactionCount({ address: dave.address })).toBe(nonce + 3)

    // Back to mining each transaction at once (library).
    expect(server.control.setMiningMode('ethereum', 'auto')).toMatchObject({ miningMode: 'auto', pending: 0 })
    const hash = await sender.sendTransaction({ to: erin.address, value: 4n })
    expect((await client.waitForTransactionReceipt({ hash })).blockNumber).toBe(head + 2n)
  })
})
