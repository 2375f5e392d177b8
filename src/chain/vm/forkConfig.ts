/**
 * EIP-7910 (eth_config): a chain's fork configuration as geth reports it, for the fork its head
 * runs under (`current`), the next scheduled one and the last one. Only time-activated forks
 * (Shanghai on) have an entry; a chain whose head is earlier answers `current: null`. The fork
 * id is EIP-2124's, computed from the genesis hash and every fork block and time as geth gathers
 * them (forks at genesis left out).
 */
import { crc32 } from 'node:zlib'
import { paramsBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { vmLibraries } from './vmLibraries.ts'

export interface ForkConfig {
  activationTime: number
  blobSchedule: { target: number; max: number; baseFeeUpdateFraction: number } | null
  chainId: string
  forkId: string
  precompiles: Record<string, string>
  systemContracts: Record<string, string>
}

export interface ChainConfigAnswer {
  current: ForkConfig | null
  next: ForkConfig | null
  last: ForkConfig | null
}

/** geth's names of the precompiles (`PrecompiledContract.Name()`), by address. */
const PRECOMPILE_NAMES: Readonly<Record<string, string>> = {
  '0x0000000000000000000000000000000000000001': 'ECREC',
  '0x0000000000000000000000000000000000000002': 'SHA256',
  '0x0000000000000000000000000000000000000003': 'RIPEMD160',
  '0x0000000000000000000000000000000000000004': 'ID',
  '0x0000000000000000000000000000000000000005': 'MODEXP',
  '0x0000000000000000000000000000000000000006': 'BN254_ADD',
  '0x0000000000000000000000000000000000000007': 'BN254_MUL',
  '0x0000000000000000000000000000000000000008': 'BN254_PAIRING',
  '0x0000000000000000000000000000000000000009': 'BLAKE2F',
  '0x000000000000000000000000000000000000000a': 'KZG_POINT_EVALUATION',
  '0x000000000000000000000000000000000000000b': 'BLS12_G1ADD',
  '0x000000000000000000000000000000000000000c': 'BLS12_G1MSM',
  '0x000000000000000000000000000000000000000d': 'BLS12_G2ADD',
  '0x000000000000000000000000000000000000000e': 'BLS12_G2MSM',
  '0x000000000000000000000000000000000000000f': 'BLS12_PAIRING_CHECK',
  '0x0000000000000000000000000000000000000010': 'BLS12_MAP_FP_TO_G1',
  '0x0000000000000000000000000000000000000011': 'BLS12_MAP_FP2_TO_G2',
  '0x0000000000000000000000000000000000000100': 'P256VERIFY',
}

/** The system contracts of Cancun and Prague (EIP-4788, 2935, 7002, 7251), at their fixed addresses. */
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'
const HISTORY_STORAGE = '0x0000f90827f1c53a10cb7a02335b175320002935'
const WITHDRAWAL_REQUESTS = '0x00000961ef480eb55e80d19ad83579a64c007002'
const CONSOLIDATION_REQUESTS = '0x0000bbddc7ce488642fb579f8b00f3a590007251'

interface TimeFork {
  name: string
  time: bigint
}

/** What eth_config reads of a chain: its rules, genesis block and head time. */
export interface ChainFacts {
  common: Common
  chainId: bigint
  genesisHash: Uint8Array
  genesisTime: bigint
  headTime: bigint
}

/** eth_config's answer for a chain, at its head's time. */
export async function chainConfig(chain: ChainFacts): Promise<ChainConfigAnswer> {
  const { common, genesisTime, headTime } = chain
  const timeForks = common
    .hardforks()
    .filter((h) => h.timestamp !== undefined && h.timestamp !== null)
    .map((h) => ({ name: h.name, time: BigInt(h.timestamp!) }))
  const active = timeForks.filter((f) => f.time <= headTime)
  const current = active[active.length - 1]
  const next = timeForks.find((f) => f.time > headTime)
  const last = timeForks[timeForks.length - 1]
  const { evm } = await vmLibraries()
  const assemble = (fork: TimeFork | undefined): ForkConfig | null => (fork ? forkEntry(chain, fork, genesisTime, evm.getActivePrecompiles) : null)
  const nextEntry = assemble(next)
  return { current: assemble(current), next: nextEntry, last: nextEntry === null ? null : assemble(last) }
}

function forkEntry(
  chain: ChainFacts,
  fork: TimeFork,
  genesisTime: bigint,
  activePrecompiles: (common: Common) => Map<string, unknown>,
): ForkConfig {
  const common = chain.common.copy()
  common.setHardfork(fork.name)
  // The blob parameters are the block library's; a chain that has not decoded a block may lack them.
  common.updateParams(paramsBlock)
  const precompiles: Record<string, string> = {}
  for (const address of activePrecompiles(common).keys()) {
    const hex = `0x${address}`
    precompiles[PRECOMPILE_NAMES[hex] ?? hex] = hex
  }
  return {
    activationTime: Number(genesisTime >= fork.time ? 0n : fork.time),
    blobSchedule: blobSchedule(common),
    chainId: `0x${chain.chainId.toString(16)}`,
    forkId: forkId(chain, fork.time, genesisTime),
    precompiles,
    systemContracts: systemContracts(common),
  }
}

function blobSchedule(common: Common): ForkConfig['blobSchedule'] {
  if (!common.isActivatedEIP(4844)) return null
  const perBlob = common.param('blobGasPerBlob')
  const schedule = common.getBlobGasSchedule()
  return {
    target: Number(schedule.targetBlobGasPerBlock / perBlob),
    max: Number(schedule.maxBlobGasPerBlock / perBlob),
    baseFeeUpdateFraction: Number(schedule.blobGasPriceUpdateFraction),
  }
}

function systemContracts(common: Common): Record<string, string> {
  const out: Record<string, string> = {}
  if (common.gteHardfork('prague')) {
    out.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = CONSOLIDATION_REQUESTS
    const deposit = (common as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams.depositContractAddress
    out.DEPOSIT_CONTRACT_ADDRESS = (deposit ?? `0x${'00'.repeat(20)}`).toLowerCase()
    out.HISTORY_STORAGE_ADDRESS = HISTORY_STORAGE
    out.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = WITHDRAWAL_REQUESTS
  }
  if (common.gteHardfork('cancun')) out.BEACON_ROOTS_ADDRESS = BEACON_ROOTS
  return out
}

/**
 * EIP-2124's fork hash at time `at`, as geth's `forkid.NewID` gathers forks: every fork block, then
 * every fork time up to `at`, each once, in order; none at 0, no time at or before genesis.
 */
function forkId(chain: ChainFacts, at: bigint, genesisTime: bigint): string {
  const blocks = new Set<bigint>()
  const times = new Set<bigint>()
  for (const h of chain.common.hardforks()) {
    if (h.timestamp !== undefined && h.timestamp !== null) {
      const t = BigInt(h.timestamp)
      if (t > genesisTime && t <= at) times.add(t)
    } else if (h.block !== null && h.block !== undefined && BigInt(h.block) !== 0n) {
      blocks.add(BigInt(h.block))
    }
  }
  let hash = crc32(chain.genesisHash)
  for (const fork of [...[...blocks].sort(ascending), ...[...times].sort(ascending)]) {
    const bytes = new Uint8Array(8)
    new DataView(bytes.buffer).setBigUint64(0, fork)
    hash = crc32(bytes, hash)
  }
  return `0x${hash.toString(16).padStart(8, '0')}`
}

function ascending(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}
