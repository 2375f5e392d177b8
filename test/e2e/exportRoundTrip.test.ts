/**
 * Export round trip, from where a user stands: a real server (control on); contracts deployed and
 * used with viem through the gateway's `/v3/` URL (a wallet with alice's fixture key) and with
 * `cast send` (the Foundry devDependency): signed with carol's key through the gateway's `/v3/` on
 * the network's own port (cast cannot resolve `*.localhost`), signed with bob's key and
 * `--unlocked` from an impersonated whale through the test endpoint, after `cast rpc anvil_setBalance`;
 * a state edit left on the head; then `gateway-double export` (the CLI, in a child process,
 * against the running server) and a second server started on the export (`--fixture`-style).
 * Every read compared between the two: each block in full with its receipts, logs over the whole
 * range, and balance, nonce, code and storage of every account involved, at every block.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createPublicClient, createWalletClient, encodeAbiParameters, http, keccak256, parseEther } from 'viem'
import type { PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfigFile, withFixtures, DEFAULT_CONFIG_PATH } from '../../src/gateway/config.ts'
import { localhostFetch } from '../../src/http/client.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { postRpc } from '../support/wire.ts'
import { counterAbi, tokenAbi } from './support/abis.ts'
import { alice, bob, carol, counter, HEAD, token } from './support/fixture.ts'

const run = promisify(execFile)
const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))

function castBinary(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@foundry-rs/cast-linux-amd64/package.json')), 'bin', 'cast')
  } catch {
    return undefined
  }
}
const CAST = castBinary()

const whale = '0x0000000000000000000000000000000000077a1e'
let dir: string
let first: RunningServer
let second: RunningServer
let deployed: `0x${string}`

const client = (server: RunningServer): PublicClient =>
  createPublicClient({ chain: mainnet, cacheTime: 0, transport: http(server.urls.ethereum, { fetchFn: localhostFetch }) })

async function raw(server: RunningServer, method: string, params: unknown[]): Promise<unknown> {
  return client(server).request({ method: method as never, params: params as never })
}

/** A JSON-RPC batch on the server's ethereum network; the results (or errors) in order. */
async function readBatch(server: RunningServer, calls: readonly (readonly [string, readonly unknown[]])[]): Promise<unknown[]> {
  const res = await postRpc(server.origin, server.devKey!, calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })))
  expect(res.status).toBe(200)
  return (JSON.parse(res.text) as { result?: unknown; error?: unknown }[]).map((r) => r.result ?? r.error)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gd-export-e2e-'))
  // Each network on a port of its own too: cast reaches /v3/ there (it cannot resolve *.localhost).
  first = await startServer({ port: 0, control: true, networkPorts: 0 })
  const gateway = client(first)
  const wallet = createWalletClient({ account: privateKeyToAccount(alice.privateKey), chain: mainnet, transport: http(first.urls.ethereum, { fetchFn: localhostFetch }) })
  // viem: deploy a second Token (the fixture's own creation code, read back from block 1), use it and the Counter.
  const creation = (await gateway.getTransaction({ blockNumber: 1n, index: 0 })).input
  const deploy = await wallet.sendTransaction({ data: creation })
  deployed = (await gateway.waitForTransactionReceipt({ hash: deploy })).contractAddress!
  await gateway.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: deployed, abi: tokenAbi, functionName: 'transfer', args: [carol.address, parseEther('12')] }) })
  await gateway.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: counter, abi: counterAbi, functionName: 'increment' }) })
}, 60_000)

afterAll(async () => {
  await first?.close()
  await second?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(CAST === undefined)('export round trip: viem and cast, then gateway-double export, then a restart on the export', () => {
  it('cast sends through the gateway (the network’s own port) and the test endpoint: signed with a key, and --unlocked from an impersonated whale', async () => {
    const gatewayUrl = first.portUrls.ethereum!
    expect(gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v3\//)
    const signed = await run(CAST!, ['send', token, 'transfer(address,uint256)', carol.address, '5', '--private-key', carol.privateKey, '--rpc-url', gatewayUrl, '--json'])
    expect(JSON.parse(signed.stdout)).toMatchObject({ status: '0x1', from: carol.address.toLowerCase() })
    const rpcUrl = `${first.controlUrl}/rpc/ethereum`
    await run(CAST!, ['send', token, 'transfer(address,uint256)', carol.address, '7', '--private-key', bob.privateKey, '--rpc-url', rpcUrl])
    await run(CAST!, ['rpc', 'anvil_setBalance', whale, '0x56bc75e2d63100000', '--rpc-url', rpcUrl])
    await run(CAST!, ['rpc', 'anvil_impersonateAccount', whale, '--rpc-url', rpcUrl])
    const sent = await run(CAST!, ['send', '--unlocked', '--from', whale, deployed, 'approve(address,uint256)', bob.address, '99', '--rpc-url', rpcUrl, '--json'])
    expect(JSON.parse(sent.stdout)).toMatchObject({ status: '0x1', from: whale })
    // A state edit on the head, no block after it: the export must carry it.
    await run(CAST!, ['rpc', 'anvil_setStorageAt', deployed, keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [whale, 0n])), '0x' + '00'.repeat(31) + '2a', '--rpc-url', rpcUrl])
    expect(await client(first).readContract({ address: deployed, abi: tokenAbi, functionName: 'balanceOf', args: [whale] })).toBe(42n)
    expect(await client(first).getBlockNumber()).toBe(HEAD + 6n)
  })

  it('gateway-double export writes the fixture folder, and a new server serves it', async () => {
    const out = await run(process.execPath, [BIN, 'export', '--url', first.origin, '--network', 'ethereum', '--out', dir])
    expect(out.stdout).toContain(`Exported network ethereum at block ${HEAD + 6n} to ${dir}`)
    expect(readdirSync(dir).sort()).toEqual(['accounts.json', 'chain.rlp', 'edits.json', 'forkchoice.json', 'genesis.json'])
    second = await startServer({ port: 0, config: withFixtures(loadConfigFile(DEFAULT_CONFIG_PATH), { ethereum: dir }) })
    expect(await client(second).getBlockNumber()).toBe(HEAD + 6n)
  })

  it('serves every block, receipt and log identically', async () => {
    for (let n = 0n; n <= HEAD + 6n; n++) {
      const block = ['0x' + n.toString(16), true]
      expect(await raw(second, 'eth_getBlockByNumber', block)).toEqual(await raw(first, 'eth_getBlockByNumber', block))
      expect(await raw(second, 'eth_getBlockReceipts', ['0x' + n.toString(16)])).toEqual(await raw(first, 'eth_getBlockReceipts', ['0x' + n.toString(16)]))
    }
    const logs = [{ fromBlock: '0x0', toBlock: 'latest' }]
    expect(await raw(second, 'eth_getLogs', logs)).toEqual(await raw(first, 'eth_getLogs', logs))
    expect(((await raw(second, 'eth_getLogs', logs)) as unknown[]).length).toBeGreaterThan(10)
  })

  it('serves every account’s balance, nonce, code and storage identically at every block, the head’s edit included', async () => {
    const accounts = [alice.address, bob.address, carol.address, whale, token, deployed, counter]
    const slots = ['0x0', ...[alice.address, bob.address, carol.address, whale].map((a) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [a as `0x${string}`, 0n])))]
    for (let n = 0n; n <= HEAD + 6n; n++) {
      const at = '0x' + n.toString(16)
      // One batch per block: every read of every account at that block.
      const batch = accounts.flatMap((a) => [
        ...['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'].map((method) => [method, [a, at]] as const),
        ...slots.map((slot) => ['eth_getStorageAt', [a, slot, at]] as const),
      ])
      const answers = await Promise.all([first, second].map((server) => readBatch(server, batch)))
      expect(answers[1], `block ${n}`).toEqual(answers[0])
    }
    expect(await client(second).readContract({ address: deployed, abi: tokenAbi, functionName: 'balanceOf', args: [whale] })).toBe(42n)
    expect(await client(second).readContract({ address: deployed, abi: tokenAbi, functionName: 'allowance', args: [whale, bob.address] })).toBe(99n)
  })

  it('goes on from the export: the next block builds on the edited head', async () => {
    const wallet = (server: RunningServer) => createWalletClient({ account: privateKeyToAccount(carol.privateKey), chain: mainnet, transport: http(server.urls.ethereum, { fetchFn: localhostFetch }) })
    await wallet(second).sendTransaction({ to: bob.address, value: 1n })
    expect(await client(second).getBlockNumber()).toBe(HEAD + 7n)
    expect(await client(second).readContract({ address: deployed, abi: tokenAbi, functionName: 'balanceOf', args: [whale] })).toBe(42n)
  })
})
