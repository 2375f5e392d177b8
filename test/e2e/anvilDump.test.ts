/**
 * Anvil state dumps as networks, with the Anvil of the devDependencies: a contract deployed and
 * used on Anvil with viem, storage and balances set with its own test methods, blocks mined at a
 * chosen time; then the dump Anvil writes on exit (`--dump-state <dir>`: `<dir>/state.json`) and
 * the one `anvil_dumpState` answers (hex of gzipped JSON, saved to a file) are each served by the
 * double (`--fixture name=<dir or file>`): the dump's block number and timestamp, and every
 * account's balance, nonce, code and storage as Anvil answered them last. And back: the double's
 * own `anvil_dumpState`, written to a file, starts an Anvil (`--load-state`) that answers the same.
 * `safe` and `finalized` on a loaded dump trail the head as Anvil's do (32 and 64 blocks), so the
 * blocks mined after it can be reorganised on both.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { createPublicClient, createTestClient, createWalletClient, http, parseEther } from 'viem'
import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfigFile, withFixtures, DEFAULT_CONFIG_PATH } from '../../src/gateway/config.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { anvilBinary, startAnvil } from '../capture/anvil.ts'
import type { RunningAnvil } from '../capture/anvil.ts'

/** Anvil's first dev account (its well-known test key). */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const
const stranger = '0x000000000000000000000000000000000000beef' as const
/** Init code of a contract whose runtime returns storage slot 1: PUSH1 1 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const INIT: Hex = '0x600b600c600039600b6000f360015460005260206000f3'

let dir: string
let anvil: RunningAnvil | undefined
let server: RunningServer | undefined
/** What Anvil answered last, per account: balance, nonce, code, slots 0..2. */
let seen: Record<string, { balance: bigint; nonce: number; code: Hex | undefined; slots: (Hex | undefined)[] }>
let head: { number: bigint; timestamp: bigint }
let contract: Address

type Reader = ReturnType<typeof createPublicClient>

async function readAccount(client: Reader, address: Address) {
  return {
    balance: await client.getBalance({ address }),
    nonce: await client.getTransactionCount({ address }),
    code: await client.getCode({ address }),
    slots: await Promise.all([0n, 1n, 2n].map((slot) => client.getStorageAt({ address, slot: `0x${slot.toString(16)}` }))),
  }
}

beforeAll(async () => {
  if (anvilBinary() === undefined) return
  dir = mkdtempSync(join(tmpdir(), 'gd-anvil-dump-'))
  anvil = await startAnvil(['--dump-state', join(dir, 'exit'), '--accounts', '3'])
  const transport = http(anvil.url)
  const test = createTestClient({ mode: 'anvil', chain: foundry, transport })
  const client = createPublicClient({ chain: foundry, cacheTime: 0, transport })
  const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEY), chain: foundry, transport })
  const deploy = await wallet.sendTransaction({ data: INIT })
  contract = (await client.waitForTransactionReceipt({ hash: deploy })).contractAddress!
  await test.setStorageAt({ address: contract, index: 1, value: `0x${'00'.repeat(31)}2a` })
  await test.setBalance({ address: stranger, value: parseEther('12.5') })
  await test.setNonce({ address: stranger, nonce: 4 })
  await wallet.sendTransaction({ to: stranger, value: 3n })
  await test.setNextBlockTimestamp({ timestamp: 2_000_000_000n })
  await test.mine({ blocks: 1 })
  await test.mine({ blocks: 2 })
  const block = await client.getBlock()
  head = { number: block.number, timestamp: block.timestamp }
  seen = {}
  for (const a of [contract, stranger, wallet.account.address]) seen[a.toLowerCase()] = await readAccount(client, a)
  writeFileSync(join(dir, 'rpc-dump.hex'), await test.dumpState())
  await anvil.stop()
  anvil = undefined
  server = await startServer({ port: 0, control: true, config: withFixtures(loadConfigFile(DEFAULT_CONFIG_PATH), { exit: join(dir, 'exit'), rpc: join(dir, 'rpc-dump.hex'), tags: join(dir, 'rpc-dump.hex') }) })
}, 60_000)

/** Starts this test's Anvil, stopping the one an earlier test started (afterAll stops the last). */
async function restartAnvil(args: string[]): Promise<RunningAnvil> {
  await anvil?.stop()
  anvil = await startAnvil(args)
  return anvil
}

afterAll(async () => {
  await anvil?.stop()
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(anvilBinary() === undefined)('Anvil state dumps as networks', () => {
  for (const network of ['exit', 'rpc']) {
    it(`serves the dump Anvil wrote (${network === 'exit' ? '--dump-state on exit' : 'anvil_dumpState'}) at its block and time, with every account as Anvil answered`, async () => {
      const client = createPublicClient({ cacheTime: 0, transport: http(server!.urlFor(network), { fetchFn: localhostFetch }) })
      expect(await client.getChainId()).toBe(31337)
      const block = await client.getBlock()
      expect({ number: block.number, timestamp: block.timestamp }).toEqual(head)
      for (const [address, expected] of Object.entries(seen)) expect(await readAccount(client, address as Address), address).toEqual(expected)
      // A one-block chain: the dump carries no earlier state.
      expect(await client.getBlock({ blockNumber: head.number - 1n }).catch((e: Error) => e.name)).toBe('BlockNotFoundError')
      // And it grows like any network: a send from Anvil's dev account, whose key is public.
      const wallet = createWalletClient({ account: privateKeyToAccount(DEV_KEY), chain: { ...foundry, id: 31337 }, transport: http(server!.urlFor(network), { fetchFn: localhostFetch }) })
      const hash = await wallet.sendTransaction({ to: stranger, value: 1n })
      expect((await client.waitForTransactionReceipt({ hash })).blockNumber).toBe(head.number + 1n)
    })
  }

  it('the double’s anvil_dumpState starts an Anvil (--load-state, the JSON un-gzipped) that answers the same', async () => {
    const res = await fetch(`${server!.controlUrl}/rpc/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }) })
    const dump = ((await res.json()) as { result: string }).result
    // Anvil's --load-state reads JSON; anvil_dumpState answers it gzipped, as hex.
    const file = join(dir, 'from-double.json')
    writeFileSync(file, gunzipSync(Buffer.from(dump.slice(2), 'hex')))
    const double = createPublicClient({ cacheTime: 0, transport: http(server!.urlFor('rpc'), { fetchFn: localhostFetch }) })
    const expected: Record<string, unknown> = {}
    for (const a of Object.keys(seen)) expected[a] = await readAccount(double, a as Address)
    anvil = await restartAnvil(['--load-state', file])
    const loaded = createPublicClient({ cacheTime: 0, transport: http(anvil.url) })
    for (const [a, want] of Object.entries(expected)) expect(await readAccount(loaded, a as Address), a).toEqual(want)
    // Its head is the double's head block, header and all (the same hash).
    expect((await loaded.getBlock()).hash).toBe((await double.getBlock()).hash)
  })

  it('safe and finalized trail the head by 32 and 64 blocks as on an Anvil loading the same dump, never before the dump’s block; anvil_reorg replaces blocks mined after it on both', async () => {
    const file = join(dir, 'rpc-dump.json')
    writeFileSync(file, gunzipSync(Buffer.from(readFileSync(join(dir, 'rpc-dump.hex'), 'utf8').slice(2), 'hex')))
    anvil = await restartAnvil(['--load-state', file])
    const endpoints = { anvil: anvil.url, double: `${server!.controlUrl}/rpc/tags` }
    const call = async (url: string, method: string, params: unknown[]) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
      return (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
    }
    const tags = async (url: string) => {
      const number = async (tag: string) => BigInt(((await call(url, 'eth_getBlockByNumber', [tag, false])).result as { number: Hex }).number)
      return { latest: await number('latest'), safe: await number('safe'), finalized: await number('finalized') }
    }
    // Loaded: Anvil names block 0 (it lists the dump's earlier blocks); the double serves none before the dump's.
    expect(await tags(endpoints.anvil)).toEqual({ latest: head.number, safe: 0n, finalized: 0n })
    expect(await tags(endpoints.double)).toEqual({ latest: head.number, safe: head.number, finalized: head.number })
    // Neither replaces the dump's own block: its parent's state is not held.
    expect((await call(endpoints.anvil, 'anvil_reorg', [1, []])).error).toMatchObject({ code: -32603, message: 'Required data unavailable' })
    expect((await call(endpoints.double, 'anvil_reorg', [1, []])).error?.code).toBe(-32602)
    for (const url of Object.values(endpoints)) {
      expect((await call(url, 'anvil_mine', ['0x46'])).error).toBeUndefined()
    }
    const after = { latest: head.number + 70n, safe: head.number + 38n, finalized: head.number + 6n }
    expect(await tags(endpoints.anvil)).toEqual(after)
    expect(await tags(endpoints.double)).toEqual(after)
    // The 32 blocks after safe can be replaced on both; the tags stay. (Anvil would go deeper: the
    // double never replaces a safe block, as a real chain does not.)
    for (const url of Object.values(endpoints)) {
      expect(await call(url, 'anvil_reorg', [32, []]), url).toMatchObject({ result: null })
      expect(await tags(url)).toEqual(after)
    }
    expect((await call(endpoints.double, 'anvil_reorg', [33, []])).error?.code).toBe(-32602)
  })
})
