/**
 * `pending` for calls, as geth's pending block and Anvil's answer it: the next block's number,
 * timestamp and base fee, not the head's. The same calls on the double's test endpoint and on the
 * Anvil of the devDependencies: a contract that returns block.number, block.timestamp and
 * block.basefee, and one whose gas depends on block.number (as Uniswap's accumulators, an
 * ERC20Votes checkpoint or a Governor's clock() do), estimated at `pending` then mined.
 */
import { describe, expect, it } from 'vitest'
import { anvilBinary } from './anvil.ts'
import { anvilBesideDouble, rpcCall } from './anvilBeside.ts'

/** Returns (block.number, block.timestamp, block.basefee): NUMBER, TIMESTAMP, BASEFEE stored at 0, 32, 64. */
const ENV = '0x00000000000000000000000000000000000e4e4e'
const ENV_CODE = '0x43600052426020524860405260606000f3'
/** Writes slot 0 when block.number is odd (NUMBER PUSH1 1 AND PUSH1 8 JUMPI STOP JUMPDEST PUSH1 1 PUSH1 0 SSTORE STOP). */
const ODD = '0x000000000000000000000000000000000000add0'
const ODD_CODE = '0x4360011660085700' + '5b600160005500'
const SENDER = '0x00000000000000000000000000000000005e4de4'

const { endpoints } = anvilBesideDouble()

describe.runIf(anvilBinary() !== undefined)('pending: the next block, as on Anvil', () => {
  const result = async (url: string, method: string, params: unknown[]): Promise<any> => {
    const answer = await rpcCall(url, method, params)
    expect(answer.error, `${method} on ${url}`).toBeUndefined()
    return answer.result
  }
  const words = (hex: string): bigint[] => [0, 1, 2].map((i) => BigInt(`0x${hex.slice(2 + 64 * i, 66 + 64 * i)}`))

  it('eth_call at pending sees the next block number, the timestamp it will have, its base fee', async () => {
    const seen: Record<string, unknown> = {}
    for (const [name, url] of Object.entries(endpoints())) {
      await result(url, 'anvil_setCode', [ENV, ENV_CODE])
      await result(url, 'anvil_setBalance', [SENDER, '0xde0b6b3a7640000'])
      await result(url, 'evm_mine', [])
      const head = await result(url, 'eth_getBlockByNumber', ['latest', false])
      const at = BigInt(head.timestamp) + 1000n
      await result(url, 'evm_setNextBlockTimestamp', [`0x${at.toString(16)}`])
      // A call naming a fee: geth runs a fee-less one with BASEFEE reading 0.
      const [number, time, baseFee] = words(await result(url, 'eth_call', [{ from: SENDER, to: ENV, gas: '0x30000', maxFeePerGas: '0x174876e800' }, 'pending']))
      const [latestNumber, latestTime] = words(await result(url, 'eth_call', [{ to: ENV }, 'latest']))
      await result(url, 'evm_mine', [])
      const mined = await result(url, 'eth_getBlockByNumber', ['latest', false])
      seen[name] = {
        pendingIsNext: number === BigInt(head.number) + 1n,
        latestIsHead: latestNumber === BigInt(head.number) && latestTime === BigInt(head.timestamp),
        timeIsTheMinedOne: time === at && BigInt(mined.timestamp) === at,
        baseFeeIsTheMinedOne: baseFee === BigInt(mined.baseFeePerGas),
      }
    }
    expect(seen.double).toEqual(seen.anvil)
    expect(seen.double).toEqual({ pendingIsNext: true, latestIsHead: true, timeIsTheMinedOne: true, baseFeeIsTheMinedOne: true })
  })

  it('a gas that depends on block.number: the estimate at pending is what the next block uses; eth_createAccessList at pending sees the write', async () => {
    const seen: Record<string, unknown> = {}
    for (const [name, url] of Object.entries(endpoints())) {
      await result(url, 'anvil_setCode', [ODD, ODD_CODE])
      await result(url, 'anvil_setBalance', [SENDER, '0xde0b6b3a7640000'])
      await result(url, 'anvil_impersonateAccount', [SENDER])
      // An even head: the next block's number is odd, so the call mined there writes slot 0.
      if (BigInt((await result(url, 'eth_getBlockByNumber', ['latest', false])).number) % 2n === 1n) await result(url, 'evm_mine', [])
      const latest = BigInt(await result(url, 'eth_estimateGas', [{ from: SENDER, to: ODD }, 'latest']))
      const pending = BigInt(await result(url, 'eth_estimateGas', [{ from: SENDER, to: ODD }, 'pending']))
      const list = await result(url, 'eth_createAccessList', [{ from: SENDER, to: ODD }, 'pending'])
      const hash = await result(url, 'eth_sendTransaction', [{ from: SENDER, to: ODD, gas: `0x${pending.toString(16)}` }])
      let receipt = null
      for (let i = 0; i < 100 && receipt === null; i++) {
        receipt = await result(url, 'eth_getTransactionReceipt', [hash])
        if (receipt === null) await new Promise((r) => setTimeout(r, 50))
      }
      seen[name] = {
        latestIsATransfer: latest < 22_000n,
        pendingPaysTheWrite: pending > 40_000n,
        listsTheSlot: list.accessList.some((e: { address: string; storageKeys: string[] }) => e.address.toLowerCase() === ODD && e.storageKeys.length === 1),
        minedWithTheEstimate: receipt.status,
        written: await result(url, 'eth_getStorageAt', [ODD, '0x0', 'latest']),
      }
    }
    expect(seen.double).toEqual(seen.anvil)
    expect(seen.double).toMatchObject({ latestIsATransfer: true, pendingPaysTheWrite: true, listsTheSlot: true, minedWithTheEstimate: '0x1' })
  })

  it('with manual mining, the pooled transactions are applied: balances, code, calls and estimates at pending see them, latest does not', async () => {
    const seen: Record<string, unknown> = {}
    const RECIPIENT = '0x000000000000000000000000000000000000ca5e'
    for (const [name, url] of Object.entries(endpoints())) {
      await result(url, 'anvil_setCode', [ODD, ODD_CODE])
      await result(url, 'anvil_setBalance', [SENDER, '0xde0b6b3a7640000'])
      await result(url, 'anvil_impersonateAccount', [SENDER])
      await result(url, 'evm_setAutomine', [false])
      const before = await result(url, 'eth_getBalance', [RECIPIENT, 'latest'])
      await result(url, 'eth_sendTransaction', [{ from: SENDER, to: RECIPIENT, value: '0x1234', gas: '0x5208' }])
      await result(url, 'eth_sendTransaction', [{ from: SENDER, to: ODD, gas: '0x186a0' }])
      seen[name] = {
        latest: await result(url, 'eth_getBalance', [RECIPIENT, 'latest']),
        pending: await result(url, 'eth_getBalance', [RECIPIENT, 'pending']),
        proven: (await result(url, 'eth_getProof', [RECIPIENT, [], 'pending'])).balance,
        // ODD's slot 0 at pending: written by the pooled call when the pending block's number is odd, as on Anvil.
        slot: await result(url, 'eth_getStorageAt', [ODD, '0x0', 'pending']),
        unchangedLatest: before,
        senderNonce: await result(url, 'eth_getTransactionCount', [SENDER, 'pending']),
        pendingCodeOfOdd: (await result(url, 'eth_getCode', [ODD, 'pending'])) === ODD_CODE,
        // A transfer of the recipient's whole pending balance succeeds at pending only.
        estimatePending: (await rpcCall(url, 'eth_estimateGas', [{ from: RECIPIENT, to: SENDER, value: '0x1234', gasPrice: '0x0' }, 'pending'])).error === undefined,
      }
      // At latest the recipient has nothing to send: geth refuses (insufficient funds); Anvil 1.7.1 estimates anyway.
      if (name === 'double') {
        const refused = await rpcCall(url, 'eth_estimateGas', [{ from: RECIPIENT, to: SENDER, value: '0x1234', gasPrice: '0x0' }, 'latest'])
        expect(refused.error?.message).toMatch(/insufficient funds/)
      }
      await result(url, 'evm_mine', [])
      await result(url, 'evm_setAutomine', [true])
    }
    expect(seen.double).toEqual(seen.anvil)
    expect(seen.double).toMatchObject({ latest: '0x0', pending: '0x1234', proven: '0x1234', unchangedLatest: '0x0', pendingCodeOfOdd: true, estimatePending: true })
  })
})
