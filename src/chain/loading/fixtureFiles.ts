/**
 * The JSON files of a fixture folder, checked before anything reads them: `genesis.json` (a geth
 * genesis) and the optional `forkchoice.json` or hive's `headfcu.json`. Whatever is malformed is
 * refused with a `FixtureError` naming the fixture, the file and the field, never a `TypeError`
 * from deep inside EthereumJS (`genesis.json` of `[]` once failed with "Cannot read properties of
 * undefined (reading 'blobSchedule')").
 */
import type { GenesisFile } from './genesis.ts'

export class FixtureError extends Error {
  override readonly name = 'FixtureError'
}

function kind(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'string') return `a string ${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)}`
  return `${typeof v} ${String(v)}`
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Header fields of a geth genesis: each, when given, a quantity or data as a string (or a JSON number). */
const HEADER_FIELDS = [
  'nonce',
  'timestamp',
  'extraData',
  'gasLimit',
  'difficulty',
  'mixHash',
  'coinbase',
  'number',
  'gasUsed',
  'parentHash',
  'baseFeePerGas',
  'excessBlobGas',
  'blobGasUsed',
]

/** A positive integer as JSON writes one: a number, or a decimal or `0x` string. */
function isPositiveInteger(v: unknown): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0
  return typeof v === 'string' && (/^[1-9]\d*$/.test(v) || /^0x0*[1-9a-f][0-9a-f]*$/i.test(v))
}

/** `genesis.json` as read, checked to be a geth genesis in shape; the values are EthereumJS's to judge. */
export function checkGenesis(value: unknown, path: string, name: string): GenesisFile {
  const fail = (problem: string): never => {
    throw new FixtureError(`fixture ${name}: ${path}: ${problem}`)
  }
  if (!isRecord(value)) fail(`must be a geth genesis (a JSON object with config and alloc), got ${kind(value)}`)
  const genesis = value as Record<string, unknown>
  if (!isRecord(genesis.config)) fail(`config: must be an object (the chain id and fork schedule), got ${kind(genesis.config)}`)
  const config = genesis.config as Record<string, unknown>
  if (!isPositiveInteger(config.chainId)) fail(`config.chainId: must be a positive integer, got ${kind(config.chainId)}`)
  if (config.blobSchedule !== undefined && !isRecord(config.blobSchedule)) fail(`config.blobSchedule: must be an object, got ${kind(config.blobSchedule)}`)
  for (const [field, v] of Object.entries(config)) {
    if ((field.endsWith('Block') || field.endsWith('Time')) && v !== null && typeof v !== 'number') {
      fail(`config.${field}: must be a number (a block number or a timestamp), got ${kind(v)}`)
    }
  }
  if (!isRecord(genesis.alloc)) fail(`alloc: must be an object of accounts by address, got ${kind(genesis.alloc)}`)
  for (const [address, account] of Object.entries(genesis.alloc as Record<string, unknown>)) {
    if (!/^(?:0x)?[0-9a-fA-F]{40}$/.test(address)) fail(`alloc: ${JSON.stringify(address.slice(0, 80))} is not an address`)
    if (!isRecord(account)) fail(`alloc.${address}: must be an object (balance, nonce, code, storage), got ${kind(account)}`)
  }
  for (const field of HEADER_FIELDS) {
    const v = genesis[field]
    if (v !== undefined && v !== null && typeof v !== 'string' && typeof v !== 'number') fail(`${field}: must be a hex string, got ${kind(v)}`)
  }
  return genesis as GenesisFile
}

/** The safe and finalized blocks a fixture names: numbers, or hashes. */
export interface Forkchoice {
  safe?: number | string
  finalized?: number | string
}

/** Our `forkchoice.json`: `{"safe": 5, "finalized": "0x..."}`. */
export function checkForkchoice(value: unknown, path: string, name: string): Forkchoice {
  const fail = (problem: string): never => {
    throw new FixtureError(`fixture ${name}: ${path}: ${problem}`)
  }
  if (!isRecord(value)) fail(`must be an object like {"safe": 5, "finalized": 4}, got ${kind(value)}`)
  const file = value as Record<string, unknown>
  for (const field of Object.keys(file)) {
    if (field !== 'safe' && field !== 'finalized') fail(`${field}: unknown field (allowed: safe, finalized)`)
    const v = file[field]
    if (typeof v !== 'number' && typeof v !== 'string') fail(`${field}: must be a block number or hash, got ${kind(v)}`)
  }
  return file as Forkchoice
}

/** hive's `headfcu.json` (an engine_forkchoiceUpdated request): its safe and finalized block hashes. */
export function checkHeadFcu(value: unknown, path: string, name: string): Forkchoice {
  const fail = (problem: string): never => {
    throw new FixtureError(`fixture ${name}: ${path}: ${problem}`)
  }
  if (!isRecord(value)) fail(`must be an engine_forkchoiceUpdated request, got ${kind(value)}`)
  const params = (value as Record<string, unknown>).params
  if (params === undefined) return {}
  if (!Array.isArray(params)) fail(`params: must be an array, got ${kind(params)}`)
  const state = (params as unknown[])[0]
  if (state === undefined) return {}
  if (!isRecord(state)) fail(`params[0]: must be an object (the forkchoice state), got ${kind(state)}`)
  const hash = (field: 'safeBlockHash' | 'finalizedBlockHash'): string | undefined => {
    const v = (state as Record<string, unknown>)[field]
    if (v === undefined) return undefined
    if (typeof v !== 'string') fail(`params[0].${field}: must be a block hash, got ${kind(v)}`)
    return v as string
  }
  return { safe: hash('safeBlockHash'), finalized: hash('finalizedBlockHash') }
}
