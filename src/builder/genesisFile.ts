/**
 * The geth-format `genesis.json` of a fixture. The builder writes it first and then builds the
 * chain from the parsed file (through src/chain/genesis.ts), so the fixture is made with exactly
 * the rules the loader will read it with.
 */
import type { GenesisFile } from '../chain/genesis.ts'
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
  timestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint
  extraData: string
  coinbase: string
  mixHash: string
}

/**
 * Every fork through Osaka at block 0 / time 0: current mainnet rules from the first block, with
 * the London base fee in the genesis header. The blob schedule is mainnet's (EIP-7840 makes geth
 * require one from Cancun on). BPO1/BPO2 are left out: src/chain/genesis.ts drops their entries
 * anyway, because EthereumJS 10.1.3 misreads them.
 */
function chainConfig(chainId: number): GenesisFile['config'] {
  return {
    chainId,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    arrowGlacierBlock: 0,
    grayGlacierBlock: 0,
    mergeNetsplitBlock: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    pragueTime: 0,
    osakaTime: 0,
    terminalTotalDifficulty: 0,
    // No beacon deposit contract exists on these chains; geth reads deposit logs from this address.
    depositContractAddress: '0x0000000000000000000000000000000000000000',
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
  }
}

/**
 * The genesis file, with fields in geth's order and `alloc` sorted by address (as geth writes
 * it), so equal inputs give equal bytes. The system contracts are added to `alloc`.
 */
export function makeGenesisFile(chainId: number, header: GenesisHeader, accounts: AllocEntry[]): GenesisFile {
  const system: AllocEntry[] = SYSTEM_CONTRACTS.map((c) => ({ address: c.address, balance: 0n, nonce: 1n, code: c.code }))
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
    config: chainConfig(chainId),
    nonce: '0x0',
    timestamp: toQuantity(header.timestamp),
    extraData: header.extraData,
    gasLimit: toQuantity(header.gasLimit),
    difficulty: '0x0',
    mixHash: header.mixHash,
    coinbase: header.coinbase,
    alloc,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: `0x${'00'.repeat(32)}`,
    baseFeePerGas: toQuantity(header.baseFeePerGas),
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
  }
}
