/**
 * The README's revert story ("Reproducing a revert"), its capture half: which frame reverted, and
 * with what, captured from Anvil and traced offline.
 *
 * alice deploys the Token (fixtures/sources/contracts/Token.sol) and a Checkout
 * (fixtures/sources/examples/contracts/Checkout.sol) selling for 25 tokens, and gives bob 100
 * tokens; bob calls `buy()` without approving the shop. The token's `transferFrom` reverts with
 * `Error("Token: insufficient allowance")`, the shop catches it and reverts with its own
 * `PaymentFailed(bob, price, reason)`. The README's capture command runs as written (the bin,
 * through bash from the project folder; only Anvil's URL and the output file change), Anvil is
 * stopped, and the double's callTracer trace of the call on the captured source is Anvil's own
 * (but for the top frame's `gas`: geth writes the call's gas limit, Anvil what is left after the
 * intrinsic gas).
 *
 * The capture the README serves is committed as fixtures/sources/examples/checkout.json
 * (+ checkout.capture.json); its trace must be the fresh capture's. `UPDATE_EXAMPLES=1` writes
 * those files from this run (then `UPDATE_README=1 npx vitest run test/http/readme.test.ts`
 * refreshes the README's output).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPublicClient, createWalletClient, decodeErrorResult, decodeFunctionData, http, parseAbi, parseEther } from 'viem'
import type { Abi, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadFixtureOrSource } from '../../src/builder/serveSource.ts'
import { compileContracts } from '../../src/builder/compile.ts'
import { SourceLocation } from '../../src/builder/errors.ts'
import { clientFor } from '../support/rpcClient.ts'
import { anvilBinary, anvilChain, startAnvil } from './anvil.ts'
import type { RunningAnvil } from './anvil.ts'

// Anvil's first two dev accounts (its documented, public test keys).
const ALICE = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const BOB = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CONTRACTS = join(ROOT, 'fixtures/sources/contracts/')
const EXAMPLES = join(ROOT, 'fixtures/sources/examples/contracts/')
/** The committed capture the README serves (relative to the project folder, where the commands run). */
const COMMITTED = 'fixtures/sources/examples/checkout.json'
const UPDATE = process.env.UPDATE_EXAMPLES === '1'
const PRICE = parseEther('25')
const CHECKOUT_ABI = parseAbi(['function buy()', 'error PaymentFailed(address buyer, uint256 price, bytes reason)'])
const TOKEN_ABI = parseAbi(['function transferFrom(address from, address to, uint256 value) returns (bool)', 'error Error(string)'])

interface CallFrame {
  type: string
  from: string
  to: string
  input: string
  output?: string
  error?: string
  revertReason?: string
  gas: string
  gasUsed: string
  value?: string
  calls?: CallFrame[]
}

/** The README's capture command, as written. */
function readmeCaptureCommand(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Reproducing a revert\n')
  expect(start).toBeGreaterThan(0)
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
  const line = section.split('\n').find((l) => l.startsWith('npx gateway-double capture '))
  expect(line).toBeDefined()
  return line!
}

function bash(line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', line], { cwd: ROOT }, (err, stdout, stderr) => (err ? reject(new Error(`${line}\n${stderr}`)) : resolve(stdout)))
  })
}

describe.runIf(anvilBinary() !== undefined)("the README's reverting call: captured from Anvil, traced offline", () => {
  let anvil: RunningAnvil | undefined
  let work: string | undefined
  let call: { from: string; to: string; data: string; gas: string }
  let theirs: CallFrame
  let captured: string
  let tokenAddress: string

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gd-revert-trace-'))
    anvil = await startAnvil()
    const transport = http(anvil.url)
    const pub = createPublicClient({ transport })
    const chain = anvilChain(await pub.getChainId(), anvil.url)
    const alice = createWalletClient({ account: ALICE, chain, transport })
    const loc = new SourceLocation('test')
    const [token] = await compileContracts([{ source: 'Token.sol', contractName: 'Token', loc }], CONTRACTS)
    const [checkout] = await compileContracts([{ source: 'Checkout.sol', contractName: 'Checkout', loc }], EXAMPLES)
    const deploy = async (bytecode: string, abi: unknown[], args: unknown[]) => {
      const hash = await alice.deployContract({ abi: abi as Abi, bytecode: bytecode as Hex, args })
      return (await pub.waitForTransactionReceipt({ hash })).contractAddress!
    }
    tokenAddress = (await deploy(token!.bytecode, token!.abi, [parseEther('1000000')])).toLowerCase()
    const shop = (await deploy(checkout!.bytecode, checkout!.abi, [tokenAddress, PRICE])).toLowerCase()
    const gift = await alice.writeContract({ address: tokenAddress as Hex, abi: token!.abi as Abi, functionName: 'transfer', args: [BOB.address, parseEther('100')] })
    expect((await pub.waitForTransactionReceipt({ hash: gift })).status).toBe('success')

    // The README's command names this call: bob, the shop (alice's second deployment), buy().
    const command = readmeCaptureCommand()
    call = JSON.parse(/--call '([^']+)'/.exec(command)![1]!) as typeof call
    expect(call).toEqual({ from: BOB.address.toLowerCase(), to: shop, data: '0xa6f2ae3a', gas: '0x7a120' })

    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceCall', params: [call, 'latest', { tracer: 'callTracer' }] }),
    })
    theirs = ((await res.json()) as { result: CallFrame }).result

    captured = UPDATE ? COMMITTED : join(work, 'checkout.json')
    const out = await bash(command.replace('http://127.0.0.1:8545', anvil.url).replace('--out checkout.json', `--out ${captured}`))
    expect(out).toContain(captured)
    await anvil.stop()
    anvil = undefined
  }, 180_000)

  afterAll(async () => {
    await anvil?.stop()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const traceOn = async (source: string): Promise<CallFrame> => {
    const client = clientFor(await loadFixtureOrSource(source, 'checkout'))
    const answer = await client.call('debug_traceCall', [call, 'latest', { tracer: 'callTracer' }])
    expect(answer.error).toBeUndefined()
    return answer.result as CallFrame
  }

  it("replayed offline, the double's trace is Anvil's, the top frame's gas geth's (the call's limit)", async () => {
    const ours = await traceOn(captured)
    expect(ours.gas).toBe(call.gas)
    // Anvil: the limit less the intrinsic gas (21,000 and 4 non-zero data bytes at 16).
    expect(BigInt(theirs.gas)).toBe(BigInt(call.gas) - 21_000n - 4n * 16n)
    expect({ ...ours, gas: theirs.gas }).toEqual(theirs)
  })

  it('says which frame reverted and with what: the token refused, the shop reverted with its own error', async () => {
    const trace = await traceOn(captured)
    expect(trace).toMatchObject({ type: 'CALL', from: call.from, to: call.to, error: 'execution reverted' })
    expect(trace.revertReason).toBeUndefined() // a custom error: no text to read
    const inner = trace.calls!
    expect(inner).toHaveLength(1)
    expect(inner[0]).toMatchObject({ type: 'CALL', from: call.to, to: tokenAddress, error: 'execution reverted', revertReason: 'Token: insufficient allowance' })
    const [from, to, value] = decodeFunctionData({ abi: TOKEN_ABI, data: inner[0]!.input as Hex }).args!
    expect([from.toLowerCase(), to.toLowerCase(), value]).toEqual([call.from, call.to, PRICE])
    expect(decodeErrorResult({ abi: TOKEN_ABI, data: inner[0]!.output as Hex }).args).toEqual(['Token: insufficient allowance'])
    const shopError = decodeErrorResult({ abi: CHECKOUT_ABI, data: trace.output as Hex })
    expect(shopError.errorName).toBe('PaymentFailed')
    expect(shopError.args).toEqual([BOB.address, PRICE, inner[0]!.output])
  })

  it.skipIf(UPDATE)(`the committed capture (${COMMITTED}) traces as this one`, async () => {
    expect(await traceOn(COMMITTED)).toEqual(await traceOn(captured))
  })
})
