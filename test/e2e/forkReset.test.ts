/**
 * Anvil's `anvil_reset` with `forking` on the test endpoint, against an Anvil upstream with a pool
 * and tokens (./support/fork/world.ts) and `anvil --fork-url` of it as the reference: a forked
 * network forks again in place at another block (the upstream's state, history and head there, as
 * Anvil after the same reset), at the upstream's head when no block is given, from another URL;
 * a WebSocket subscription opened before goes on with the new chain's blocks; a reset that fails
 * (a block the upstream lacks, an unreachable URL, a malformed block) is a JSON-RPC error and the
 * old fork goes on serving; a network that is no fork starts forking from a URL, and without one
 * answers Anvil's error; a gateway snapshot taken before a reset brings the old fork back.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createTestClient, createWalletClient, encodeFunctionData, http, parseEther } from 'viem'
import type { Address, PublicClient, TransactionReceipt } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findForkCache } from '../../src/chain/loading/fork/forkCache.ts'
import { parseConfig } from '../../src/gateway/config.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { anvilBinary, anvilChain, startAnvil } from '../capture/anvil.ts'
import type { RunningAnvil } from '../capture/anvil.ts'
import { openSocket } from '../support/socket.ts'
import type { TestSocket } from '../support/socket.ts'
import { ACCOUNTS, buildWorld, comparable } from './support/fork/world.ts'
import type { ForkWorld } from './support/fork/world.ts'

const KEY = 'f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1'
let world: ForkWorld
let reference: RunningAnvil
let server: RunningServer
let cacheDir: string
let socket: TestSocket | undefined
/** The block both forks start at, and the block they fork again at (later: the pool traded between). */
let firstBlock: bigint
let secondBlock: bigint

type Answer = { result?: unknown; error?: { code: number; message: string } }

async function rpc(url: string, method: string, params: unknown[] = []): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await res.json()) as Answer
}

const hex = (n: bigint) => `0x${n.toString(16)}`
const dev = (network: string) => `${server.controlUrl}/rpc/${network}`

beforeAll(async () => {
  if (anvilBinary() === undefined) return
  cacheDir = mkdtempSync(join(tmpdir(), 'gd-fork-reset-'))
  // A network that is no fork caches its first fork in the default cache folder: this one.
  process.env.GATEWAY_DOUBLE_CACHE_DIR = cacheDir
  world = await buildWorld(80)
  firstBlock = world.forkBlock - 20n
  secondBlock = world.forkBlock
  reference = await startAnvil(['--fork-url', world.anvil.url, '--fork-block-number', String(firstBlock), '--accounts', '0'])
  const config = parseConfig(
    {
      networks: { up: { fork: { url: world.anvil.url, block: Number(firstBlock), cacheDir } }, plain: { fixture: 'fixtures/ethereum' } },
      keys: [{ key: KEY, networks: ['up', 'plain'] }],
    },
    process.cwd(),
  )
  server = await startServer({ config, port: 0, control: true, networkPorts: 0 })
}, 120_000)

afterAll(async () => {
  await socket?.close()
  await server?.close()
  await reference?.stop()
  await world?.anvil.stop()
  delete process.env.GATEWAY_DOUBLE_CACHE_DIR
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true })
})

/** What a fork answers about its head, the pool's and tokens' state and the accounts, at `tag`. */
async function state(url: string, tag: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  const read = async (name: string, method: string, params: unknown[]) => {
    const a = await rpc(url, method, params)
    out[name] = a.error ?? a.result
  }
  const balanceOf = (token: Address, who: Address) =>
    read(`${token} ${who}`, 'eth_call', [{ to: token, data: encodeFunctionData({ abi: world.tokenAbi, functionName: 'balanceOf', args: [who] }) }, tag])
  for (const { address } of ACCOUNTS) {
    await read(`eth ${address}`, 'eth_getBalance', [address, tag])
    await read(`nonce ${address}`, 'eth_getTransactionCount', [address, tag])
    for (const t of [world.token0, world.token1]) await balanceOf(t, address)
  }
  for (const slot of ['0x0', '0x1', '0x2', '0x3']) await read(`pool slot ${slot}`, 'eth_getStorageAt', [world.pool, slot, tag])
  await read('pool code', 'eth_getCode', [world.pool, tag])
  return out
}

async function head(url: string): Promise<{ number: string; hash: string; stateRoot: string; timestamp: string }> {
  return (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).result as never
}

describe.skipIf(anvilBinary() === undefined)('anvil_reset with forking', () => {
  it('forks again at another block: the upstream’s block, state and history there, as anvil --fork-url after the same reset', async () => {
    socket = await openSocket(server.portWsUrls.up!)
    const subscribed = (await socket.call({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })) as { result: string }
    // Something to lose: a block mined, a balance set, on the first fork.
    expect((await rpc(dev('up'), 'evm_mine')).result).toBe('0x0')
    expect(((await socket.next()) as { params: { result: { number: string } } }).params.result.number).toBe(hex(firstBlock + 1n))
    await rpc(dev('up'), 'anvil_setBalance', [ACCOUNTS[3]!.address, '0x1'])

    const credits = server.control.key(KEY).remaining
    for (const url of [dev('up'), reference.url]) expect(await rpc(url, 'anvil_reset', [{ forking: { jsonRpcUrl: world.anvil.url, blockNumber: Number(secondBlock) } }])).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    // The key's credits are as they were (the test endpoint charges nothing; the reset refunds nothing).
    expect(server.control.key(KEY).remaining).toBe(credits)
    const upstreamBlock = (await rpc(world.anvil.url, 'eth_getBlockByNumber', [hex(secondBlock), false])).result
    expect((await rpc(server.portUrls.up!, 'eth_getBlockByNumber', ['latest', false])).result).toEqual(upstreamBlock)
    expect((await rpc(server.portUrls.up!, 'eth_blockNumber')).result).toBe(hex(secondBlock))
    expect((await head(reference.url)).hash).toBe((upstreamBlock as { hash: string }).hash)
    const ours = await state(server.portUrls.up!, 'latest')
    expect(ours).toEqual(await state(world.anvil.url, hex(secondBlock)))
    expect(ours).toEqual(await state(reference.url, 'latest'))
    // History below the new fork block is the upstream's, as on Anvil.
    const below = hex(secondBlock - 5n)
    expect((await rpc(server.portUrls.up!, 'eth_getBlockByNumber', [below, false])).result).toEqual((await rpc(world.anvil.url, 'eth_getBlockByNumber', [below, false])).result)
    expect(await state(server.portUrls.up!, below)).toEqual(await state(reference.url, below))
    const metadata = (await rpc(dev('up'), 'anvil_metadata')).result as { forkedNetwork: unknown; latestBlockNumber: number }
    expect(metadata.forkedNetwork).toEqual({ chainId: 31337, forkBlockNumber: Number(secondBlock), forkBlockHash: (upstreamBlock as { hash: string }).hash })
    expect(metadata.latestBlockNumber).toBe(Number(secondBlock))
    // The new fork block's cache is a folder of its own (chain id, number, hash).
    expect(findForkCache(cacheDir, world.anvil.url, secondBlock)?.manifest.hash).toBe((upstreamBlock as { hash: string }).hash)
    expect(findForkCache(cacheDir, world.anvil.url, firstBlock)?.dir).not.toBe(findForkCache(cacheDir, world.anvil.url, secondBlock)?.dir)

    // The subscription goes on: the next head is the new chain's.
    expect(socket.pending).toEqual([])
    await rpc(dev('up'), 'evm_mine')
    const next = (await socket.next()) as { params: { subscription: string; result: { number: string; parentHash: string } } }
    expect(next.params.subscription).toBe(subscribed.result)
    expect(next.params.result.number).toBe(hex(secondBlock + 1n))
    expect(next.params.result.parentHash).toBe((upstreamBlock as { hash: string }).hash)
    await rpc(reference.url, 'evm_mine')
  }, 60_000)

  it('mines the same transactions after the reset as Anvil does, on the base fee the new fork block gives', async () => {
    const [ours, theirs] = await Promise.all([swapAndTransfer(server.portUrls.up!), swapAndTransfer(reference.url)])
    expect(ours.receipts.map((r) => r.status)).toEqual(['success', 'success'])
    // Given a jsonRpcUrl, Anvil 1.7.1 keeps the old fork's base fee; the double's next block takes
    // the one its parent gives, as the upstream's own next block did.
    const withoutPrice = (r: TransactionReceipt) => ({ ...comparable(r), effectiveGasPrice: undefined })
    expect(ours.receipts.map(withoutPrice)).toEqual(theirs.receipts.map(withoutPrice))
    const upstreamNext = (await rpc(world.anvil.url, 'eth_getBlockByNumber', [hex(secondBlock + 1n), false])).result as { baseFeePerGas: string }
    const oursNext = (await rpc(server.portUrls.up!, 'eth_getBlockByNumber', [hex(secondBlock + 1n), false])).result as { baseFeePerGas: string }
    expect(oursNext.baseFeePerGas).toBe(upstreamNext.baseFeePerGas)
    // The same state but for the ether the senders paid at those prices.
    const unpaid = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('eth ')))
    expect(unpaid(await state(server.portUrls.up!, 'latest'))).toEqual(unpaid(await state(reference.url, 'latest')))
  }, 60_000)

  it('a reset that fails is an error, and the fork it would have replaced goes on serving', async () => {
    const before = await head(server.portUrls.up!)
    const stateBefore = await state(server.portUrls.up!, 'latest')
    const metadataBefore = (await rpc(dev('up'), 'anvil_metadata')).result
    const upstreamHead = BigInt((await rpc(world.anvil.url, 'eth_blockNumber')).result as string)
    const beyond = await rpc(dev('up'), 'anvil_reset', [{ forking: { blockNumber: Number(upstreamHead + 1000n) } }])
    expect(beyond.error).toEqual({ code: -32000, message: `anvil_reset: fork up: ${world.anvil.url} has no block ${upstreamHead + 1000n}` })
    const unreachable = await rpc(dev('up'), 'anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:9/', blockNumber: 1 } }])
    expect(unreachable.error?.code).toBe(-32000)
    expect(unreachable.error?.message).toMatch(/^anvil_reset: fork up: fork upstream http:\/\/127\.0\.0\.1:9: eth_chainId: cannot reach it/)
    expect((await rpc(dev('up'), 'anvil_reset', [{ forking: { blockNumber: 'abc' } }])).error).toEqual({
      code: -32602,
      message: 'forking.blockNumber: not a number (a JSON number, 0x hex or decimal string): "abc"',
    })
    expect((await rpc(dev('up'), 'anvil_reset', [{ forking: { jsonRpcUrl: 'ws://127.0.0.1:9' } }])).error).toEqual({ code: -32602, message: 'forking.jsonRpcUrl: expected an http(s) URL, got ws://127.0.0.1:9' })
    expect(await head(server.portUrls.up!)).toEqual(before)
    expect(await state(server.portUrls.up!, 'latest')).toEqual(stateBefore)
    expect((await rpc(dev('up'), 'anvil_metadata')).result).toEqual(metadataBefore)
    // It still reads the upstream (an account no one read yet) and mines.
    const fresh = '0x00000000000000000000000000000000000000f1'
    expect((await rpc(server.portUrls.up!, 'eth_getBalance', [fresh, 'latest'])).result).toBe('0x0')
    await rpc(dev('up'), 'evm_mine')
    expect((await rpc(server.portUrls.up!, 'eth_blockNumber')).result).toBe(hex(BigInt(before.number) + 1n))
  }, 60_000)

  it('without a block, forks at the upstream’s head, as Anvil, and mines as Anvil there; anvil_setRpcUrl still works after', async () => {
    const upstreamHead = (await rpc(world.anvil.url, 'eth_blockNumber')).result as string
    const heard = socket!.pending.length
    for (const url of [dev('up'), reference.url]) expect((await rpc(url, 'anvil_reset', [{ forking: {} }])).result).toBeNull()
    expect((await rpc(server.portUrls.up!, 'eth_blockNumber')).result).toBe(upstreamHead)
    expect((await head(server.portUrls.up!)).hash).toBe((await head(reference.url)).hash)
    expect(await state(server.portUrls.up!, 'latest')).toEqual(await state(reference.url, 'latest'))
    // The subscription heard nothing of the reset itself.
    expect(socket!.pending.length).toBe(heard)
    const [ours, theirs] = await Promise.all([swapAndTransfer(server.portUrls.up!), swapAndTransfer(reference.url)])
    expect(ours.receipts.map(comparable)).toEqual(theirs.receipts.map(comparable))
    expect(await state(server.portUrls.up!, 'latest')).toEqual(await state(reference.url, 'latest'))
    expect((await rpc(dev('up'), 'anvil_setRpcUrl', [world.anvil.url])).result).toBeNull()
    expect((await rpc(server.portUrls.up!, 'eth_getBalance', ['0x00000000000000000000000000000000000000f2', 'latest'])).result).toBe('0x0')
  }, 60_000)

  it('a network that is no fork starts forking from a URL (as Anvil), and without one answers Anvil’s error', async () => {
    expect((await rpc(dev('plain'), 'anvil_reset', [{ forking: {} }])).error).toEqual({ code: -32602, message: 'Forking not enabled and RPC URL not provided to start forking' })
    // viem's reset() always sends `forking`: here, as on Anvil, it meets the same error.
    await expect(createTestClient({ mode: 'anvil', transport: http(dev('plain')) }).reset()).rejects.toThrow(/Forking not enabled and RPC URL not provided to start forking/)
    expect((await rpc(dev('plain'), 'anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:9/' } }])).error?.code).toBe(-32000)
    expect((await rpc(server.portUrls.plain!, 'eth_chainId')).result).toBe('0x1')
    expect((await rpc(dev('plain'), 'anvil_metadata')).result).toMatchObject({ forkedNetwork: null })
    expect((await rpc(dev('plain'), 'anvil_setRpcUrl', [world.anvil.url])).error).toEqual({
      code: -32602,
      message: 'Forking not enabled (this network is not a fork: fork it with anvil_reset {forking: {jsonRpcUrl}}, or start it with --fork)',
    })
    expect((await rpc(dev('plain'), 'anvil_reset', [{ forking: { jsonRpcUrl: world.anvil.url, blockNumber: hex(secondBlock) } }])).result).toBeNull()
    expect((await rpc(server.portUrls.plain!, 'eth_chainId')).result).toBe('0x7a69')
    expect((await head(server.portUrls.plain!)).hash).toBe(((await rpc(world.anvil.url, 'eth_getBlockByNumber', [hex(secondBlock), false])).result as { hash: string }).hash)
    expect(await state(server.portUrls.plain!, 'latest')).toEqual(await state(world.anvil.url, hex(secondBlock)))
    expect(((await rpc(dev('plain'), 'anvil_metadata')).result as { forkedNetwork: unknown }).forkedNetwork).toMatchObject({ chainId: 31337, forkBlockNumber: Number(secondBlock) })
    expect((await rpc(dev('plain'), 'anvil_setRpcUrl', [world.anvil.url])).result).toBeNull()
    // Sending works on the new fork (the fixture's accounts are gone; the upstream's are there).
    const [theirs] = await Promise.all([swapAndTransfer(server.portUrls.plain!)])
    expect(theirs.receipts.map((r) => r.status)).toEqual(['success', 'success'])
  }, 60_000)

  it('a gateway snapshot taken before a reset brings the fork it was taken of back', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: res.status, body: (await res.json()) as { id?: string } }
    }
    await rpc(dev('up'), 'evm_mine')
    const before = { head: await head(server.portUrls.up!), state: await state(server.portUrls.up!, 'latest'), metadata: (await rpc(dev('up'), 'anvil_metadata')).result as { forkedNetwork: unknown } }
    const taken = await post('/snapshots', { networks: ['up'] })
    expect(taken.status).toBe(201)
    expect((await rpc(dev('up'), 'anvil_reset', [{ forking: { blockNumber: Number(firstBlock) } }])).result).toBeNull()
    expect((await rpc(server.portUrls.up!, 'eth_blockNumber')).result).toBe(hex(firstBlock))
    expect((await post(`/snapshots/${taken.body.id}/restore`, {})).status).toBe(200)
    expect(await head(server.portUrls.up!)).toEqual(before.head)
    expect(await state(server.portUrls.up!, 'latest')).toEqual(before.state)
    expect(((await rpc(dev('up'), 'anvil_metadata')).result as { forkedNetwork: unknown }).forkedNetwork).toEqual(before.metadata.forkedNetwork)
    // It mines on, and anvil_reset without forking goes back to its own fork block.
    await rpc(dev('up'), 'evm_mine')
    expect((await rpc(server.portUrls.up!, 'eth_blockNumber')).result).toBe(hex(BigInt(before.head.number) + 1n))
    expect((await rpc(dev('up'), 'anvil_reset', [])).result).toBeNull()
    expect((await rpc(server.portUrls.up!, 'eth_blockNumber')).result).toBe(hex(BigInt((before.metadata.forkedNetwork as { forkBlockNumber: number }).forkBlockNumber)))
  }, 60_000)

  it('a network copied from a fork (the control’s fork) forks again on its own, under its own name', async () => {
    await server.control.fork({ name: 'copy', from: 'up' })
    const up = await head(server.portUrls.up!)
    expect((await rpc(dev('copy'), 'anvil_reset', [{ forking: { blockNumber: Number(firstBlock) } }])).result).toBeNull()
    expect(BigInt((await rpc(dev('copy'), 'eth_blockNumber')).result as string)).toBe(firstBlock)
    expect(server.gateway.networks.get('copy')!.chain.name).toBe('copy')
    expect(await head(server.portUrls.up!)).toEqual(up)
  }, 60_000)
})

/** A swap and a token transfer, each mined at once, with their receipts. */
async function swapAndTransfer(url: string): Promise<{ receipts: TransactionReceipt[] }> {
  const chain = anvilChain(31337, url)
  const client = createPublicClient({ chain, transport: http(url), cacheTime: 0 }) as PublicClient
  const fees = { maxFeePerGas: parseEther('0.00000002'), maxPriorityFeePerGas: 1_000_000_000n }
  const receipts: TransactionReceipt[] = []
  const send = async (i: number, tx: { to: Address; data: `0x${string}` }) => {
    const wallet = createWalletClient({ account: ACCOUNTS[i]!, chain, transport: http(url) })
    const hash = await wallet.sendTransaction({ ...tx, ...fees, chain, account: ACCOUNTS[i]! })
    receipts.push(await client.waitForTransactionReceipt({ hash, pollingInterval: 20 }))
  }
  const [a0, a1] = ACCOUNTS.map((a) => a.address) as [Address, Address]
  await send(1, { to: world.pool, data: encodeFunctionData({ abi: world.poolAbi, functionName: 'swap', args: [parseEther('7'), true, a1] }) })
  await send(2, { to: world.token0, data: encodeFunctionData({ abi: world.tokenAbi, functionName: 'transfer', args: [a0, parseEther('3')] }) })
  return { receipts }
}
