/**
 * Issue 20's end-to-end test: an Anvil upstream with two tokens and a pool over them and a few
 * hundred blocks of history (./support/fork/world.ts), forked in the middle by gateway-double
 * (`startServer({ config: { networks: { up: { fork } } } })`) and by `anvil --fork-url` at the same
 * block. The same transactions sent to both (swaps, a transfer that empties a balance, liquidity,
 * a contract creation, a revert) give the same receipts, logs, balances and storage; reads of the
 * history below the fork block answer as the upstream does; the upstream's blocks and transactions
 * after the fork block are none of the fork's. viem's test client works on the fork's test endpoint
 * (anvil_metadata's forkedNetwork, snapshots, state edits, mining, impersonation, anvil_setRpcUrl,
 * anvil_reset with forking at another block and back). Then, the upstream stopped, the fork restarts
 * offline from its cache and from the fixture `freezeFork` made of it, and answers the same; a
 * read neither holds fails with the documented error; the upstream URL's key is in neither.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createTestClient, createWalletClient, encodeFunctionData, http, parseEther, publicActions, walletActions } from 'viem'
import type { Address, Hash, PublicClient, TransactionReceipt } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findForkCache } from '../../src/chain/loading/fork/forkCache.ts'
import { redactUrl } from '../../src/chain/loading/fork/upstream.ts'
import { parseConfig } from '../../src/gateway/config.ts'
import { freezeFork } from '../../src/index.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { anvilBinary, anvilChain, startAnvil } from '../capture/anvil.ts'
import type { RunningAnvil } from '../capture/anvil.ts'
import { ACCOUNTS, buildWorld, comparable } from './support/fork/world.ts'
import type { ForkWorld } from './support/fork/world.ts'

const KEY = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0'
/** The upstream's "key", in its URL's password and query: it must appear in full nowhere. */
const SECRET = '5ec12e7c0ffee5ec12e7c0ffee5ec12e'
let world: ForkWorld
/** The fork's upstream URL, with the key. */
let upstreamUrl: string
/** What the online fork answered about the history, to ask the offline ones again. */
const history: { method: string; params: unknown[]; answer: unknown }[] = []
let referenceOutcome: Outcome
let reference: RunningAnvil
let server: RunningServer | undefined
let cacheDir: string

async function rpc(url: string, method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
}

function forkServer(fork: Record<string, unknown>): Promise<RunningServer> {
  const config = parseConfig({ networks: { up: { fork: { ...fork, cacheDir } } }, keys: [{ key: KEY, networks: ['up'] }] }, process.cwd())
  return startServer({ config, port: 0, control: true })
}

beforeAll(async () => {
  if (anvilBinary() === undefined) return
  cacheDir = mkdtempSync(join(tmpdir(), 'gd-fork-'))
  world = await buildWorld()
  // --accounts 0: a forking Anvil otherwise tops its dev accounts up to 10,000 ETH (the double does not).
  reference = await startAnvil(['--fork-url', world.anvil.url, '--fork-block-number', String(world.forkBlock), '--accounts', '0'])
  upstreamUrl = world.anvil.url.replace('http://', `http://user:${SECRET}@`) + `/?key=${SECRET}`
  server = await forkServer({ url: upstreamUrl, block: Number(world.forkBlock) })
}, 120_000)

afterAll(async () => {
  await server?.close()
  await reference?.stop()
  await world?.anvil.stop()
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true })
})

describe.skipIf(anvilBinary() === undefined)('a fork of an Anvil upstream', () => {
  it('starts at the fork block: its head is the upstream block, hash and all', async () => {
    const upstream = await rpc(world.anvil.url, 'eth_getBlockByNumber', [`0x${world.forkBlock.toString(16)}`, false])
    const head = await rpc(server!.url!, 'eth_getBlockByNumber', ['latest', false])
    expect(head.result).toEqual(upstream.result)
    expect((await rpc(server!.url!, 'eth_blockNumber', [])).result).toBe(`0x${world.forkBlock.toString(16)}`)
    expect((await rpc(server!.url!, 'eth_chainId', [])).result).toBe('0x7a69')
  })

  it('answers the history below the fork block as the upstream does, and nothing after it', async () => {
    const at = (n: bigint) => `0x${n.toString(16)}`
    const same = async (method: string, params: unknown[]) => {
      const [ours, theirs] = await Promise.all([rpc(server!.url!, method, params), rpc(world.anvil.url, method, params)])
      expect(ours, `${method} ${JSON.stringify(params)}`).toEqual(theirs)
      history.push({ method, params, answer: ours })
      return ours.result
    }
    const receipt = (await same('eth_getTransactionReceipt', [world.before])) as { blockNumber: string }
    await same('eth_getTransactionByHash', [world.before])
    await same('eth_getBlockByNumber', [receipt.blockNumber, true])
    await same('eth_getBlockReceipts', [receipt.blockNumber])
    await same('eth_getBlockByNumber', [at(world.forkBlock - 10n), false])
    await same('eth_getBalance', [ACCOUNTS[1]!.address, at(world.forkBlock - 10n)])
    await same('eth_getStorageAt', [world.pool, '0x0', receipt.blockNumber])
    await same('eth_getLogs', [{ fromBlock: '0x0', toBlock: at(world.forkBlock), address: world.pool }])
    const mid = (await rpc(world.anvil.url, 'eth_getBlockByNumber', [at(world.forkBlock - 5n), false])).result as { hash: string }
    await same('eth_getBlockByHash', [mid.hash, false])
    // The upstream went on after the fork block: none of that is the fork's.
    expect((await rpc(server!.url!, 'eth_getTransactionByHash', [world.after])).result).toBeNull()
    expect((await rpc(server!.url!, 'eth_getTransactionReceipt', [world.after])).result).toBeNull()
    expect((await rpc(server!.url!, 'eth_getBlockByNumber', [at(world.forkBlock + 1n), false])).result).toBeNull()
  })

  it('gives the same receipts, logs, balances and storage as anvil --fork-url for the same transactions', async () => {
    const outcomes = await Promise.all([server!.url!, reference.url].map((url) => sendAll(url)))
    const [ours, theirs] = outcomes as [Outcome, Outcome]
    expect(ours.receipts.length).toBe(6)
    expect(ours.receipts.map((r) => r.status)).toEqual(['success', 'success', 'success', 'success', 'success', 'reverted'])
    expect(ours.receipts.map(comparable)).toEqual(theirs.receipts.map(comparable))
    expect(ours.state).toEqual(theirs.state)
    referenceOutcome = theirs
  }, 60_000)

  it('serves viem’s test client on its test endpoint: metadata, snapshots, state edits, mining, impersonation, reset', async () => {
    const test = createTestClient({ mode: 'anvil', chain: anvilChain(31337, server!.url!), cacheTime: 0, transport: http(`${server!.controlUrl}/rpc/up`) })
      .extend(publicActions)
      .extend(walletActions)
    const forkHash = ((await rpc(world.anvil.url, 'eth_getBlockByNumber', [`0x${world.forkBlock.toString(16)}`, false])).result as { hash: string }).hash
    const metadata = (await test.request({ method: 'anvil_metadata' as never })) as { forkedNetwork: unknown }
    expect(metadata.forkedNetwork).toEqual({ chainId: 31337, forkBlockNumber: Number(world.forkBlock), forkBlockHash: forkHash })
    const head = await test.getBlockNumber()
    const id = await test.snapshot()
    const stranger = '0x0000000000000000000000000000000000c0ffee'
    await test.setBalance({ address: stranger, value: parseEther('1') })
    await test.mine({ blocks: 3 })
    expect(await test.getBalance({ address: stranger })).toBe(parseEther('1'))
    expect(await test.getBlockNumber()).toBe(head + 3n)
    const [, a1, , a3] = ACCOUNTS.map((a) => a.address) as [Address, Address, Address, Address]
    await test.impersonateAccount({ address: a3 })
    const hash = await test.sendTransaction({ account: a3, to: world.token1, data: encodeFunctionData({ abi: world.tokenAbi, functionName: 'transfer', args: [a1, 1n] }), chain: null })
    expect((await test.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
    await test.revert({ id })
    expect(await test.getBalance({ address: stranger })).toBe(0n)
    expect(await test.getBlockNumber()).toBe(head)
    // anvil_setRpcUrl, and anvil_reset with forking: at another block, then back at the fork block
    // (test/e2e/forkReset.test.ts compares resets with Anvil's).
    expect(await test.request({ method: 'anvil_setRpcUrl' as never, params: [world.anvil.url] as never })).toBeNull()
    await test.reset({ jsonRpcUrl: upstreamUrl, blockNumber: world.forkBlock - 1n })
    expect(await test.getBlockNumber()).toBe(world.forkBlock - 1n)
    expect(((await test.request({ method: 'anvil_metadata' as never })) as { forkedNetwork: { forkBlockNumber: number } }).forkedNetwork.forkBlockNumber).toBe(Number(world.forkBlock - 1n))
    await test.reset({ jsonRpcUrl: upstreamUrl, blockNumber: world.forkBlock })
    expect(await test.getBlockNumber()).toBe(world.forkBlock)
    expect(((await test.request({ method: 'anvil_metadata' as never })) as { forkedNetwork: unknown }).forkedNetwork).toEqual(metadata.forkedNetwork)
  })

  it('restarts offline from its cache, and from a frozen fixture, with the same answers; a read it lacks fails naming it', async () => {
    await server!.close()
    server = undefined
    await world.anvil.stop()
    const label = redactUrl(upstreamUrl)
    const cached = findForkCache(cacheDir, label, world.forkBlock)
    expect(cached).toBeDefined()
    const frozen = join(cacheDir, 'frozen')
    const { reads, proofs } = await freezeFork(cached!.dir, frozen)
    expect(reads).toBeGreaterThan(20)
    expect(proofs).toBeGreaterThan(5)
    const frozenConfig = parseConfig({ networks: { up: { fixture: frozen } }, keys: [{ key: KEY, networks: ['up'] }] }, process.cwd())
    for (const start of [() => forkServer({ url: upstreamUrl, block: Number(world.forkBlock), offline: true }), () => startServer({ config: frozenConfig, port: 0 })]) {
      server = await start()
      for (const { method, params, answer } of history) expect(await rpc(server!.url!, method, params), method).toEqual(answer)
      const again = await sendAll(server!.url!)
      expect(again.receipts.map(comparable)).toEqual(referenceOutcome.receipts.map(comparable))
      expect(again.state).toEqual(referenceOutcome.state)
      const stranger = '0x00000000000000000000000000000000deadbeef'
      const missing = await rpc(server!.url!, 'eth_getBalance', [stranger, 'latest'])
      expect(missing.error?.code).toBe(-32000)
      expect(missing.error?.message).toBe(`fork of ${label} at block ${world.forkBlock} is offline and its cache lacks account ${stranger} at block ${world.forkBlock} (eth_getProof)`)
      await server!.close()
      server = undefined
    }
    // The key is nowhere: not in the cache, not in the frozen fixture.
    for (const dir of [cached!.dir, frozen]) {
      for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8'), file).not.toContain(SECRET.slice(0, 12))
    }
  }, 120_000)
})

interface Outcome {
  receipts: TransactionReceipt[]
  state: Record<string, unknown>
}

/** The transactions of the comparison, sent one by one (each mined at once), and the state after them. */
async function sendAll(url: string): Promise<Outcome> {
  const chain = anvilChain(31337, url)
  const client = createPublicClient({ chain, transport: http(url), cacheTime: 0 }) as PublicClient
  const wallets = ACCOUNTS.map((account) => createWalletClient({ account, chain, transport: http(url) }))
  const fees = { maxFeePerGas: parseEther('0.00000002'), maxPriorityFeePerGas: 1_000_000_000n }
  const receipts: TransactionReceipt[] = []
  const send = async (i: number, tx: { to?: Address; data: `0x${string}`; gas?: bigint }) => {
    const hash: Hash = await wallets[i]!.sendTransaction({ ...tx, ...fees, chain, account: wallets[i]!.account })
    receipts.push(await client.waitForTransactionReceipt({ hash, pollingInterval: 20 }))
  }
  const { pool, token0, token1, tokenAbi, poolAbi } = world
  const [a0, a1, a2, a3] = ACCOUNTS.map((a) => a.address) as [Address, Address, Address, Address]
  await send(1, { to: pool, data: encodeFunctionData({ abi: poolAbi, functionName: 'swap', args: [parseEther('25'), true, a1] }) })
  const all = (await client.readContract({ address: token1, abi: tokenAbi, functionName: 'balanceOf', args: [a2] })) as bigint
  // Empties a2's token1 balance: a slot set to zero must not read as the upstream's again.
  await send(2, { to: token1, data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [a3, all] }) })
  await send(0, { to: pool, data: encodeFunctionData({ abi: poolAbi, functionName: 'addLiquidity', args: [parseEther('100'), parseEther('150')] }) })
  await send(3, { to: token1, data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [a0, parseEther('1')] }) })
  await send(0, { data: `${world.tokenBytecode}${'00'.repeat(31)}64` as `0x${string}` })
  await send(1, { to: pool, data: encodeFunctionData({ abi: poolAbi, functionName: 'swap', args: [0n, false, a1] }), gas: 200_000n })
  const state: Record<string, unknown> = {}
  for (const a of [a0, a1, a2, a3]) {
    state[`eth ${a}`] = await client.getBalance({ address: a })
    state[`nonce ${a}`] = await client.getTransactionCount({ address: a })
    for (const t of [token0, token1]) state[`${t} ${a}`] = await client.readContract({ address: t, abi: tokenAbi, functionName: 'balanceOf', args: [a] })
  }
  for (const slot of [0n, 2n]) state[`pool slot ${slot}`] = await client.getStorageAt({ address: pool, slot: `0x${slot.toString(16)}` })
  state['pool code'] = await client.getCode({ address: pool })
  state['created code'] = await client.getCode({ address: receipts[4]!.contractAddress! })
  return { receipts, state }
}
