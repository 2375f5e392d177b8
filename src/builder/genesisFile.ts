/**
 * The geth-format `genesis.json` of a fixture. The builder writes it first and then builds the
 * chain from the parsed file (through src/chain/genesis.ts), so the fixture is made with exactly
 * the rules the loader will read it with.
 */
import { chainConfig, HARDFORKS } from '../chain/loading/genesis.ts'
import type { GenesisFile, Hardfork } from '../chain/loading/genesis.ts'
import { toQuantity } from '../encoding/hex.ts'
import { SYSTEM_CONTRACTS } from './systemContracts.ts'

/** One account of the genesis `alloc`. */
export interface AllocEntry {
  address: string
  balance: bigint
  nonce?: bigint
  code?: string
  /** 32-byte hex slot → 32-byte hex value. */
  storage?: Record<string, string>
}

export interface GenesisHeader {
  /** The genesis block's number: 0, or a real height (a chain placed at block 21,000,000). */
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint
  extraData: string
  coinbase: string
  mixHash: string
  /** A real parent's hash for a genesis at a height (a captured block's). Default the zero hash. */
  parentHash?: string
  /** Gas used by the genesis block (a captured block's); it sets the next block's base fee. */
  gasUsed?: bigint
  /** From Cancun: the genesis block's excess blob gas (it sets the blob base fee). Default 0. */
  excessBlobGas?: bigint
  /** From Cancun: the blob gas the genesis block used. Default 0. */
  blobGasUsed?: bigint
}

export { chainConfig, HARDFORKS } from '../chain/loading/genesis.ts'
export type { Hardfork } from '../chain/loading/genesis.ts'

/**
 * The genesis file, with fields in geth's order and `alloc` sorted by address (as geth writes
 * it), so equal inputs give equal bytes. The system contracts are added to `alloc`.
 */
export function makeGenesisFile(chainId: number, header: GenesisHeader, accounts: AllocEntry[], hardfork: Hardfork = 'osaka'): GenesisFile {
  // A source (or a capture) that gives a system contract's address its own account keeps it; a
  // fork before the contract's EIP has none (4788 came with Cancun, the other three with Prague).
  const taken = new Set(accounts.map((a) => a.address.toLowerCase()))
  const system: AllocEntry[] = SYSTEM_CONTRACTS.filter((c) => !taken.has(c.address.toLowerCase()) && HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf(c.eip === 4788 ? 'cancun' : 'prague')).map((c) => ({ address: c.address, balance: 0n, nonce: 1n, code: c.code }))
  const alloc: Record<string, unknown> = {}
  for (const entry of [...accounts, ...system].sort((a, b) => (a.address < b.address ? -1 : 1))) {
    alloc[entry.address.slice(2).toLowerCase()] = {
      ...(entry.code === undefined ? {} : { code: entry.code }),
      ...(entry.storage === undefined || Object.keys(entry.storage).length === 0 ? {} : { storage: entry.storage }),
      balance: toQuantity(entry.balance),
      ...(entry.nonce === undefined || entry.nonce === 0n ? {} : { nonce: toQuantity(entry.nonce) }),
    }
  }
  return {
    config: chainConfig(chainId, hardfork),
    nonce: '0x0',
    timestamp: toQuantity(header.timestamp),
    extraData: header.extraData,
    gasLimit: toQuantity(header.gasLimit),
    difficulty: '0x0',
    mixHash: header.mixHash,
    coinbase: header.coinbase,
    alloc,
    number: toQuantity(header.number),
    gasUsed: toQuantity(header.gasUsed ?? 0n),
    parentHash: header.parentHash ?? `0x${'00'.repeat(32)}`,
    baseFeePerGas: toQuantity(header.baseFeePerGas),
    ...(HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf('cancun')
      ? { excessBlobGas: toQuantity(header.excessBlobGas ?? 0n), blobGasUsed: toQuantity(header.blobGasUsed ?? 0n) }
      : {}),
  }
}
