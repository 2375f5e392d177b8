/**
 * viem's `createAccessList`, as its docs show it, against a real gateway-double server: the list
 * an ERC-20 transfer needs, then the transfer sent with that list (viem's wallet client, a signed
 * EIP-1559 transaction): mined, it uses exactly the gas the list's answer said. A reverting call's
 * answer carries geth's `error`, which viem throws as a call error.
 */
import { BaseError, createPublicClient, createWalletClient, encodeFunctionData, ExecutionRevertedError, http, keccak256, parseEther } from 'viem'
import type { PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localhostFetch } from '../../src/http/client.ts'
import { tokenAbi } from './support/abis.ts'
import { alice, balanceSlot, carol, erin, sendSupported, startE2eServer, token } from './support/fixture.ts'

let server: Awaited<ReturnType<typeof startE2eServer>>
let client: PublicClient

beforeAll(async () => {
  server = await startE2eServer()
  client = createPublicClient({ chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
})
afterAll(async () => {
  await server.close()
})

describe('viem createAccessList', () => {
  it('answers the slots an ERC-20 transfer reads and writes', async () => {
    const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [carol.address, parseEther('2')] })
    const { accessList, gasUsed } = await client.createAccessList({ account: alice.address, to: token, data })
    expect(accessList).toEqual([{ address: token, storageKeys: [balanceSlot(keccak256, alice.address), balanceSlot(keccak256, carol.address)].sort() }])
    expect(gasUsed).toBeGreaterThan(21_000n)
  })

  it('throws a call error for a transfer that reverts, as viem reads the answer’s `error`', async () => {
    const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [alice.address, parseEther('1000000000')] })
    const failure = await client.createAccessList({ account: erin.address, to: token, data }).then(
      () => undefined,
      (err: unknown) => err as BaseError,
    )
    expect(failure).toBeInstanceOf(BaseError)
    expect(failure!.walk((e) => e instanceof ExecutionRevertedError)).toBeInstanceOf(ExecutionRevertedError)
    expect(failure!.details).toBe('execution reverted')
  })

  it.skipIf(!sendSupported)('gives the gas a transaction sent with the list uses', async () => {
    const account = privateKeyToAccount(alice.privateKey)
    const wallet = createWalletClient({ account, chain: mainnet, transport: http(server.url, { fetchFn: localhostFetch }) })
    const data = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [erin.address, parseEther('3')] })
    const { accessList, gasUsed } = await client.createAccessList({ account: alice.address, to: token, data })
    const hash = await wallet.sendTransaction({ to: token, data, accessList, gas: 100_000n })
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt.status).toBe('success')
    expect(receipt.gasUsed).toBe(gasUsed)
    const mined = await client.getTransaction({ hash })
    expect(mined.accessList).toEqual(accessList)
  })
})
