/**
 * The test endpoint's methods through a plain JSON-RPC client (`fetch` to
 * `POST /_double/rpc/<network>` of a real server), as a Hardhat-style suite calls them: the
 * `hardhat_*` aliases, `evm_*`, and the `anvil_*` methods viem's test client does not cover here;
 * their answers (Anvil's shapes), their refusals (-32602 naming the argument), and what the
 * gateway's own `/v3/` path then serves. Also: the endpoint's HTTP edges (unknown network, body
 * limit, batches in order), interval mining on a real timer, and the export route.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { logPosition, startControlServer } from '../e2e/support/control.ts'
import type { ControlServer } from '../e2e/support/control.ts'
import { alice, bob, HEAD, token } from '../e2e/support/fixture.ts'
import { postRpc } from '../support/wire.ts'

let server: ControlServer
let start: string

/** One call on the test endpoint: its `result`, or throws the JSON-RPC error as `code message`. */
async function dev(method: string, params: unknown[] = [], network = 'ethereum'): Promise<any> {
  const res = await fetch(`${server.controlUrl}/rpc/${network}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
  if (body.error) throw new Error(`${body.error.code} ${body.error.message}`)
  return body.result
}

/** The same call on the gateway's path (`/v3/<dev key>`). */
async function gw(method: string, params: unknown[] = []): Promise<any> {
  const res = await postRpc(server.origin, server.devKey, { jsonrpc: '2.0', id: 1, method, params })
  const body = JSON.parse(res.text)
  if (body.error) throw new Error(`${body.error.code} ${body.error.message}`)
  return body.result
}

const whale = '0x00000000000000000000000000000000000b1e55'
const hex = (n: bigint) => `0x${n.toString(16)}`
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`

beforeAll(async () => {
  server = await startControlServer()
  start = await dev('evm_snapshot')
})
afterAll(async () => {
  await server.close()
})
beforeEach(async () => {
  // Back to the start, and a new snapshot for the next test (a revert forgets the one it used).
  expect(await dev('evm_revert', [start])).toBe(true)
  start = await dev('evm_snapshot')
})

describe('Hardhat-style aliases through a plain JSON-RPC client', () => {
  it('hardhat_setBalance, hardhat_setNonce, hardhat_setCode, hardhat_setStorageAt: answered as Anvil answers, served by /v3/', async () => {
    expect(await dev('hardhat_setBalance', [whale, '0xde0b6b3a7640000'])).toBeNull()
    expect(await dev('hardhat_setNonce', [whale, '0x7'])).toBeNull()
    expect(await dev('hardhat_setCode', [whale, '0x60016000526001601ff3'])).toBeNull()
    expect(await dev('hardhat_setStorageAt', [whale, '0x2', word(0xabcdn)])).toBe(true)
    expect(await gw('eth_getBalance', [whale, 'latest'])).toBe('0xde0b6b3a7640000')
    expect(await gw('eth_getTransactionCount', [whale, 'latest'])).toBe('0x7')
    expect(await gw('eth_getCode', [whale, 'latest'])).toBe('0x60016000526001601ff3')
    expect(await gw('eth_getStorageAt', [whale, '0x2', 'latest'])).toBe(word(0xabcdn))
    // The head's number reads them too (they are the head's state), and calls run on them.
    expect(await gw('eth_getBalance', [whale, hex(HEAD)])).toBe('0xde0b6b3a7640000')
    expect(await gw('eth_call', [{ to: whale }, 'latest'])).toBe('0x01')
    expect(await gw('eth_blockNumber')).toBe(hex(HEAD))
  })

  it('the next block builds on the edits: its state root includes them, and reads of the old head keep them', async () => {
    const root = (await gw('eth_getBlockByNumber', ['latest', false])).stateRoot
    await dev('anvil_setBalance', [whale, '0x5'])
    expect((await gw('eth_getBlockByNumber', ['latest', false])).stateRoot).toBe(root)
    await dev('evm_mine')
    const mined = await gw('eth_getBlockByNumber', ['latest', false])
    expect(mined.stateRoot).not.toBe(root)
    expect(await gw('eth_getBalance', [whale, hex(HEAD + 1n)])).toBe('0x5')
    expect(await gw('eth_getBalance', [whale, hex(HEAD)])).toBe('0x5')
  })

  it('hardhat_impersonateAccount, eth_sendTransaction with the fields filled in as geth fills them, hardhat_stopImpersonatingAccount', async () => {
    await dev('hardhat_setBalance', [whale, '0xde0b6b3a7640000'])
    expect(await dev('eth_accounts')).toEqual([])
    await dev('hardhat_impersonateAccount', [whale])
    expect(await dev('eth_accounts')).toEqual([whale])
    const tip = await gw('eth_maxPriorityFeePerGas')
    const baseFee = BigInt((await gw('eth_getBlockByNumber', ['latest', false])).baseFeePerGas)
    const hash = await dev('eth_sendTransaction', [{ from: whale, to: bob.address, value: '0x3' }])
    const tx = await gw('eth_getTransactionByHash', [hash])
    expect(tx).toMatchObject({ from: whale, to: bob.address, value: '0x3', nonce: '0x0', gas: '0x5208', type: '0x2', maxPriorityFeePerGas: tip, blockNumber: hex(HEAD + 1n) })
    expect(BigInt(tx.maxFeePerGas)).toBe(BigInt(tip) + 2n * baseFee)
    expect((await gw('eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    // A legacy send with gasPrice, and a contract creation whose gas is estimated.
    const legacy = await dev('eth_sendTransaction', [{ from: whale, to: bob.address, gasPrice: '0x3b9aca00' }])
    expect(await gw('eth_getTransactionByHash', [legacy])).toMatchObject({ type: '0x0', nonce: '0x1', gasPrice: '0x3b9aca00' })
    const create = await dev('eth_sendTransaction', [{ from: whale, data: '0x600a600c600039600a6000f3602a60005260206000f3' }])
    const receipt = await gw('eth_getTransactionReceipt', [create])
    expect(receipt.status).toBe('0x1')
    expect(await gw('eth_call', [{ to: receipt.contractAddress }, 'latest'])).toBe(word(42n))

    // A tracer replays the block on the state it executed on (the parent's, with its edits) and the impersonated sender.
    const trace = await gw('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(trace).toMatchObject({ type: 'CALL', from: whale, to: bob.address, value: '0x3' })
    expect(trace.error).toBeUndefined()

    await dev('hardhat_stopImpersonatingAccount', [whale])
    await expect(dev('eth_sendTransaction', [{ from: whale, to: bob.address }])).rejects.toThrow('-32602 No Signer available')
    await expect(dev('eth_sendTransaction', [{ to: bob.address }])).rejects.toThrow('-32602 No Signer available')
    // eth_sendUnsignedTransaction sends from anyone; auto-impersonation makes every account sendable.
    await dev('eth_sendUnsignedTransaction', [{ from: whale, to: bob.address }])
    await dev('anvil_autoImpersonateAccount', [true])
    await dev('eth_sendTransaction', [{ from: whale, to: bob.address }])
    expect(await gw('eth_getTransactionCount', [whale, 'latest'])).toBe('0x5')
  })

  it('eth_sendTransaction answers geth’s pool and estimate errors', async () => {
    await dev('anvil_impersonateAccount', [whale])
    await expect(dev('eth_sendTransaction', [{ from: whale, to: bob.address, value: '0x1' }])).rejects.toThrow(/^-32000 insufficient funds/)
    await dev('anvil_setBalance', [whale, '0xde0b6b3a7640000'])
    await expect(dev('eth_sendTransaction', [{ from: whale, to: bob.address, nonce: '0x3' }])).resolves.toMatch(/^0x/)
    // A nonce gap waits in the pool, as geth queues it.
    expect(await gw('eth_getTransactionCount', [whale, 'pending'])).toBe('0x0')
    await expect(dev('eth_sendTransaction', [{ from: whale, to: bob.address, chainId: '0x5' }])).rejects.toThrow("-32000 chainId does not match node's (have=5, want=1)")
    await expect(dev('eth_sendTransaction', [{ from: whale, to: token, data: '0xdeadbeef' }])).rejects.toThrow(/^3 execution reverted/)
  })

  it('hardhat_mine mines count blocks at an interval; evm_mine takes a timestamp; anvil_setTime and the timestamp interval', async () => {
    const t0 = BigInt((await gw('eth_getBlockByNumber', ['latest', false])).timestamp)
    expect(await dev('hardhat_mine', ['0x3', '0x3c'])).toBeNull()
    const stamps = await Promise.all([1n, 2n, 3n].map(async (i) => BigInt((await gw('eth_getBlockByNumber', [hex(HEAD + i), false])).timestamp)))
    expect(stamps[1]! - stamps[0]!).toBe(60n)
    expect(stamps[2]! - stamps[1]!).toBe(60n)
    expect(await dev('evm_mine', [Number(stamps[2]! + 1000n)])).toBe('0x0')
    expect(BigInt((await gw('eth_getBlockByNumber', ['latest', false])).timestamp)).toBe(stamps[2]! + 1000n)
    await expect(dev('evm_mine', [Number(t0)])).rejects.toThrow(`-32602 Timestamp error: ${t0} is lower than or equal to previous block's timestamp`)
    await dev('anvil_setBlockTimestampInterval', [7])
    await dev('evm_mine', [{ blocks: 2 }])
    const last = BigInt((await gw('eth_getBlockByNumber', ['latest', false])).timestamp)
    expect(last).toBe(stamps[2]! + 1000n + 14n)
    expect(await dev('anvil_removeBlockTimestampInterval')).toBe(true)
    expect(await dev('anvil_removeBlockTimestampInterval')).toBe(false)
    const future = Number(last) + 10 * 365 * 86_400
    expect(await dev('anvil_setTime', [future])).toBeGreaterThan(0)
    await dev('evm_mine')
    expect(BigInt((await gw('eth_getBlockByNumber', ['latest', false])).timestamp) - BigInt(future)).toBeLessThan(60n)
    expect(await dev('evm_increaseTime', ['0x10'])).toBeGreaterThan(16)
  })

  it('anvil_setCoinbase, evm_setBlockGasLimit, anvil_setNextBlockBaseFeePerGas shape the next blocks', async () => {
    const coinbase = '0x000000000000000000000000000000000000c0b1'
    await dev('hardhat_setCoinbase', [coinbase])
    expect(await dev('evm_setBlockGasLimit', ['0x2000000'])).toBe(true)
    await dev('anvil_setNextBlockBaseFeePerGas', ['0x1000'])
    await dev('evm_mine')
    const block = await gw('eth_getBlockByNumber', ['latest', false])
    expect(block).toMatchObject({ miner: coinbase, gasLimit: '0x2000000', baseFeePerGas: '0x1000' })
    // Then EIP-1559 goes on from it: an empty block lowers it by an eighth.
    await dev('evm_mine')
    expect((await gw('eth_getBlockByNumber', ['latest', false])).baseFeePerGas).toBe('0xe00')
  })

  it('automine and the pool: evm_setAutomine, anvil_dropTransaction, hardhat_getAutomine', async () => {
    await dev('anvil_setBalance', [whale, '0xde0b6b3a7640000'])
    await dev('anvil_impersonateAccount', [whale])
    expect(await dev('hardhat_getAutomine')).toBe(true)
    await dev('evm_setAutomine', [false])
    expect(await dev('anvil_getAutomine')).toBe(false)
    const hash = await dev('eth_sendTransaction', [{ from: whale, to: bob.address }])
    expect(await gw('eth_getTransactionByHash', [hash])).toMatchObject({ blockNumber: null })
    expect(await dev('anvil_dropTransaction', [hash])).toBeNull()
    expect(await gw('eth_getTransactionByHash', [hash])).toBeNull()
    expect(server.control.network('ethereum')).toMatchObject({ miningMode: 'manual', pending: 0 })
  })

  it('anvil_reset: back to the chain as loaded, impersonation and numbered snapshots forgotten', async () => {
    await dev('anvil_impersonateAccount', [whale])
    await dev('anvil_mine', [4])
    const snap = await dev('evm_snapshot')
    expect(await dev('hardhat_reset')).toBeNull()
    expect(await gw('eth_blockNumber')).toBe(hex(HEAD))
    expect(await dev('eth_accounts')).toEqual([])
    expect(await dev('evm_revert', [snap])).toBe(false)
    // Forking needs a URL on a network that is no fork (as Anvil); one that does not answer changes nothing.
    await expect(dev('anvil_reset', [{ forking: {} }])).rejects.toThrow('-32602 Forking not enabled and RPC URL not provided to start forking')
    await expect(dev('anvil_reset', [{ forking: { jsonRpcUrl: 'http://example.invalid' } }])).rejects.toThrow(/^-32000 anvil_reset: fork ethereum: fork upstream http:\/\/example\.invalid: eth_chainId: cannot reach it/)
    await expect(dev('anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:9', blockNumber: 'soon' } }])).rejects.toThrow(/^-32602 forking\.blockNumber: not a number/)
    expect(await gw('eth_blockNumber')).toBe(hex(HEAD))
    expect(await gw('eth_chainId')).toBe('0x1')
    // The snapshot the suite reverts to was forgotten too: take it again.
    start = await dev('evm_snapshot')
  })

  it('refuses bad arguments with -32602 naming the position, and unsupported methods plainly', async () => {
    await expect(dev('anvil_setBalance', ['0x12', '0x1'])).rejects.toThrow('-32602 invalid argument 0: hex string has length 2, want 40 for common.Address')
    await expect(dev('anvil_setBalance', [whale, 'lots'])).rejects.toThrow(/^-32602 invalid argument 1: not a number/)
    await expect(dev('anvil_setStorageAt', [whale, '0x1', '0x05'])).rejects.toThrow(/^-32602 invalid argument 2: a storage value must be 32 bytes/)
    await expect(dev('anvil_setCode', [whale, '0x123'])).rejects.toThrow(/^-32602 invalid argument 1: not 0x bytes/)
    await expect(dev('evm_setAutomine', ['yes'])).rejects.toThrow(/^-32602 invalid argument 0: not a boolean/)
    await expect(dev('anvil_mine', [20_000])).rejects.toThrow('-32602 at most 10000 blocks per call, got 20000')
    await expect(dev('anvil_setMinGasPrice', ['0x1'])).rejects.toThrow('-32602 anvil_setMinGasPrice is not supported when EIP-1559 is active')
    await expect(dev('anvil_loadState', ['0x00'])).rejects.toThrow(/^-32602 Failed to decode state dump/)
    await expect(dev('anvil_enableTraces')).rejects.toThrow('-32601 The method anvil_enableTraces does not exist/is not available')
    expect(await gw('eth_blockNumber')).toBe(hex(HEAD))
  })
})

describe('the endpoint', () => {
  it('answers the ordinary methods as /v3/ does, batches in order, a parse error as JSON-RPC, an unknown network 404', async () => {
    expect(await dev('eth_getStorageAt', [token, '0x0', 'latest'])).toBe(await gw('eth_getStorageAt', [token, '0x0', 'latest']))
    const position = logPosition(server)
    const batch = await fetch(`${server.controlUrl}/rpc/ethereum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [whale, '0x9'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [whale, 'latest'] },
        { jsonrpc: '2.0', id: 3, method: 'evm_mine', params: [] },
        { jsonrpc: '2.0', id: 4, method: 'eth_blockNumber', params: [] },
      ]),
    })
    // As Anvil's and the gateway's: no charset.
    expect(batch.headers.get('content-type')).toBe('application/json')
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', id: 2, result: '0x9' },
      { jsonrpc: '2.0', id: 3, result: '0x0' },
      { jsonrpc: '2.0', id: 4, result: hex(HEAD + 1n) },
    ])
    const bad = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' })
    expect(bad.status).toBe(200)
    expect(await bad.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
    const unknown = await fetch(`${server.controlUrl}/rpc/optimism`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ error: { message: 'unknown network "optimism"' } })
    const big = await fetch(`${server.controlUrl}/rpc/ethereum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(33 * 1024 * 1024, 0x20) })
    expect(big.status).toBe(413)
    expect(await big.json()).toEqual({ error: { message: 'body: too large (limit 32 MiB)' } })
    // None of it reached the request log (the hosted service's traffic only).
    expect(logPosition(server)).toBe(position)
  })

  it('interval mining: a block per period on a real timer, visible in the network info, stopped by automine', async () => {
    expect(await dev('evm_setIntervalMining', [1])).toBeNull()
    expect(await dev('anvil_getIntervalMining')).toBe(1)
    expect(await dev('anvil_getAutomine')).toBe(false)
    expect(server.control.network('ethereum')).toMatchObject({ miningMode: 'manual', intervalSeconds: 1 })
    const from = BigInt(await gw('eth_blockNumber'))
    for (let i = 0; i < 200 && BigInt(await gw('eth_blockNumber')) < from + 2n; i++) await new Promise((r) => setTimeout(r, 50))
    expect(BigInt(await gw('eth_blockNumber'))).toBeGreaterThanOrEqual(from + 2n)
    await dev('evm_setAutomine', [true])
    expect(server.control.network('ethereum')).toMatchObject({ miningMode: 'auto', intervalSeconds: null })
    expect(await dev('anvil_getIntervalMining')).toBeNull()
  })

  it('exports the network as a fixture folder over GET /_double/networks/:name/export', async () => {
    await dev('anvil_setBalance', [whale, '0x1'])
    await dev('evm_mine')
    const res = await fetch(`${server.controlUrl}/networks/ethereum/export`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { network: string; headNumber: number; encoding: string; files: Record<string, string> }
    expect(body).toMatchObject({ network: 'ethereum', headNumber: Number(HEAD) + 1, encoding: 'base64' })
    expect(Object.keys(body.files).sort()).toEqual(['accounts.json', 'chain.rlp', 'edits.json', 'forkchoice.json', 'genesis.json'])
    const edits = JSON.parse(Buffer.from(body.files['edits.json']!, 'base64').toString())
    expect(edits.state).toEqual([{ after: Number(HEAD), stateRoot: expect.stringMatching(/^0x[0-9a-f]{64}$/), edits: [{ address: whale, balance: '0x1' }] }])
    expect((await fetch(`${server.controlUrl}/networks/optimism/export`)).status).toBe(404)
  })

  it('alice’s signed sends and impersonated ones share the pool and its nonces', async () => {
    await dev('anvil_impersonateAccount', [alice.address])
    const nonce = await gw('eth_getTransactionCount', [alice.address, 'latest'])
    const hash = await dev('eth_sendTransaction', [{ from: alice.address, to: bob.address, value: '0x1' }])
    expect(await gw('eth_getTransactionByHash', [hash])).toMatchObject({ nonce })
  })
})
