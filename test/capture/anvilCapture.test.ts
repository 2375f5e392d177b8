/**
 * Capture from a real node, replay offline. Anvil runs on 127.0.0.1; the Token and Reverter
 * contracts are compiled with solc-js and deployed by real signed transactions (viem), then five
 * scenarios are captured, each both ways (the prestate tracer, and eth_createAccessList +
 * eth_getProof): an ERC-20 transfer (a mined transaction), a require with a reason (a mined
 * transaction that failed), a custom error with arguments, a Panic and a call out of gas at a
 * given limit (calls). Anvil is stopped, and each capture is replayed through the gateway: the
 * same eth_estimateGas error code and data as the node, geth's message, and an estimate within
 * geth's 1.5% of the node's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEther } from 'viem'
import type { Abi, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContracts } from '../../src/builder/compile.ts'
import { SourceLocation } from '../../src/builder/errors.ts'
import { capture } from '../../src/capture/capture.ts'
import type { CaptureRecord, PrestateSource } from '../../src/capture/capture.ts'
import type { CallJson } from '../../src/capture/nodeShapes.ts'
import { writeCapture } from '../../src/capture/captureCommand.ts'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { clientFor } from '../support/rpcClient.ts'
import type { RpcResponseJson } from '../support/rpcClient.ts'
import { anvilBinary, anvilChain, startAnvil } from './anvil.ts'
import type { RunningAnvil } from './anvil.ts'

// Anvil's first two dev accounts (its documented, public test keys).
const ALICE = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const BOB = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const CONTRACTS = new URL('../../fixtures/sources/contracts/', import.meta.url).pathname

interface Scenario {
  name: string
  /** What to capture: a mined transaction, or a call at the latest block. */
  target: { tx: Hex } | { call: CallJson }
  /** geth's message for the outcome (undefined: a success). */
  gethMessage?: string
  /**
   * Where Anvil's error code is not geth's: out of gas at the bound is -32003 on Anvil and -32000
   * on geth (`gas required exceeds allowance (N)`, no data on either). The double keeps geth's.
   */
  codes?: { anvil: number; geth: number }
}

interface NodeOutcome {
  call: CallJson
  block: string
  answer: RpcResponseJson
}

describe.runIf(anvilBinary() !== undefined)('capture from Anvil, replay offline', () => {
  let anvil: RunningAnvil | undefined
  let work: string
  const scenarios: Scenario[] = []
  /** The node's eth_estimateGas answer for each scenario's call at its block, asked here directly. */
  const node = new Map<string, NodeOutcome>()
  /** Fixture folders by scenario and prestate source. */
  const captured = new Map<string, { dir: string; record: CaptureRecord }>()

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gd-capture-'))
    anvil = await startAnvil()
    const transport = http(anvil.url)
    const pub = createPublicClient({ transport })
    const chain = anvilChain(await pub.getChainId(), anvil.url)
    const alice = createWalletClient({ account: ALICE, chain, transport })
    const bob = createWalletClient({ account: BOB, chain, transport })

    const loc = new SourceLocation('test')
    const [token, reverter] = await compileContracts(
      [
        { source: 'Token.sol', contractName: 'Token', loc },
        { source: 'Reverter.sol', contractName: 'Reverter', loc },
      ],
      CONTRACTS,
    )
    const deploy = async (bytecode: string, abi: unknown[], args: unknown[]) => {
      const hash = await alice.deployContract({ abi: abi as Abi, bytecode: bytecode as Hex, args })
      const receipt = await pub.waitForTransactionReceipt({ hash })
      return receipt.contractAddress!
    }
    const tokenAddress = await deploy(token!.bytecode, token!.abi, [parseEther('1000000')])
    const reverterAddress = await deploy(reverter!.bytecode, reverter!.abi, [])
    const tokenAbi = token!.abi as Abi
    const reverterAbi = reverter!.abi as Abi

    // 1. A successful ERC-20 transfer, mined.
    const transfer = await alice.writeContract({ address: tokenAddress, abi: tokenAbi, functionName: 'transfer', args: [BOB.address, parseEther('250')] })
    expect((await pub.waitForTransactionReceipt({ hash: transfer })).status).toBe('success')
    scenarios.push({ name: 'ERC-20 transfer', target: { tx: transfer } })

    // 2. A require with a reason: bob sends more tokens than he holds, with a gas limit so the
    // transaction is mined (and fails) instead of being refused by viem's estimate.
    const overdraft = await bob.sendTransaction({
      to: tokenAddress,
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [ALICE.address, parseEther('1000')] }),
      gas: 100_000n,
    })
    expect((await pub.waitForTransactionReceipt({ hash: overdraft })).status).toBe('reverted')
    scenarios.push({ name: 'require with a reason', target: { tx: overdraft }, gethMessage: 'execution reverted: Token: transfer amount exceeds balance' })

    // 3-5. Calls at the latest block.
    const callTo = (abi: Abi, functionName: string, args: unknown[], extra: Record<string, string> = {}): CallJson => ({
      from: BOB.address.toLowerCase(),
      to: reverterAddress.toLowerCase(),
      data: encodeFunctionData({ abi, functionName, args }),
      ...extra,
    })
    scenarios.push({ name: 'custom error with arguments', target: { call: callTo(reverterAbi, 'revertWithCustomError', [7n, 9n]) }, gethMessage: 'execution reverted' })
    scenarios.push({ name: 'Panic', target: { call: callTo(reverterAbi, 'divide', [0n]) }, gethMessage: 'execution reverted: division or modulo by zero' })
    scenarios.push({ name: 'out of gas at a given limit', target: { call: callTo(reverterAbi, 'burn', [100_000n], { gas: '0x186a0' }) }, gethMessage: 'gas required exceeds allowance (100000)', codes: { anvil: -32003, geth: -32000 } })

    for (const s of scenarios) {
      for (const prestate of ['trace', 'proofs'] as PrestateSource[]) {
        const result = await capture({ rpc: anvil.url, ...s.target, prestate, network: 'replay' })
        const dir = join(work, `${scenarios.indexOf(s)}-${prestate}`)
        await writeCapture(result, dir)
        captured.set(`${s.name}/${prestate}`, { dir, record: result.record })
      }
      // The node's answer, asked directly (not through capture): the call at the block it runs at.
      const { record } = captured.get(`${s.name}/trace`)!
      const block = `0x${record.block.number.toString(16)}`
      const res = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_estimateGas', params: [record.call, block] }),
      })
      node.set(s.name, { call: record.call, block, answer: (await res.json()) as RpcResponseJson })
    }
    await anvil.stop()
    anvil = undefined
  }, 120_000)

  afterAll(async () => {
    await anvil?.stop()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('captured five scenarios, each both ways', () => {
    expect(scenarios.map((s) => s.name)).toEqual(['ERC-20 transfer', 'require with a reason', 'custom error with arguments', 'Panic', 'out of gas at a given limit'])
    expect(captured.size).toBe(10)
    expect(captured.get('Panic/trace')!.record.prestate).toBe('debug_traceCall prestateTracer')
    expect(captured.get('ERC-20 transfer/trace')!.record.prestate).toBe('debug_traceTransaction prestateTracer')
    expect(captured.get('ERC-20 transfer/proofs')!.record.prestate).toBe('eth_createAccessList + eth_getProof')
    expect(captured.get('Panic/proofs')!.record.prestate).toMatch(/eth_getProof/)
  })

  for (const prestate of ['trace', 'proofs'] as const) {
    describe(`replayed offline (${prestate === 'trace' ? 'prestate tracer' : 'access list + proofs'})`, () => {
      it.each(['ERC-20 transfer', 'require with a reason', 'custom error with arguments', 'Panic', 'out of gas at a given limit'])('%s: the node\'s eth_estimateGas outcome', async (name) => {
        const scenario = scenarios.find((s) => s.name === name)!
        const { dir, record } = captured.get(`${name}/${prestate}`)!
        const { answer } = node.get(name)!
        const client = clientFor(await loadFixture(dir, { name: 'replay', cache: false }))
        // The fixture stands at the captured block.
        expect((await client.call('eth_blockNumber')).result).toBe(`0x${record.block.number.toString(16)}`)
        const ours = await client.post(JSON.stringify(record.request))
        if (scenario.gethMessage === undefined) {
          expect(answer.error).toBeUndefined()
          expect(ours.error).toBeUndefined()
          const theirs = BigInt(answer.result as string)
          const mine = BigInt(ours.result as string)
          const diff = mine > theirs ? mine - theirs : theirs - mine
          expect(Number(diff) / Number(theirs)).toBeLessThanOrEqual(0.015)
        } else {
          expect(answer.error).toBeDefined()
          if (scenario.codes === undefined) {
            expect(ours.error!.code).toBe(answer.error!.code)
          } else {
            expect(answer.error!.code).toBe(scenario.codes.anvil)
            expect(answer.error!.message).toMatch(/gas required exceeds allowance/)
            expect(ours.error!.code).toBe(scenario.codes.geth)
          }
          expect(ours.error!.data).toEqual(answer.error!.data)
          expect(ours.error!.message).toBe(scenario.gethMessage)
        }
        // What the capture recorded of the node is what the node answers.
        expect(record.node.eth_estimateGas).toEqual(answer.error === undefined ? { result: answer.result } : { error: answer.error })
      })
    })
  }

  it('writes the files a user replays from: source.json and capture.json beside the fixture', () => {
    const { dir } = captured.get('Panic/trace')!
    const record = JSON.parse(readFileSync(join(dir, 'capture.json'), 'utf8')) as CaptureRecord
    expect(record.replay!.curl).toContain(`-d '${JSON.stringify(record.request)}'`)
    expect(record.replay!.curl).toContain("-H 'Host: replay-mainnet.localhost'")
    const source = JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8')) as { genesis: { number: number }; accounts: Record<string, unknown> }
    expect(source.genesis.number).toBe(record.block.number)
    expect(Object.keys(source.accounts)).toContain('target')
  })
})
