/**
 * viem 2, used as its docs show (createPublicClient / createWalletClient, `http` transport), against
 * a real gateway-double server on a free port. The one addition is the transport's documented
 * `fetchFn` option, set to gateway-double's `localhostFetch` so that
 * `http://ethereum-mainnet.localhost:<port>/v3/<key>` resolves without /etc/hosts.
 *
 * Tests run in file order: the reads first, then the transactions (which mine new blocks).
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  hexToBigInt,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
} from 'viem'
import type { PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { counterAbi, reverterAbi, tokenAbi } from './support/abis.ts'
import {
  alice,
  balanceSlot,
  bob,
  carol,
  COUNTER,
  counter,
  dave,
  erin,
  EXCEEDS_BALANCE,
  fixtureBlock,
  fixtureTx,
  HEAD,
  PLAIN_TRANSFER,
  rawRpc,
  REVERT_REASON,
  reverter,
  sendSupported,
  startE2eServer,
  token,
  TOKEN_BALANCES,
  TRANSFER_ESTIMATE,
} from './support/fixture.ts'

let server: Awaited<ReturnType<typeof startE2eServer>>
let client: PublicClient

beforeAll(async () => {
  server = await startE2eServer()
  client = createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
})
afterAll(async () => {
  await server.close()
})

/** The ContractFunctionRevertedError inside a viem error, as viem's docs catch it. */
async function revertOf(promise: Promise<unknown>): Promise<ContractFunctionRevertedError> {
  const err = await promise.then(
    () => expect.unreachable('the call did not revert'),
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(BaseError)
  const revert = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
  expect(revert).toBeInstanceOf(ContractFunctionRevertedError)
  return revert as ContractFunctionRevertedError
}

describe('viem: reads', () => {
  it('connects to chain 1 at the fixture head', async () => {
    expect(await client.getChainId()).toBe(1)
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(HEAD)
  })

  it('reads storage (getStorageAt), agreeing with the contract and the raw call', async () => {
    const slot0 = (blockNumber?: bigint) => client.getStorageAt({ address: counter, slot: '0x0', ...(blockNumber ? { blockNumber } : {}) })
    expect(hexToBigInt((await slot0())!)).toBe(COUNTER.atHead)
    expect(hexToBigInt((await slot0(2n))!)).toBe(COUNTER.atBlock2)
    expect(hexToBigInt((await slot0(3n))!)).toBe(COUNTER.atBlock3)
    expect(await client.readContract({ address: counter, abi: counterAbi, functionName: 'count', blockNumber: 3n })).toBe(COUNTER.atBlock3)

    const slot = balanceSlot(keccak256, bob.address)
    const stored = await client.getStorageAt({ address: token, slot })
    expect(hexToBigInt(stored!)).toBe(TOKEN_BALANCES.bob)
    expect(await client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [bob.address] })).toBe(TOKEN_BALANCES.bob)
    expect(await rawRpc(server.url, 'eth_getStorageAt', [token, slot, 'latest'])).toBe(stored)
  })

  it('reads a transaction by block number and index, the same as by hash and by block hash', async () => {
    const tx = await client.getTransaction({ blockNumber: PLAIN_TRANSFER.block, index: PLAIN_TRANSFER.index })
    expect(tx).toMatchObject({
      hash: fixtureTx(2, 3).hash,
      from: alice.address,
      to: bob.address,
      value: PLAIN_TRANSFER.value,
      gas: PLAIN_TRANSFER.gas,
      nonce: PLAIN_TRANSFER.nonce,
      type: 'eip1559',
      chainId: 1,
      blockNumber: 2n,
      transactionIndex: 3,
      input: '0x',
    })
    expect(await client.getTransaction({ hash: tx.hash })).toEqual(tx)
    expect(await client.getTransaction({ blockHash: tx.blockHash, index: 3 })).toEqual(tx)
    const block = await client.getBlock({ blockNumber: 2n })
    expect(block.transactions[3]).toBe(tx.hash)
  })

  it('reads block receipts (getBlockReceipts), each equal to its own receipt', async () => {
    const receipts = await client.getBlockReceipts({ blockNumber: 4n })
    const expected = fixtureBlock(4)
    expect(receipts.map((r) => [r.transactionHash, r.status])).toEqual(
      expected.map((t) => [t.hash, t.status === 1 ? 'success' : 'reverted']),
    )
    for (const r of receipts) expect(await client.getTransactionReceipt({ hash: r.transactionHash })).toEqual(r)
    let cumulative = 0n
    for (const r of receipts) expect(r.cumulativeGasUsed).toBe((cumulative += r.gasUsed))
    // Index 1: alice → token.transfer(erin, 10 GDT), the block's one log.
    const logs = parseEventLogs({ abi: tokenAbi, logs: receipts.flatMap((r) => r.logs), eventName: 'Transfer' })
    expect(logs.map((l) => l.args)).toEqual([{ from: getAddress(alice.address), to: getAddress(erin.address), value: parseEther('10') }])
    // The raw method answers the same list.
    const raw = await client.request({ method: 'eth_getBlockReceipts', params: ['0x4'] })
    expect(raw?.map((r) => r.transactionHash)).toEqual(expected.map((t) => t.hash))
  })

  it('estimates an ERC-20 transfer, within geth’s 1.5% of what the same call used in block 3', async () => {
    const args = [carol.address, TRANSFER_ESTIMATE.amount] as const
    const gas = await client.estimateContractGas({ address: token, abi: tokenAbi, functionName: 'transfer', args, account: bob.address })
    expect(gas).toBe(TRANSFER_ESTIMATE.gas)
    const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args })
    expect(await client.estimateGas({ account: bob.address, to: token, data, blockNumber: 2n })).toBe(gas)
    const used = (await client.getTransactionReceipt({ hash: fixtureTx(3, 0).hash })).gasUsed
    expect(used).toBe(TRANSFER_ESTIMATE.gasUsedInBlock3)
    expect(gas >= used && gas * 1000n <= used * 1015n).toBe(true)
    // A plain transfer is exactly 21000.
    expect(await client.estimateGas({ account: alice.address, to: bob.address, value: 1n })).toBe(21_000n)
  })

  it('calls views through readContract', async () => {
    const gdt = { address: token, abi: tokenAbi } as const
    expect(await client.readContract({ ...gdt, functionName: 'name' })).toBe('Gateway Double Token')
    expect(await client.readContract({ ...gdt, functionName: 'symbol' })).toBe('GDT')
    expect(await client.readContract({ ...gdt, functionName: 'decimals' })).toBe(18)
    const supply = await client.readContract({ ...gdt, functionName: 'totalSupply' })
    expect(supply).toBe(parseEther('1000000'))
    const holders = [alice, bob, carol, dave, erin].map((a) => a.address)
    const balances = await Promise.all(holders.map((h) => client.readContract({ ...gdt, functionName: 'balanceOf', args: [h] })))
    expect(balances).toEqual(Object.values(TOKEN_BALANCES))
    // The 5 GDT erin sent to the burn address make up the supply.
    expect(balances.reduce((a, b) => a + b, 0n) + parseEther('5')).toBe(supply)
    // Allowance left after bob's transferFrom of 200 of the 500 approved in block 5.
    expect(await client.readContract({ ...gdt, functionName: 'allowance', args: [alice.address, bob.address] })).toBe(parseEther('300'))
    expect(await client.readContract({ ...gdt, functionName: 'allowance', args: [alice.address, bob.address], blockNumber: 4n })).toBe(0n)
    expect(await client.readContract({ address: reverter, abi: reverterAbi, functionName: 'divide', args: [4n] })).toBe(25n)
  })
})

describe('viem: reverts as ContractFunctionRevertedError', () => {
  it('Error(string): the reason, from readContract (a pure function)', async () => {
    const revert = await revertOf(client.readContract({ address: reverter, abi: reverterAbi, functionName: 'revertWithReason' }))
    expect(revert.reason).toBe(REVERT_REASON)
    expect(revert.data).toMatchObject({ errorName: 'Error', args: [REVERT_REASON] })
    expect(revert.raw).toBe(await rawRpc(server.url, 'eth_call', [{ to: reverter, data: encodeFunctionData({ abi: reverterAbi, functionName: 'revertWithReason' }) }, 'latest']).catch((e: { rpc: { data: string } }) => e.rpc.data))
  })

  it('a require in the token: the reason, from simulateContract and estimateContractGas', async () => {
    const call = {
      address: token,
      abi: tokenAbi,
      functionName: 'transfer',
      args: [bob.address, TOKEN_BALANCES.carol + 1n],
      account: carol.address,
    } as const
    for (const attempt of [client.simulateContract(call), client.estimateContractGas(call)]) {
      const revert = await revertOf(attempt)
      expect(revert.reason).toBe(EXCEEDS_BALANCE)
      expect(revert.data).toMatchObject({ errorName: 'Error', args: [EXCEEDS_BALANCE] })
    }
  })

  it('a custom error, decoded with its arguments from the ABI', async () => {
    const revert = await revertOf(
      client.readContract({ address: reverter, abi: reverterAbi, functionName: 'revertWithCustomError', args: [1n, 2n] }),
    )
    expect(revert.data).toMatchObject({ errorName: 'InsufficientBalance', args: [1n, 2n] })
    expect(revert.raw).toBe('0xcf47918100000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000002')
  })

  it('Panic: assert (0x01) and division by zero (0x12)', async () => {
    const assertFailed = await revertOf(client.readContract({ address: reverter, abi: reverterAbi, functionName: 'panicAssert' }))
    expect(assertFailed.data).toMatchObject({ errorName: 'Panic', args: [1n] })
    const byZero = await revertOf(client.readContract({ address: reverter, abi: reverterAbi, functionName: 'divide', args: [0n] }))
    expect(byZero.data).toMatchObject({ errorName: 'Panic', args: [0x12n] })
    expect(byZero.reason).toMatch(/division or modulo by zero/i)
  })
})

describe.skipIf(!sendSupported)('viem: sending (eth_sendRawTransaction)', () => {
  it('sendTransaction, then waitForTransactionReceipt: a new block with the transfer', async () => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(dave.privateKey),
      chain: mainnet,
      transport: http(server.url, { fetchFn: localhostFetch }),
    })
    const before = await client.getBalance({ address: erin.address })
    const head = await client.getBlockNumber({ cacheTime: 0 })
    const value = parseEther('0.25')
    const hash = await wallet.sendTransaction({ to: erin.address, value })
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt).toMatchObject({ status: 'success', blockNumber: head + 1n, from: dave.address, to: erin.address, gasUsed: 21_000n })
    expect(await client.getBalance({ address: erin.address })).toBe(before + value)
    expect((await client.getTransaction({ blockNumber: receipt.blockNumber, index: 0 })).hash).toBe(hash)
  })

  it('simulateContract, then writeContract: the token moves and the storage slot agrees', async () => {
    const account = privateKeyToAccount(bob.privateKey)
    const wallet = createWalletClient({ account, chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
    const amount = parseEther('1')
    const before = await client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [carol.address] })
    const { request, result } = await client.simulateContract({
      account,
      address: token,
      abi: tokenAbi,
      functionName: 'transfer',
      args: [carol.address, amount],
    })
    expect(result).toBe(true)
    const hash = await wallet.writeContract(request)
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt.status).toBe('success')
    const [transfer] = parseEventLogs({ abi: tokenAbi, logs: receipt.logs, eventName: 'Transfer' })
    expect(transfer?.args).toEqual({ from: getAddress(bob.address), to: getAddress(carol.address), value: amount })
    const after = await client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [carol.address] })
    expect(after).toBe(before + amount)
    const stored = await client.getStorageAt({ address: token, slot: balanceSlot(keccak256, carol.address) })
    expect(hexToBigInt(stored!)).toBe(after)
  })
})
