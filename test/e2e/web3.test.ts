/**
 * web3.js v4, used as its docs show (`new Web3(provider)`, `web3.eth`, `web3.eth.Contract`,
 * `web3.eth.accounts.wallet`), against a real gateway-double server on a free port. The provider is
 * web3's own `HttpProvider` with its documented `providerOptions` (the `RequestInit` handed to
 * fetch): in Node web3 fetches through cross-fetch/node-fetch, which takes an `agent`, here
 * gateway-double's `localhostAgent`, so `http://ethereum-mainnet.localhost:<port>/v3/<key>` resolves
 * without /etc/hosts. Block receipts, which web3 4.9 has no call for, go through
 * `web3.requestManager.send`.
 *
 * Tests run in file order: the reads first, then the transactions (which mine new blocks).
 */
import { ContractExecutionError, HttpProvider, Web3 } from 'web3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostAgent } from '../../src/http/client.ts'
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
let web3: Web3

beforeAll(async () => {
  server = await startE2eServer()
  // `agent` is node-fetch's option; the RequestInit type (DOM's) does not list it.
  const providerOptions = { agent: localhostAgent } as RequestInit
  web3 = new Web3(new HttpProvider(server.url, { providerOptions }))
})
afterAll(async () => {
  await server.close()
})

const gdt = () => new web3.eth.Contract(tokenAbi, token)
const rev = () => new web3.eth.Contract(reverterAbi, reverter)

/** The ContractExecutionError a call rejects with, and its decoded EIP-838 cause. */
async function executionError(promise: Promise<unknown>): Promise<ContractExecutionError & { cause: { errorName?: string; errorArgs?: Record<string, unknown>; message: string; data?: string } }> {
  const e = await promise.then(
    () => expect.unreachable('the call did not revert'),
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(ContractExecutionError)
  return e as never
}

interface RawReceipt {
  transactionHash: string
  status: string
  gasUsed: string
}

describe('web3.js: reads', () => {
  it('connects to chain 1 at the fixture head', async () => {
    expect(await web3.eth.getChainId()).toBe(1n)
    expect(await web3.eth.getBlockNumber()).toBe(HEAD)
  })

  it('reads storage (getStorageAt), agreeing with the contract and the raw call', async () => {
    expect(BigInt(await web3.eth.getStorageAt(counter, 0))).toBe(COUNTER.atHead)
    expect(BigInt(await web3.eth.getStorageAt(counter, 0, 2))).toBe(COUNTER.atBlock2)
    expect(BigInt(await web3.eth.getStorageAt(counter, 0, 3))).toBe(COUNTER.atBlock3)
    expect(await new web3.eth.Contract(counterAbi, counter).methods.count().call(undefined, 3)).toBe(COUNTER.atBlock3)

    const slot = web3.utils.keccak256(web3.eth.abi.encodeParameters(['address', 'uint256'], [bob.address, 0]))
    expect(slot).toBe(balanceSlot((d) => web3.utils.keccak256(d) as `0x${string}`, bob.address))
    const stored = await web3.eth.getStorageAt(token, slot)
    expect(BigInt(stored)).toBe(TOKEN_BALANCES.bob)
    expect(await gdt().methods.balanceOf(bob.address).call()).toBe(TOKEN_BALANCES.bob)
    expect(await rawRpc(server.url, 'eth_getStorageAt', [token, slot, 'latest'])).toBe(stored)
  })

  it('reads a transaction by block number and index (getTransactionFromBlock), the same as by hash', async () => {
    const tx = await web3.eth.getTransactionFromBlock(PLAIN_TRANSFER.block, PLAIN_TRANSFER.index)
    expect(tx).toMatchObject({
      hash: fixtureTx(2, 3).hash,
      from: alice.address,
      to: bob.address,
      value: PLAIN_TRANSFER.value,
      gas: PLAIN_TRANSFER.gas,
      nonce: BigInt(PLAIN_TRANSFER.nonce),
      type: BigInt(PLAIN_TRANSFER.type),
      chainId: 1n,
      blockNumber: 2n,
      transactionIndex: 3n,
      input: '0x',
    })
    expect(await web3.eth.getTransaction(tx!.hash)).toEqual(tx)
    const block = await web3.eth.getBlock(2)
    expect(block.transactions[3]).toBe(tx!.hash)
  })

  it('reads block receipts (requestManager.send), each equal to its own receipt', async () => {
    const receipts = await web3.requestManager.send<never, RawReceipt[]>({ method: 'eth_getBlockReceipts', params: ['0x4'] })
    const expected = fixtureBlock(4)
    expect(receipts.map((r) => [r.transactionHash, Number(r.status)])).toEqual(expected.map((t) => [t.hash, t.status]))
    for (const r of receipts) {
      const own = await web3.eth.getTransactionReceipt(r.transactionHash)
      expect([own.status, own.gasUsed]).toEqual([BigInt(r.status), BigInt(r.gasUsed)])
    }
    // Index 1: alice → token.transfer(erin, 10 GDT): the contract decodes its event.
    const events = await gdt().getPastEvents('Transfer', { fromBlock: 4, toBlock: 4 })
    expect(events.map((e) => typeof e === 'string' ? e : [e.transactionHash, e.returnValues.from, e.returnValues.to, e.returnValues.value])).toEqual([
      [expected[1]!.hash, web3.utils.toChecksumAddress(alice.address), web3.utils.toChecksumAddress(erin.address), 10n ** 19n],
    ])
  })

  it('estimates an ERC-20 transfer, within geth’s 1.5% of what the same call used in block 3', async () => {
    const gas = await gdt().methods.transfer(carol.address, TRANSFER_ESTIMATE.amount).estimateGas({ from: bob.address })
    expect(gas).toBe(TRANSFER_ESTIMATE.gas)
    const data = gdt().methods.transfer(carol.address, TRANSFER_ESTIMATE.amount).encodeABI()
    expect(await web3.eth.estimateGas({ from: bob.address, to: token, data }, 2)).toBe(gas)
    const used = (await web3.eth.getTransactionReceipt(fixtureTx(3, 0).hash)).gasUsed
    expect(used).toBe(TRANSFER_ESTIMATE.gasUsedInBlock3)
    expect(gas >= used && gas * 1000n <= used * 1015n).toBe(true)
    expect(await web3.eth.estimateGas({ from: alice.address, to: bob.address, value: 1n })).toBe(21_000n)
  })

  it('calls views through web3.eth.Contract', async () => {
    const c = gdt()
    expect(await c.methods.name().call()).toBe('Gateway Double Token')
    expect(await c.methods.symbol().call()).toBe('GDT')
    expect(await c.methods.decimals().call()).toBe(18n)
    const supply = await c.methods.totalSupply().call()
    expect(supply).toBe(10n ** 24n)
    const holders = [alice, bob, carol, dave, erin].map((a) => a.address)
    const balances = await Promise.all(holders.map(async (h) => (await c.methods.balanceOf(h).call()) as bigint))
    expect(balances).toEqual(Object.values(TOKEN_BALANCES))
    expect(balances.reduce((a, b) => a + b, 0n) + 5n * 10n ** 18n).toBe(supply)
    expect(await c.methods.allowance(alice.address, bob.address).call()).toBe(300n * 10n ** 18n)
    expect(await c.methods.allowance(alice.address, bob.address).call(undefined, 4)).toBe(0n)
    expect(await rev().methods.divide(4n).call()).toBe(25n)
  })
})

describe('web3.js: reverts as ContractExecutionError', () => {
  it('Error(string): the reason, decoded', async () => {
    const e = await executionError(rev().methods.revertWithReason().call())
    expect(e.cause).toMatchObject({ errorName: 'Error', errorArgs: { message: REVERT_REASON }, message: `execution reverted: ${REVERT_REASON}` })
    // estimateGas surfaces the same reason (the node's message).
    const est = await executionError(rev().methods.revertWithReason().estimateGas({ from: dave.address }))
    expect(est.cause.message).toBe(`execution reverted: ${REVERT_REASON}`)
  })

  it('a require in the token: the reason of a transfer beyond the balance', async () => {
    const e = await executionError(gdt().methods.transfer(bob.address, TOKEN_BALANCES.carol + 1n).call({ from: carol.address }))
    expect(e.cause).toMatchObject({ errorName: 'Error', errorArgs: { message: EXCEEDS_BALANCE } })
  })

  it('a custom error, decoded with its arguments from the ABI', async () => {
    const e = await executionError(rev().methods.revertWithCustomError(1n, 2n).call())
    expect(e.cause).toMatchObject({
      errorName: 'InsufficientBalance',
      errorSignature: 'InsufficientBalance(uint256,uint256)',
      errorArgs: { available: 1n, required: 2n },
    })
  })

  it('Panic: assert (0x01) and division by zero (0x12)', async () => {
    const assertFailed = await executionError(rev().methods.panicAssert().call())
    expect(assertFailed.cause).toMatchObject({ errorName: 'Panic', errorArgs: { code: 1n }, message: 'execution reverted: assert(false)' })
    const byZero = await executionError(rev().methods.divide(0n).call())
    expect(byZero.cause).toMatchObject({ errorName: 'Panic', errorArgs: { code: 0x12n }, message: 'execution reverted: division or modulo by zero' })
  })
})

describe.skipIf(!sendSupported)('web3.js: sending (eth_sendRawTransaction)', () => {
  it('a wallet account, sendTransaction: resolves to the receipt of a new block', async () => {
    const [account] = web3.eth.accounts.wallet.add(dave.privateKey)
    expect(account!.address.toLowerCase()).toBe(dave.address)
    const before = await web3.eth.getBalance(erin.address)
    const head = await web3.eth.getBlockNumber()
    const value = 25n * 10n ** 16n
    const receipt = await web3.eth.sendTransaction({ from: account!.address, to: erin.address, value })
    expect([receipt.status, receipt.blockNumber, receipt.gasUsed]).toEqual([1n, head + 1n, 21_000n])
    expect(await web3.eth.getBalance(erin.address)).toBe(before + value)
    expect((await web3.eth.getTransactionFromBlock(receipt.blockNumber, 0))?.hash).toBe(receipt.transactionHash)
  })

  it('a contract send from a wallet account: the token moves and the storage slot agrees', async () => {
    const [account] = web3.eth.accounts.wallet.add(bob.privateKey)
    const amount = 10n ** 18n
    const c = gdt()
    const before = (await c.methods.balanceOf(carol.address).call()) as bigint
    const receipt = await c.methods.transfer(carol.address, amount).send({ from: account!.address })
    expect(receipt.status).toBe(1n)
    expect(receipt.events?.Transfer?.returnValues).toMatchObject({ value: amount })
    const after = await c.methods.balanceOf(carol.address).call()
    expect(after).toBe(before + amount)
    const slot = balanceSlot((d) => web3.utils.keccak256(d) as `0x${string}`, carol.address)
    expect(BigInt(await web3.eth.getStorageAt(token, slot))).toBe(after)
  })
})
