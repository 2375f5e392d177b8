/**
 * The scenario-wide settings: chain identity, the genesis header, and the header fields every
 * later block shares. Defaults are fixed values, never the clock, so a source builds the same
 * bytes every time.
 */
import { hexToBytes, utf8ToBytes } from '@ethereumjs/util'
import { keccak256 } from '../encoding/keccak.ts'
import { addressOfKey, derivedKey, parseAddress } from './addressBook.ts'
import { parseAmount } from './amounts.ts'
import type { SourceLocation } from './errors.ts'
import { hexAt, objectAt, optionalInteger, optionalString, requiredInteger, requiredString } from './fields.ts'
import { HARDFORKS } from './genesisFile.ts'
import type { GenesisHeader, Hardfork } from './genesisFile.ts'
import type { BlockPlan } from './mineBlock.ts'
import type { GenesisSource, ScenarioSource } from './scenario.ts'

export const TOP_FIELDS = [
  'network', 'chainId', 'genesis', 'blockTime', 'feeRecipient', 'prevRandao', 'extraData',
  'priorityFee', 'accounts', 'contracts', 'blocks', 'safe', 'finalized', 'hardfork',
] as const satisfies readonly (keyof ScenarioSource)[]
const GENESIS_FIELDS = [
  'number', 'timestamp', 'gasLimit', 'baseFeePerGas', 'extraData', 'coinbase', 'mixHash', 'parentHash', 'gasUsed', 'excessBlobGas', 'blobGasUsed',
] as const satisfies readonly (keyof GenesisSource)[]

/** The fee recipient when a source names none: the address of the name "fee-recipient". */
const DEFAULT_FEE_RECIPIENT = addressOfKey(derivedKey('fee-recipient'))
const DEFAULT_PREVRANDAO = keccak256(utf8ToBytes('gateway-double:prevRandao'))
/** Lets anyone looking at a block tell it came from a fixture. */
const DEFAULT_EXTRA_DATA = utf8ToBytes('gateway-double')

export interface Settings {
  network: string
  chainId: number
  hardfork: Hardfork
  blockTime: bigint
  genesisHeader: GenesisHeader
  /** Header fields of blocks after genesis, except the timestamp. */
  blockFields: Omit<BlockPlan, 'timestamp'>
  priorityFee?: bigint
}

export function parseSettings(top: Record<string, unknown>, root: SourceLocation): Settings {
  const network = requiredString(top, 'network', root)
  if (!/^[a-z0-9][a-z0-9-]*$/.test(network)) throw root.at('network').error('use lowercase letters, digits and dashes (it names the output folder)')
  const chainId = requiredInteger(top, 'chainId', root)
  if (chainId === 0) throw root.at('chainId').error('chainId must be positive')
  const blockTime = BigInt(optionalInteger(top, 'blockTime', root) ?? 12)
  if (blockTime === 0n) throw root.at('blockTime').error('blockTime must be positive')

  const hardfork = (optionalString(top, 'hardfork', root) ?? 'osaka') as Hardfork
  if (!HARDFORKS.includes(hardfork)) throw root.at('hardfork').error(`unknown fork ${JSON.stringify(hardfork)} (one of: ${HARDFORKS.join(', ')})`)

  const at = root.at('genesis')
  const g = objectAt(top.genesis, GENESIS_FIELDS, at)
  const genesisHeader: GenesisHeader = {
    number: BigInt(optionalInteger(g, 'number', at) ?? 0),
    timestamp: BigInt(requiredInteger(g, 'timestamp', at)),
    gasLimit: g.gasLimit === undefined ? 36_000_000n : parseAmount(g.gasLimit, at.at('gasLimit')),
    baseFeePerGas: g.baseFeePerGas === undefined ? 1_000_000_000n : parseAmount(g.baseFeePerGas, at.at('baseFeePerGas')),
    extraData: g.extraData === undefined ? '0x' : extraDataAt(g.extraData, at.at('extraData')),
    coinbase: g.coinbase === undefined ? `0x${'00'.repeat(20)}` : parseAddress(g.coinbase, at.at('coinbase')),
    mixHash: g.mixHash === undefined ? `0x${'00'.repeat(32)}` : hexAt(g.mixHash, at.at('mixHash'), 32),
    ...(g.parentHash === undefined ? {} : { parentHash: hexAt(g.parentHash, at.at('parentHash'), 32) }),
    ...(g.gasUsed === undefined ? {} : { gasUsed: parseAmount(g.gasUsed, at.at('gasUsed')) }),
    ...(g.excessBlobGas === undefined ? {} : { excessBlobGas: parseAmount(g.excessBlobGas, at.at('excessBlobGas')) }),
    ...(g.blobGasUsed === undefined ? {} : { blobGasUsed: parseAmount(g.blobGasUsed, at.at('blobGasUsed')) }),
  }
  if (genesisHeader.gasUsed !== undefined && genesisHeader.gasUsed > genesisHeader.gasLimit) {
    throw at.at('gasUsed').error(`gas used ${genesisHeader.gasUsed} is above the gas limit ${genesisHeader.gasLimit}`)
  }
  const blockFields = {
    coinbase: top.feeRecipient === undefined ? DEFAULT_FEE_RECIPIENT : parseAddress(top.feeRecipient, root.at('feeRecipient')),
    prevRandao: top.prevRandao === undefined ? DEFAULT_PREVRANDAO : hexToBytes(hexAt(top.prevRandao, root.at('prevRandao'), 32) as `0x${string}`),
    extraData: top.extraData === undefined ? DEFAULT_EXTRA_DATA : hexToBytes(extraDataAt(top.extraData, root.at('extraData')) as `0x${string}`),
  }
  const priorityFee = top.priorityFee === undefined ? undefined : parseAmount(top.priorityFee, root.at('priorityFee'))
  return { network, chainId, hardfork, blockTime, genesisHeader, blockFields, ...(priorityFee === undefined ? {} : { priorityFee }) }
}

function extraDataAt(value: unknown, loc: SourceLocation): string {
  const hex = hexAt(value, loc)
  if (hex.length > 2 + 64) throw loc.error('extraData is at most 32 bytes')
  return hex
}
