/**
 * Contracts' `console.log` (hardhat/console.sol, forge-std's console), against the Anvil of the
 * devDependencies: one contract, deployed and called on both with viem through the wire (on the
 * double through `/v3/<key>`), logs with several signatures (a format string, the old `uint`
 * spelling, bytes, an address). The double prints the lines Anvil prints, in order, for a mined
 * transaction and an eth_call (plus those under the old spellings `log(int)` and `log(uint)`, which
 * Anvil 1.7.1 does not decode and Hardhat does), charges the same
 * gas, keeps the lines in the request log entry of the call and of the transaction, and its
 * callTracer shows the call to the console address as geth's would.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createTestClient, createWalletClient, http, parseEther } from 'viem'
import type { Abi, Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { compileContracts } from '../../src/builder/compile.ts'
import { CONSOLE_ADDRESS, consoleLine } from '../../src/encoding/consoleLog.ts'
import { ethereumAccounts } from '../../src/fixtures/index.ts'
import { loadConfigFile, withFixtures, DEFAULT_CONFIG_PATH } from '../../src/gateway/config.ts'
import { startServer } from '../../src/http/server.ts'
import type { RunningServer } from '../../src/http/server.ts'
import { anvilBinary, anvilChain, startAnvil } from '../capture/anvil.ts'
import type { RunningAnvil } from '../capture/anvil.ts'

/** A contract that logs through the console address the way console.sol does (a STATICCALL of the encoded signature). */
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Logs {
    address constant CONSOLE = ${'0x000000000000000000636F6e736F6c652e6c6f67'};
    uint256 public n;
    function _send(bytes memory payload) private view {
        address c = CONSOLE;
        assembly { let r := staticcall(gas(), c, add(payload, 32), mload(payload), 0, 0) }
    }
    function hello(uint256 x) external returns (uint256) {
        _send(abi.encodeWithSignature("log(string,uint256)", "value is %d, twice %s", x));
        _send(abi.encodeWithSignature("log(string)", "plain"));
        _send(abi.encodeWithSignature("log(uint256,bool,address)", x, true, msg.sender));
        _send(abi.encodeWithSignature("log(int)", -int256(x)));
        _send(abi.encodeWithSignature("log(bytes4)", bytes4(0xdeadbeef)));
        _send(abi.encodeWithSignature("log(bytes)", hex"0102"));
        _send(abi.encodeWithSignature("log(string,string)", "a %s b %% c", "X"));
        _send(abi.encodeWithSignature("log(uint)", x + 1));
        n = x;
        return x * 2;
    }
    function look(uint256 x) external view returns (uint256) {
        _send(abi.encodeWithSignature("log(string,uint256)", "look %d", x));
        return x;
    }
}
`

const BIN = fileURLToPath(new URL('../../bin/gateway-double.js', import.meta.url))
const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const
const account = privateKeyToAccount(KEY)

interface Side {
  url: string
  wallet: ReturnType<typeof createWalletClient>
  client: ReturnType<typeof createPublicClient>
  contract: Address
}

let dir: string
let anvil: RunningAnvil | undefined
let server: RunningServer | undefined
const printed: string[] = []
let abi: Abi
let bytecode: Hex
let anvilSide: Side
let doubleSide: Side

async function side(url: string, testUrl: string, chainId: number, bytecode: Hex): Promise<Side> {
  const chain = anvilChain(chainId, url)
  const test = createTestClient({ mode: 'anvil', chain, transport: http(testUrl) })
  await test.setBalance({ address: account.address, value: parseEther('10') })
  const wallet = createWalletClient({ account, chain, transport: http(url) })
  const client = createPublicClient({ chain, transport: http(url), cacheTime: 0 })
  const hash = await wallet.deployContract({ abi, bytecode, account, chain })
  const receipt = await client.waitForTransactionReceipt({ hash })
  return { url, wallet, client, contract: receipt.contractAddress! }
}

beforeAll(async () => {
  if (anvilBinary() === undefined) return
  dir = mkdtempSync(join(tmpdir(), 'gd-console-'))
  writeFileSync(join(dir, 'Logs.sol'), SOURCE)
  const [compiled] = await compileContracts([{ source: 'Logs.sol', contractName: 'Logs', loc: { file: 'Logs.sol' } as never }], dir, 'cancun')
  abi = compiled!.abi as Abi
  bytecode = compiled!.bytecode as Hex
  anvil = await startAnvil(['--hardfork', 'cancun'])
  server = await startServer({
    config: withFixtures(loadConfigFile(DEFAULT_CONFIG_PATH), {}),
    port: 0,
    control: true,
    logger: { error() {}, console: (line) => printed.push(line) },
  })
  const anvilId = Number(await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' }).then((r) => r.json()) as { result: string }).result)
  anvilSide = await side(anvil.url, anvil.url, anvilId, bytecode)
  doubleSide = await side(server.url!, `${server.controlUrl}/rpc/ethereum`, 1, bytecode)
}, 120_000)

afterAll(async () => {
  await anvil?.stop()
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe.runIf(anvilBinary() !== undefined)('console.log from contracts, as Anvil prints it', () => {
  it('prints a mined transaction\'s lines as Anvil does, for the same gas, and keeps them in its request log entry', async () => {
    const results = []
    for (const s of [anvilSide, doubleSide]) {
      printed.length = 0
      const hash = await s.wallet.writeContract({ address: s.contract, abi, functionName: 'hello', args: [7n], account, chain: s.wallet.chain, gas: 200_000n })
      const receipt = await s.client.waitForTransactionReceipt({ hash })
      results.push({ receipt, printed: [...printed], hash })
    }
    const [onAnvil, onDouble] = results
    expect(onDouble!.receipt.status).toBe('success')
    expect(onDouble!.receipt.gasUsed).toBe(onAnvil!.receipt.gasUsed)
    const lines = [
      'value is 7, twice %s',
      'plain',
      `7 true ${account.address}`,
      '-7',
      '0xdeadbeef',
      '0x0102',
      'a X b % c',
      '8',
    ]
    expect(onDouble!.printed).toEqual(lines)
    // Anvil prints the same lines, in order, except those logged under the old spellings
    // log(int) and log(uint), which Anvil 1.7.1 does not decode (Hardhat does).
    const anvilLines = anvil!.output().split('\n')
    let from = 0
    for (const line of lines.filter((l) => l !== '-7' && l !== '8')) {
      const at = anvilLines.indexOf(line, from)
      expect(at, `Anvil printed "${line}"`).toBeGreaterThanOrEqual(0)
      from = at + 1
    }
    const sent = server!.control.requestLog().filter((e) => e.calls[0]?.method === 'eth_sendRawTransaction').at(-1)
    expect(sent?.calls[0]?.console).toEqual(lines)
  })

  it('prints an eth_call\'s lines and keeps them in the call\'s log entry', async () => {
    printed.length = 0
    const since = server!.control.requestLog().at(-1)!.seq
    const answer = await doubleSide.client.readContract({ address: doubleSide.contract, abi, functionName: 'look', args: [5n] })
    expect(answer).toBe(5n)
    expect(printed).toEqual(['look 5'])
    const call = server!.control.requestLog({ since }).find((e) => e.calls[0]?.method === 'eth_call')
    expect(call?.calls[0]?.console).toEqual(['look 5'])
    await anvilSide.client.readContract({ address: anvilSide.contract, abi, functionName: 'look', args: [5n] })
    expect(anvil!.output()).toContain('look 5')
  })

  it('shows the console call in callTracer as a STATICCALL frame, as geth does', async () => {
    const hash = await doubleSide.wallet.writeContract({ address: doubleSide.contract, abi, functionName: 'hello', args: [3n], account, chain: doubleSide.wallet.chain, gas: 200_000n })
    await doubleSide.client.waitForTransactionReceipt({ hash })
    const trace = (await doubleSide.client.request({ method: 'debug_traceTransaction' as never, params: [hash, { tracer: 'callTracer' }] as never })) as { calls?: { type: string; to: string; input: Hex }[] }
    const consoleFrames = trace.calls?.filter((c) => c.to === CONSOLE_ADDRESS) ?? []
    expect(consoleFrames.map((c) => c.type)).toEqual(Array(8).fill('STATICCALL'))
    expect(consoleLine(Buffer.from(consoleFrames[0]!.input.slice(2), 'hex'))).toBe('value is 3, twice %s')
  })
})

describe.runIf(anvilBinary() !== undefined)('the CLI', () => {
  it('prints a mined transaction\'s console.log lines on its standard output, as Anvil does', async () => {
    const child = spawn(process.execPath, [BIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    try {
      await vi.waitFor(() => expect(out).toMatch(/http:\/\/127\.0\.0\.1:\d+\/v3\/\S+/), { timeout: 60_000, interval: 100 })
      const url = /(http:\/\/127\.0\.0\.1:\d+\/v3\/\S+)/.exec(out)![1]!
      const alice = privateKeyToAccount(ethereumAccounts.alice.privateKey as Hex)
      const chain = anvilChain(1, url)
      const wallet = createWalletClient({ account: alice, chain, transport: http(url) })
      const client = createPublicClient({ chain, transport: http(url), cacheTime: 0 })
      const deployed = await client.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode, account: alice, chain }) })
      await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: deployed.contractAddress!, abi, functionName: 'hello', args: [11n], account: alice, chain, gas: 200_000n }) })
      await vi.waitFor(() => expect(out).toContain('\nvalue is 11, twice %s\nplain\n'), { timeout: 10_000, interval: 50 })
    } finally {
      child.kill()
    }
  }, 120_000)
})

describe('consoleLine', () => {
  it('knows the selectors console.sol and forge-std use (canonical and the old uint spelling)', () => {
    // Well-known selectors: log(string) 0x41304fac, log(uint256) 0xf82c50f1, log(uint) 0xf5b1bba9, log(string,uint256) 0xb60e72cc.
    const word = (n: bigint) => n.toString(16).padStart(64, '0')
    expect(consoleLine(Buffer.from(`f82c50f1${word(42n)}`, 'hex'))).toBe('42')
    expect(consoleLine(Buffer.from(`f5b1bba9${word(42n)}`, 'hex'))).toBe('42')
    const hello = Buffer.from('hi %d', 'utf8').toString('hex').padEnd(64, '0')
    expect(consoleLine(Buffer.from(`b60e72cc${word(64n)}${word(9n)}${word(5n)}${hello}`, 'hex'))).toBe('hi 9')
    expect(consoleLine(Buffer.from(`41304fac${word(32n)}${word(5n)}${hello}`, 'hex'))).toBe('hi %d')
  })

  it('ignores what it cannot decode', () => {
    expect(consoleLine(new Uint8Array([1, 2, 3]))).toBeUndefined()
    expect(consoleLine(Buffer.from('deadbeef', 'hex'))).toBeUndefined()
    // log(string) with an offset past the end.
    expect(consoleLine(Buffer.from(`41304fac${'ff'.repeat(32)}`, 'hex'))).toBeUndefined()
  })
})
