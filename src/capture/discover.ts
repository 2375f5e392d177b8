/**
 * Which accounts and slots a call reads, found by running it here over the endpoint's state: an
 * EthereumJS EVM on `RPCStateManager` (which reads accounts with `eth_getProof`, code with
 * `eth_getCode` and slots with `eth_getStorageAt` at the block), with every read recorded. The
 * fallback's fallback: `eth_createAccessList` answers most calls, but some nodes (Anvil) refuse
 * it for a call that reverts, and that is the call a capture is usually about.
 */
import { createBlock } from '@ethereumjs/block'
import { createCustomCommon, Mainnet } from '@ethereumjs/common'
import { createEVM } from '@ethereumjs/evm'
import { RPCStateManager } from '@ethereumjs/statemanager'
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util'
import type { Hardfork } from '../builder/genesisFile.ts'
import { CaptureError } from './endpoint.ts'

export interface BlockContext {
  number: string
  timestamp: string
  gasLimit: string
  baseFeePerGas?: string
  miner: string
  mixHash: string
}

/** Address (lowercase) → slots (32-byte hex) the call read or wrote. */
export type Touched = Map<string, Set<string>>

export async function discoverByRunning(url: string, chainId: number, hardfork: Hardfork, block: BlockContext, call: Record<string, unknown>): Promise<Touched> {
  const common = createCustomCommon({ chainId }, Mainnet, { hardfork })
  const rpc = new RPCStateManager({ provider: url, blockTag: BigInt(block.number), common })
  const touched: Touched = new Map()
  const touch = (address: Address) => {
    const key = address.toString().toLowerCase()
    if (!touched.has(key)) touched.set(key, new Set())
    return touched.get(key)!
  }
  const recorded = new Proxy(rpc, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown
      if (typeof value !== 'function') return value
      const fn = value as (...args: unknown[]) => unknown
      if (prop === 'getAccount' || prop === 'getCode' || prop === 'getCodeSize') {
        return (address: Address) => {
          touch(address)
          return fn.call(target, address)
        }
      }
      if (prop === 'getStorage' || prop === 'putStorage') {
        return (address: Address, key: Uint8Array, ...rest: unknown[]) => {
          touch(address).add(bytesToHex(key.length === 32 ? key : concat32(key)))
          return fn.call(target, address, key, ...rest)
        }
      }
      return fn.bind(target)
    },
  })
  const evm = await createEVM({ common, stateManager: recorded })
  const header = createBlock(
    {
      header: {
        number: BigInt(block.number),
        timestamp: BigInt(block.timestamp),
        gasLimit: BigInt(block.gasLimit),
        coinbase: block.miner as `0x${string}`,
        mixHash: block.mixHash as `0x${string}`,
        ...(block.baseFeePerGas === undefined ? {} : { baseFeePerGas: BigInt(block.baseFeePerGas) }),
      },
    },
    { common },
  )
  const from = new Address(hexToBytes(call.from as `0x${string}`))
  touch(from)
  try {
    await evm.runCall({
      caller: from,
      origin: from,
      ...(typeof call.to === 'string' ? { to: new Address(hexToBytes(call.to as `0x${string}`)) } : {}),
      data: hexToBytes(((call.data as string | undefined) ?? '0x') as `0x${string}`),
      value: BigInt((call.value as string | undefined) ?? 0),
      gasLimit: BigInt((call.gas as string | undefined) ?? block.gasLimit),
      block: header,
    })
  } catch (err) {
    throw new CaptureError(`while running the call over the endpoint's state at block ${block.number}: ${(err as Error).message}`)
  }
  return touched
}

function concat32(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(32)
  out.set(key, 32 - key.length)
  return out
}
