/**
 * Where a capture's touched state comes from when the node has no prestate tracer: the accounts
 * and slots from `eth_createAccessList` (or from running the call here over the node's state,
 * ./discover.ts, where the node refuses a list), their values from `eth_getProof` or plain reads.
 */
import type { Hardfork } from '../builder/genesisFile.ts'
import { discoverByRunning } from './discover.ts'
import { Endpoint, EndpointRpcError, isMissingMethod } from './endpoint.ts'
import { word } from './nodeShapes.ts'
import type { CallJson, PrestateAccount, RpcBlock } from './nodeShapes.ts'

const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'

/** A prestate tracer's answer, by lowercase address. */
export function toMap(result: unknown): Map<string, PrestateAccount> {
  return new Map(Object.entries(result as Record<string, PrestateAccount>).map(([a, v]) => [a.toLowerCase(), v]))
}

/** The fallback: the access list names accounts and slots, proofs (or plain reads) give their values. */
export async function proofsPrestate(endpoint: Endpoint, call: CallJson, block: RpcBlock, chainId: number, hardfork: Hardfork): Promise<{ accounts: Map<string, PrestateAccount>; how: string }> {
  const at = block.number
  // Without the call's gas: the list is made by running the call with the list applied, whose
  // intrinsic cost may not fit the original limit, and a run with more gas touches no less.
  const { gas: _gas, ...unlimited } = call
  let listed: { address: string; storageKeys: string[] }[]
  let discovered = false
  let unpaid = false
  try {
    listed = (
      await endpoint.call<{ accessList: { address: string; storageKeys: string[] }[] }>(
        `the accounts and slots the call touches at block ${at}`,
        'eth_createAccessList',
        [unlimited, at],
      )
    ).accessList
  } catch (err) {
    // geth answers a reverting call's list with an "error" field; Anvil refuses the request.
    if (cannotPay(err)) {
      // Nothing runs: the sender and the recipient (added below) are all the replay reads.
      listed = []
      unpaid = true
    } else {
      if (!(err instanceof EndpointRpcError) || isMissingMethod(err) || !(err.code === 3 || /revert|EVM error|out of gas|execution/i.test(err.message))) throw err
      const touched = await discoverByRunning(endpoint.url, chainId, hardfork, block, call)
      listed = [...touched].map(([address, keys]) => ({ address, storageKeys: [...keys] }))
      discovered = true
    }
  }
  const slots = new Map<string, Set<string>>()
  const touch = (address: string) => {
    const key = address.toLowerCase()
    if (!slots.has(key)) slots.set(key, new Set())
    return slots.get(key)!
  }
  touch(call.from as string)
  if (typeof call.to === 'string') touch(call.to)
  for (const entry of [...listed, ...((call.accessList as { address: string; storageKeys: string[] }[] | undefined) ?? [])]) {
    const keys = touch(entry.address)
    for (const k of entry.storageKeys) keys.add(k.toLowerCase())
  }
  const accounts = new Map<string, PrestateAccount>()
  let viaProof = true
  for (const [address, keys] of slots) {
    const account: PrestateAccount = {}
    const storageKeys = [...keys]
    let codeHash: string | undefined
    if (viaProof) {
      try {
        const proof = await endpoint.call<{ balance: string; nonce: string; codeHash: string; storageProof: { key: string; value: string }[] }>(
          `the account ${address} at block ${at}`,
          'eth_getProof',
          [address, storageKeys, at],
        )
        account.balance = proof.balance
        account.nonce = proof.nonce
        codeHash = proof.codeHash
        account.storage = Object.fromEntries(proof.storageProof.map((p) => [word(p.key), word(p.value)]))
      } catch (err) {
        if (!isMissingMethod(err)) throw err
        viaProof = false
      }
    }
    if (!viaProof) {
      account.balance = await endpoint.call<string>(`the balance of ${address} at block ${at}`, 'eth_getBalance', [address, at])
      account.nonce = await endpoint.call<string>(`the nonce of ${address} at block ${at}`, 'eth_getTransactionCount', [address, at])
      account.storage = {}
      for (const k of storageKeys) {
        account.storage[word(k)] = await endpoint.call<string>(`slot ${k} of ${address} at block ${at}`, 'eth_getStorageAt', [address, k, at])
      }
    }
    if (codeHash !== EMPTY_CODE_HASH) {
      const code = await endpoint.call<string>(`the code of ${address} at block ${at}`, 'eth_getCode', [address, at])
      if (code !== '0x') account.code = code
    }
    accounts.set(address, account)
  }
  const list = unpaid
    ? 'the sender and the recipient (the node runs nothing for a sender that cannot pay)'
    : discovered
      ? 'a local run over eth_getProof/eth_getCode/eth_getStorageAt'
      : 'eth_createAccessList'
  return { accounts, how: `${list} + ${viaProof ? 'eth_getProof' : 'eth_getBalance/eth_getTransactionCount/eth_getStorageAt'}` }
}

/** The node refused to run the call because its sender cannot pay (geth, Anvil and others say so in these words). */
export function cannotPay(err: unknown): boolean {
  return err instanceof EndpointRpcError && /insufficient funds|not enough funds|lack of funds/i.test(err.message)
}
