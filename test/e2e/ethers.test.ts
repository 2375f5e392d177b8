/**
 * ethers v6, used as its docs show (JsonRpcProvider, Contract, Wallet), against a real
 * gateway-double server on a free port. The provider is built from a `FetchRequest` whose
 * `getUrlFunc` is ethers' own `FetchRequest.createGetUrlFunc({ agent })` with gateway-double's
 * `localhostAgent`, so that `http://ethereum-mainnet.localhost:<port>/v3/<key>` resolves without
 * /etc/hosts. Methods without a provider call (block receipts, a transaction by block and index)
 * go through `provider.send`, ethers' documented way to any JSON-RPC method.
 *
 * Tests run in file order: the reads first, then the transactions (which mine new blocks).
 */
import { AbiCoder, Contract, FetchRequest, JsonRpcProvider, Wallet, getAddress, isError, keccak256, parseEther, toQuantity, toBigInt } from 'ethers'
import type { TransactionReceipt } from 'ethers'
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
let provider: JsonRpcProvider
let gdt: Contract
let rev: Contract

beforeAll(async () => {
  server = await startE2eServer()
  const req = new FetchRequest(server.url)
  req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: localhostAgent })
  provider = new JsonRpcProvider(req, undefined, { staticNetwork: true })
  gdt = new Contract(token, tokenAbi, provider)
  rev = new Contract(reverter, reverterAbi, provider)
})
afterAll(async () => {
  provider.destroy()
  await server.close()
})

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => expect.unreachable('the call did not revert'),
    (e: unknown) => e,
  )
}

interface RawReceipt {
  transactionHash: string
  status: string
  gasUsed: string
  cumulativeGasUsed: string
}

describe('ethers: reads', () => {
  it('connects to chain 1 at the fixture head', async () => {
    expect((await provider.getNetwork()).chainId).toBe(1n)
    expect(await provider.getBlockNumber()).toBe(Number(HEAD))
  })

  it('reads storage (getStorage), agreeing with the contract and the raw call', async () => {
    const counterContract = new Contract(counter, counterAbi, provider)
    expect(toBigInt(await provider.getStorage(counter, 0))).toBe(COUNTER.atHead)
    expect(toBigInt(await provider.getStorage(counter, 0, 2))).toBe(COUNTER.atBlock2)
    expect(toBigInt(await provider.getStorage(counter, 0, 3))).toBe(COUNTER.atBlock3)
    expect(await counterContract.getFunction('count')({ blockTag: 3 })).toBe(COUNTER.atBlock3)

    // The mapping slot as Solidity lays it out: keccak256(abi.encode(key, slotOfMapping)).
    const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [bob.address, 0]))
    expect(slot).toBe(balanceSlot(keccak256 as (d: string) => `0x${string}`, bob.address))
    const stored = await provider.getStorage(token, slot)
    expect(toBigInt(stored)).toBe(TOKEN_BALANCES.bob)
    expect(await gdt.getFunction('balanceOf')(bob.address)).toBe(TOKEN_BALANCES.bob)
    expect(await rawRpc(server.url, 'eth_getStorageAt', [token, slot, 'latest'])).toBe(stored)
  })

  it('reads a transaction by block number and index, the same as by hash and from the block', async () => {
    const raw = await provider.send('eth_getTransactionByBlockNumberAndIndex', [toQuantity(PLAIN_TRANSFER.block), toQuantity(PLAIN_TRANSFER.index)])
    expect(raw).toMatchObject({ hash: fixtureTx(2, 3).hash, from: alice.address, to: bob.address, transactionIndex: '0x3' })
    const tx = await provider.getTransaction(raw.hash)
    expect(tx).not.toBeNull()
    expect(tx).toMatchObject({
      hash: fixtureTx(2, 3).hash,
      from: getAddress(alice.address),
      to: getAddress(bob.address),
      value: PLAIN_TRANSFER.value,
      gasLimit: PLAIN_TRANSFER.gas,
      nonce: PLAIN_TRANSFER.nonce,
      type: PLAIN_TRANSFER.type,
      chainId: 1n,
      blockNumber: 2,
      index: 3,
      data: '0x',
    })
    const block = await provider.getBlock(2, true)
    expect(block!.getPrefetchedTransaction(3).toJSON()).toEqual(tx!.toJSON())
  })

  it('reads block receipts (provider.send), each equal to its own receipt', async () => {
    const receipts = (await provider.send('eth_getBlockReceipts', ['0x4'])) as RawReceipt[]
    const expected = fixtureBlock(4)
    expect(receipts.map((r) => [r.transactionHash, Number(r.status)])).toEqual(expected.map((t) => [t.hash, t.status]))
    let cumulative = 0n
    for (const r of receipts) {
      const own = (await provider.getTransactionReceipt(r.transactionHash)) as TransactionReceipt
      expect([own.status, own.gasUsed, own.cumulativeGasUsed]).toEqual([Number(r.status), BigInt(r.gasUsed), BigInt(r.cumulativeGasUsed)])
      expect(own.cumulativeGasUsed).toBe((cumulative += own.gasUsed))
    }
    // Index 1: alice → token.transfer(erin, 10 GDT), the block's one log.
    const transfer = (await provider.getTransactionReceipt(expected[1]!.hash))!.logs.map((l) => gdt.interface.parseLog(l))
    expect(transfer.map((l) => [l?.name, ...(l?.args ?? [])])).toEqual([
      ['Transfer', getAddress(alice.address), getAddress(erin.address), parseEther('10')],
    ])
  })

  it('estimates an ERC-20 transfer, within geth’s 1.5% of what the same call used in block 3', async () => {
    const gas = await gdt.getFunction('transfer').estimateGas(carol.address, TRANSFER_ESTIMATE.amount, { from: bob.address })
    expect(gas).toBe(TRANSFER_ESTIMATE.gas)
    const data = gdt.interface.encodeFunctionData('transfer', [carol.address, TRANSFER_ESTIMATE.amount])
    expect(await provider.estimateGas({ from: bob.address, to: token, data, blockTag: 2 })).toBe(gas)
    const used = (await provider.getTransactionReceipt(fixtureTx(3, 0).hash))!.gasUsed
    expect(used).toBe(TRANSFER_ESTIMATE.gasUsedInBlock3)
    expect(gas >= used && gas * 1000n <= used * 1015n).toBe(true)
    expect(await provider.estimateGas({ from: alice.address, to: bob.address, value: 1n })).toBe(21_000n)
  })

  it('calls views through Contract', async () => {
    expect(await gdt.getFunction('name')()).toBe('Gateway Double Token')
    expect(await gdt.getFunction('symbol')()).toBe('GDT')
    expect(await gdt.getFunction('decimals')()).toBe(18n)
    const supply = (await gdt.getFunction('totalSupply')()) as bigint
    expect(supply).toBe(parseEther('1000000'))
    const holders = [alice, bob, carol, dave, erin].map((a) => a.address)
    const balances = (await Promise.all(holders.map((h) => gdt.getFunction('balanceOf')(h)))) as bigint[]
    expect(balances).toEqual(Object.values(TOKEN_BALANCES))
    expect(balances.reduce((a, b) => a + b, 0n) + parseEther('5')).toBe(supply)
    expect(await gdt.getFunction('allowance')(alice.address, bob.address)).toBe(parseEther('300'))
    expect(await gdt.getFunction('allowance')(alice.address, bob.address, { blockTag: 4 })).toBe(0n)
    expect(await rev.getFunction('divide')(4n)).toBe(25n)
  })
})

describe('ethers: reverts as CALL_EXCEPTION', () => {
  it('Error(string): the reason, from a static call and from estimateGas', async () => {
    for (const attempt of [rev.getFunction('revertWithReason').staticCall(), rev.getFunction('revertWithReason').estimateGas({ from: dave.address })]) {
      const e = await rejection(attempt)
      expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
      expect(e.reason).toBe(REVERT_REASON)
      expect(e.revert).toMatchObject({ name: 'Error', signature: 'Error(string)', args: [REVERT_REASON] })
    }
  })

  it('a require in the token: the reason of a transfer beyond the balance', async () => {
    const e = await rejection(gdt.getFunction('transfer').staticCall(bob.address, TOKEN_BALANCES.carol + 1n, { from: carol.address }))
    expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
    expect(e.reason).toBe(EXCEEDS_BALANCE)
  })

  it('a custom error, decoded with its arguments from the ABI', async () => {
    const e = await rejection(rev.getFunction('revertWithCustomError').staticCall(1n, 2n))
    expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
    expect(e.revert.name).toBe('InsufficientBalance')
    expect([...e.revert.args]).toEqual([1n, 2n])
    // estimateGas leaves custom errors to the caller: the interface decodes the revert data.
    const est = await rejection(rev.getFunction('revertWithCustomError').estimateGas(1n, 2n))
    expect(isError(est, 'CALL_EXCEPTION')).toBe(true)
    const parsed = rev.interface.parseError(est.data)
    expect([parsed?.name, ...(parsed?.args ?? [])]).toEqual(['InsufficientBalance', 1n, 2n])
  })

  it('Panic: assert (0x01) and division by zero (0x12)', async () => {
    const assertFailed = await rejection(rev.getFunction('panicAssert').staticCall())
    expect(isError(assertFailed, 'CALL_EXCEPTION')).toBe(true)
    expect(assertFailed.reason).toBe('Panic due to ASSERT_FALSE(1)')
    expect(assertFailed.revert.name).toBe('Panic')
    const byZero = await rejection(rev.getFunction('divide').staticCall(0n))
    expect(byZero.reason).toBe('Panic due to DIVIDE_BY_ZERO(18)')
    expect(BigInt(byZero.revert.args[0])).toBe(0x12n)
  })
})

// ethers keeps a read's answer for 250 ms (`cacheTimeout`) and a send now mines faster than that,
// so reads before and after a send name their block: a `latest` read would be the cached one.
describe.skipIf(!sendSupported)('ethers: sending (eth_sendRawTransaction)', () => {
  it('Wallet.sendTransaction, then tx.wait(): a new block with the transfer', async () => {
    const wallet = new Wallet(dave.privateKey, provider)
    const head = await provider.getBlockNumber()
    const before = await provider.getBalance(erin.address, head)
    const value = parseEther('0.25')
    const tx = await wallet.sendTransaction({ to: erin.address, value })
    const receipt = await tx.wait()
    expect(receipt).not.toBeNull()
    expect([receipt!.status, receipt!.blockNumber, receipt!.gasUsed, receipt!.hash]).toEqual([1, head + 1, 21_000n, tx.hash])
    expect(await provider.getBalance(erin.address, receipt!.blockNumber)).toBe(before + value)
    const raw = await provider.send('eth_getTransactionByBlockNumberAndIndex', [toQuantity(receipt!.blockNumber), '0x0'])
    expect(raw.hash).toBe(tx.hash)
  })

  it('a Contract write from a Wallet: the token moves and the storage slot agrees', async () => {
    const wallet = new Wallet(bob.privateKey, provider)
    const amount = parseEther('1')
    const head = await provider.getBlockNumber()
    const before = (await gdt.getFunction('balanceOf')(carol.address, { blockTag: head })) as bigint
    const tx = await (gdt.connect(wallet) as Contract).getFunction('transfer')(carol.address, amount)
    const receipt = (await tx.wait()) as TransactionReceipt
    expect(receipt.status).toBe(1)
    const [log] = receipt.logs.map((l) => gdt.interface.parseLog(l))
    expect([log?.name, ...(log?.args ?? [])]).toEqual(['Transfer', getAddress(bob.address), getAddress(carol.address), amount])
    const after = (await gdt.getFunction('balanceOf')(carol.address, { blockTag: receipt.blockNumber })) as bigint
    expect(after).toBe(before + amount)
    const slot = balanceSlot(keccak256 as (d: string) => `0x${string}`, carol.address)
    expect(toBigInt(await provider.getStorage(token, slot, receipt.blockNumber))).toBe(after)
  })
})
