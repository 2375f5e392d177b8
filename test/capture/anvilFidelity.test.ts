/**
 * Two captured scenarios where the replay must answer as geth does, captured from a real node
 * (Anvil) both ways (the prestate tracer, and the access list with proofs):
 *
 * - `blockhash(block.number - 1)`: the fixture's first block is the captured one, whose parent is
 *   not in the fixture; its header holds the parent's hash, which geth's BLOCKHASH answers (it
 *   never fails), so the replay answers it too.
 * - a call whose value the sender cannot afford: the node refuses to trace it (and to make its
 *   access list), so capture reads the sender and the recipient, and the replay answers geth's
 *   insufficient-funds errors (where Anvil words them its own way, and even estimates 21000:
 *   geth's buyGas refuses a value above the balance even when the call pays no fee).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { toChecksumAddress } from '@ethereumjs/util'
import { createPublicClient, createWalletClient, http } from 'viem'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const UNFUNDED = '0x00000000000000000000000000000000000f00d1'
/** Init code of a contract whose code returns `blockhash(block.number - 1)`. */
const BLOCKHASH_PARENT_INIT = '0x6c600143034060005260206000f3600052600d6013f3'
const SOURCES: PrestateSource[] = ['trace', 'proofs']

describe.runIf(anvilBinary() !== undefined)('captured from Anvil, answered as geth answers', () => {
  let anvil: RunningAnvil | undefined
  let work: string
  const captured = new Map<string, { dir: string; record: CaptureRecord }>()
  const node = new Map<string, { call: RpcResponseJson; parentHash: string }>()

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gd-fidelity-'))
    anvil = await startAnvil()
    const transport = http(anvil.url)
    const pub = createPublicClient({ transport })
    const chain = anvilChain(await pub.getChainId(), anvil.url)
    const alice = createWalletClient({ account: ALICE, chain, transport })
    const hash = await alice.sendTransaction({ data: BLOCKHASH_PARENT_INIT as Hex })
    const contract = (await pub.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase()
    await pub.request({ method: 'anvil_mine' as never, params: ['0x3'] as never })

    const calls: Record<string, CallJson> = {
      blockhash: { from: ALICE.address.toLowerCase(), to: contract },
      unaffordable: { from: UNFUNDED, to: BOB, value: '0xde0b6b3a7640000' },
    }
    for (const [name, call] of Object.entries(calls)) {
      for (const prestate of SOURCES) {
        const result = await capture({ rpc: anvil.url, call, prestate, network: 'replay' })
        const dir = join(work, `${name}-${prestate}`)
        await writeCapture(result, dir)
        captured.set(`${name}/${prestate}`, { dir, record: result.record })
      }
      const { record } = captured.get(`${name}/trace`)!
      const at = `0x${record.block.number.toString(16)}`
      const ask = async (method: string, params: unknown[]) =>
        (await (await fetch(anvil!.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as RpcResponseJson
      const block = (await ask('eth_getBlockByNumber', [at, false])).result as { parentHash: string }
      node.set(name, { call: await ask('eth_call', [call, at]), parentHash: block.parentHash })
    }
    await anvil.stop()
    anvil = undefined
  }, 120_000)

  afterAll(async () => {
    await anvil?.stop()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  for (const prestate of SOURCES) {
    it(`blockhash(block.number - 1) answers the captured block's parent hash (${prestate})`, async () => {
      const { dir, record } = captured.get(`blockhash/${prestate}`)!
      const client = clientFor(await loadFixture(dir, { name: 'replay', cache: false }))
      const ours = await client.call('eth_call', [record.call, 'latest'])
      const { parentHash, call } = node.get('blockhash')!
      expect(ours.result).toBe(parentHash)
      // The node agrees: its eth_call at the captured block reads the same hash.
      expect(call.result).toBe(parentHash)
    })

    it(`a value the sender cannot afford: captured from the sender and recipient, geth's errors on replay (${prestate})`, async () => {
      const { dir, record } = captured.get(`unaffordable/${prestate}`)!
      expect(record.prestate).toMatch(/sender and the recipient/)
      const client = clientFor(await loadFixture(dir, { name: 'replay', cache: false }))
      const sender = toChecksumAddress(UNFUNDED)
      const call = await client.call('eth_call', [record.call, 'latest'])
      expect(call.error).toEqual({ code: -32000, message: expect.stringMatching(new RegExp(`^err: insufficient funds for gas \\* price \\+ value: address ${sender} have 0 want 1000000000000000000 \\(supplied gas \\d+\\)$`)) })
      // geth's buyGas checks gas * fee cap + value (the value alone here): the estimator's run at its bound fails so.
      const estimate = await client.post(JSON.stringify(record.request))
      expect(estimate.error).toEqual({
        code: -32000,
        message: expect.stringMatching(new RegExp(`^failed with \\d+ gas: insufficient funds for gas \\* price \\+ value: address ${sender} have 0 want 1000000000000000000$`)),
      })
      // Anvil words its refusal its own way (and estimates the transfer at 21000).
      expect(node.get('unaffordable')!.call.error).toEqual({ code: -32003, message: 'Insufficient funds for gas * price + value' })
      expect(record.node.eth_estimateGas).toEqual({ result: '0x5208' })
    })
  }
})
