/**
 * Impersonating a contract (a multisig, a treasury, a governor) and sending from it, on the double's
 * test endpoint and on the Anvil of the devDependencies, the same calls on both: the send is mined,
 * the contract's nonce moves and the storage it writes is written (EIP-3607 is waived for an
 * impersonated sender, as Anvil and Hardhat do). The same contract stops sending when impersonation
 * ends; what the pool refuses, both refuse, the double in geth's words (Anvil has its own).
 */
import { describe, expect, it } from 'vitest'
import { anvilBinary } from './anvil.ts'
import { anvilBesideDouble, rpcCall } from './anvilBeside.ts'

/** A "treasury": code that returns 1 (any code makes the address a contract). */
const TREASURY = '0x00000000000000000000000000000000007ea5e1'
const TREASURY_CODE = '0x600160005260206000f3'
/** A recorder: stores CALLER at slot 0 (CALLER PUSH1 0 SSTORE STOP). */
const RECORDER = '0x000000000000000000000000000000000000dec0'
const RECORDER_CODE = '0x3360005500'

const { endpoints } = anvilBesideDouble()

describe.runIf(anvilBinary() !== undefined)('an impersonated contract sends, as on Anvil', () => {
  const call = rpcCall
  const result = async (url: string, method: string, params: unknown[]): Promise<any> => {
    const answer = await call(url, method, params)
    expect(answer.error, `${method} on ${url}`).toBeUndefined()
    return answer.result
  }

  /** A transaction's receipt: Anvil's automine may answer the send before the block is in (up to 5 s). */
  const receipt = async (url: string, hash: string): Promise<any> => {
    for (let i = 0; i < 100; i++) {
      const found = await result(url, 'eth_getTransactionReceipt', [hash])
      if (found !== null) return found
      await new Promise((r) => setTimeout(r, 50))
    }
    return null
  }

  it('eth_sendTransaction from an impersonated contract is mined: its nonce moves, the storage it writes is written; after impersonation ends it is refused', async () => {
    const seen: Record<string, unknown> = {}
    for (const [name, url] of Object.entries(endpoints())) {
      await result(url, 'anvil_setCode', [TREASURY, TREASURY_CODE])
      await result(url, 'anvil_setCode', [RECORDER, RECORDER_CODE])
      await result(url, 'anvil_setBalance', [TREASURY, '0xde0b6b3a7640000'])
      await result(url, 'anvil_impersonateAccount', [TREASURY])
      const hash = await result(url, 'eth_sendTransaction', [{ from: TREASURY, to: RECORDER, gas: '0x186a0' }])
      const mined = await receipt(url, hash)
      // An estimated send, and a creation from the contract.
      const estimated = await result(url, 'eth_sendTransaction', [{ from: TREASURY, to: RECORDER }])
      const created = await result(url, 'eth_sendTransaction', [{ from: TREASURY, data: '0x600a600c600039600a6000f3602a60005260206000f3' }])
      await result(url, 'anvil_stopImpersonatingAccount', [TREASURY])
      const refused = await call(url, 'eth_sendTransaction', [{ from: TREASURY, to: RECORDER, gas: '0x186a0' }])
      seen[name] = {
        status: mined.status,
        from: mined.from,
        estimatedStatus: (await receipt(url, estimated)).status,
        created: (await receipt(url, created)).contractAddress,
        nonce: await result(url, 'eth_getTransactionCount', [TREASURY, 'latest']),
        recorded: await result(url, 'eth_getStorageAt', [RECORDER, '0x0', 'latest']),
        code: await result(url, 'eth_getCode', [TREASURY, 'latest']),
        refused: refused.error?.code,
      }
    }
    expect(seen.double).toEqual(seen.anvil)
    expect(seen.double).toMatchObject({ status: '0x1', from: TREASURY, estimatedStatus: '0x1', nonce: '0x3', recorded: `0x${TREASURY.slice(2).padStart(64, '0')}`, code: TREASURY_CODE })
  })

  it('an impersonated account that holds code (anvil_setCode on it) sends too', async () => {
    const holder = '0x00000000000000000000000000000000000c0de5'
    for (const url of Object.values(endpoints())) {
      await result(url, 'anvil_impersonateAccount', [holder])
      await result(url, 'anvil_setBalance', [holder, '0xde0b6b3a7640000'])
      await result(url, 'anvil_setCode', [holder, TREASURY_CODE])
      const hash = await result(url, 'eth_sendTransaction', [{ from: holder, to: RECORDER, gas: '0x186a0' }])
      expect((await receipt(url, hash))?.status, url).toBe('0x1')
    }
  })

  it('what the pool refuses from an impersonated contract, refused on both, on the double in geth\'s words', async () => {
    const sender = '0x00000000000000000000000000000000007ea5e2'
    const refusals: Record<string, (string | undefined)[]> = {}
    for (const [name, url] of Object.entries(endpoints())) {
      await result(url, 'anvil_setCode', [sender, TREASURY_CODE])
      await result(url, 'anvil_setBalance', [sender, '0xde0b6b3a7640000'])
      await result(url, 'anvil_impersonateAccount', [sender])
      await result(url, 'eth_sendTransaction', [{ from: sender, to: RECORDER, gas: '0x186a0' }])
      const to = RECORDER
      const sends = [
        { from: sender, to, gas: '0x1' },
        { from: sender, to, gas: '0x5208', nonce: '0x0', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1' },
        { from: sender, to, gas: '0x5208', value: '0xde0b6b3a7640000' },
        { from: sender, to, value: '0xde0b6b3a7640001' },
        { from: sender, to, maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' },
        { from: sender, to, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' },
        { from: sender, to, gasPrice: '0x0' },
      ]
      refusals[name] = []
      for (const send of sends) refusals[name]!.push((await call(url, 'eth_sendTransaction', [send])).error?.message)
    }
    expect(refusals.anvil!.every((m) => m !== undefined)).toBe(true)
    expect(refusals.double).toEqual([
      'intrinsic gas too low: gas 1, minimum needed 21000',
      'nonce too low: next nonce 1, tx nonce 0',
      expect.stringMatching(/^insufficient funds for gas \* price \+ value: balance \d+, tx cost \d+, overshot \d+$/),
      'insufficient funds for transfer',
      'maxFeePerGas must be non-zero',
      'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)',
      'gasPrice must be non-zero after london fork',
    ])
  })
})
