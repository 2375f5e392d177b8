/**
 * Fixture source in, fixture files out. `buildFixtureFromSource` does the work in memory and
 * returns the files' bytes; `buildFixture` reads a `.scenario.json` file and writes the files.
 * The same source always gives the same bytes: nothing depends on the clock, the machine or the
 * order of a hash map.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { Block } from '@ethereumjs/block'
import { concatBytes, hexToBytes, utf8ToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { GenesisFile } from '../chain/genesis.ts'
import { addressOfKey, derivedKey, parseAddress } from './addressBook.ts'
import { parseAmount } from './amounts.ts'
import { resolveContracts } from './contracts.ts'
import { FixtureSourceError, SourceLocation } from './errors.ts'
import { arrayAt, hexAt, objectAt, optionalInteger, requiredInteger, requiredString } from './fields.ts'
import { genesisAccounts } from './genesisAccounts.ts'
import { makeGenesisFile } from './genesisFile.ts'
import { mineBlock } from './mineBlock.ts'
import type { BlockPlan } from './mineBlock.ts'
import { openChain } from './openChain.ts'
import { planBlock } from './planBlock.ts'
import type { PlannedTx } from './planBlock.ts'
import { fixtureIndex } from './fixtureIndex.ts'

/** The files of a fixture chain, by file name, exactly as written to disk. */
export interface FixtureFiles {
  'genesis.json': string
  'chain.rlp': Uint8Array
  'forkchoice.json': string
  'accounts.json': string
}

export interface BuiltFixture {
  network: string
  files: FixtureFiles
  genesis: GenesisFile
  /** Blocks 1..N as mined. */
  blocks: Block[]
}

const TOP_FIELDS = [
  'network', 'chainId', 'genesis', 'blockTime', 'feeRecipient', 'prevRandao', 'extraData',
  'priorityFee', 'accounts', 'contracts', 'blocks', 'safe', 'finalized',
] as const
const GENESIS_FIELDS = ['timestamp', 'gasLimit', 'baseFeePerGas', 'extraData', 'coinbase', 'mixHash'] as const
const BLOCK_FIELDS = ['timestamp', 'transactions'] as const

/** Defaults for the fields every block after genesis shares (see ScenarioSource). */
const DEFAULT_FEE_RECIPIENT = addressOfKey(derivedKey('fee-recipient'))
const DEFAULT_PREVRANDAO = keccak_256(utf8ToBytes('gateway-double:prevRandao'))
const DEFAULT_EXTRA_DATA = utf8ToBytes('gateway-double')

/**
 * Builds a fixture from a parsed source object. `baseDir` is where relative contract paths
 * start; `file` names the source in error messages.
 */
export async function buildFixtureFromSource(source: unknown, baseDir: string, file = join(baseDir, '<scenario>')): Promise<BuiltFixture> {
  const root = new SourceLocation(file)
  const top = objectAt(source, TOP_FIELDS, root)
  const network = requiredString(top, 'network', root)
  if (!/^[a-z0-9][a-z0-9-]*$/.test(network)) throw root.at('network').error('use lowercase letters, digits and dashes (it names the output folder)')
  const chainId = requiredInteger(top, 'chainId', root)
  if (chainId === 0) throw root.at('chainId').error('chainId must be positive')
  const blockTime = BigInt(optionalInteger(top, 'blockTime', root) ?? 12)
  if (blockTime === 0n) throw root.at('blockTime').error('blockTime must be positive')

  const genesisLoc = root.at('genesis')
  const g = objectAt(top.genesis, GENESIS_FIELDS, genesisLoc)
  const genesisHeader = {
    timestamp: BigInt(requiredInteger(g, 'timestamp', genesisLoc)),
    gasLimit: g.gasLimit === undefined ? 36_000_000n : parseAmount(g.gasLimit, genesisLoc.at('gasLimit')),
    baseFeePerGas: g.baseFeePerGas === undefined ? 1_000_000_000n : parseAmount(g.baseFeePerGas, genesisLoc.at('baseFeePerGas')),
    extraData: g.extraData === undefined ? '0x' : extraDataAt(g.extraData, genesisLoc.at('extraData')),
    coinbase: g.coinbase === undefined ? `0x${'00'.repeat(20)}` : parseAddress(g.coinbase, genesisLoc.at('coinbase')),
    mixHash: g.mixHash === undefined ? `0x${'00'.repeat(32)}` : hexAt(g.mixHash, genesisLoc.at('mixHash'), 32),
  }
  const plan = {
    coinbase: top.feeRecipient === undefined ? DEFAULT_FEE_RECIPIENT : parseAddress(top.feeRecipient, root.at('feeRecipient')),
    prevRandao: top.prevRandao === undefined ? DEFAULT_PREVRANDAO : hexToBytes(hexAt(top.prevRandao, root.at('prevRandao'), 32) as `0x${string}`),
    extraData: top.extraData === undefined ? DEFAULT_EXTRA_DATA : hexToBytes(extraDataAt(top.extraData, root.at('extraData')) as `0x${string}`),
  }
  const priorityFee = top.priorityFee === undefined ? undefined : parseAmount(top.priorityFee, root.at('priorityFee'))

  const contracts = await resolveContracts(top.contracts, baseDir, root.at('contracts'))
  if (top.accounts === undefined) throw root.error('"accounts" is required')
  const { book, alloc } = genesisAccounts(top.accounts, contracts, root.at('accounts'))
  const genesis = makeGenesisFile(chainId, genesisHeader, alloc)
  const chain = await openChain(genesis, network)

  const blockEntries = arrayAt(top.blocks, root.at('blocks'))
  const blocks: Block[] = []
  const planned: PlannedTx[][] = []
  let parent = chain.genesisBlock
  for (const [i, value] of blockEntries.entries()) {
    const loc = root.at(`blocks[${i}] (block ${i + 1})`)
    const entry = objectAt(value, BLOCK_FIELDS, loc)
    const timestamp = entry.timestamp === undefined ? parent.header.timestamp + blockTime : BigInt(requiredInteger(entry, 'timestamp', loc))
    if (timestamp <= parent.header.timestamp) {
      throw loc.at('timestamp').error(`timestamp ${timestamp} must be after the parent's (${parent.header.timestamp})`)
    }
    const blockPlan: BlockPlan = { ...plan, timestamp }
    const txs = await planBlock({ chain, book, contracts, ...(priorityFee === undefined ? {} : { priorityFee }) }, parent, blockPlan, entry.transactions === undefined ? [] : arrayAt(entry.transactions, loc.at('transactions')), loc)
    const { block, run } = await mineBlock(chain, parent, blockPlan, txs.map((t) => t.tx))
    // The scratch run and the real block must agree; if not, a transaction depends on something
    // the scratch run cannot see (the block's system calls), and the fixture would mislead.
    run.results.forEach((result, j) => {
      const expected = txs[j]!
      const status = result.execResult.exceptionError === undefined ? 1 : 0
      if (status !== expected.status || result.totalGasSpent !== expected.gasUsed) {
        throw loc.at('transactions', j).error(`behaves differently in the mined block (status ${status}, gas ${result.totalGasSpent}) than in its trial run (status ${expected.status}, gas ${expected.gasUsed})`)
      }
    })
    blocks.push(block)
    planned.push(txs)
    parent = block
  }

  const head = blocks.length
  const safe = optionalInteger(top, 'safe', root) ?? Math.max(0, head - 1)
  const finalized = optionalInteger(top, 'finalized', root) ?? Math.max(0, head - 2)
  if (safe > head) throw root.at('safe').error(`safe block ${safe} is beyond the head (${head})`)
  if (finalized > safe) throw root.at('finalized').error(`finalized block ${finalized} is after the safe block (${safe})`)

  return {
    network,
    genesis,
    blocks,
    files: {
      'genesis.json': `${JSON.stringify(genesis, null, 2)}\n`,
      'chain.rlp': concatBytes(...blocks.map((b) => b.serialize())),
      'forkchoice.json': `${JSON.stringify({ safe, finalized })}\n`,
      'accounts.json': `${JSON.stringify(fixtureIndex(network, chainId, book, blocks, planned), null, 2)}\n`,
    },
  }
}

/**
 * Builds the fixture described by the `.scenario.json` file at `sourcePath` and writes its files
 * into `outDir` (created if missing).
 */
export async function buildFixture(sourcePath: string, outDir: string): Promise<BuiltFixture> {
  const { source, baseDir, file } = readScenarioFile(sourcePath)
  const built = await buildFixtureFromSource(source, baseDir, file)
  writeFixtureFiles(built, outDir)
  return built
}

/** A scenario file parsed, with the folder its contract paths start from and its name for messages. */
export function readScenarioFile(sourcePath: string): { source: unknown; baseDir: string; file: string } {
  const file = relative(process.cwd(), resolve(sourcePath)) || sourcePath
  let text: string
  try {
    text = readFileSync(sourcePath, 'utf8')
  } catch (e) {
    throw new FixtureSourceError(file, '', `cannot read: ${(e as Error).message}`)
  }
  try {
    return { source: JSON.parse(text), baseDir: dirname(resolve(sourcePath)), file }
  } catch (e) {
    throw new FixtureSourceError(file, '', `not valid JSON: ${(e as Error).message}`)
  }
}

export function writeFixtureFiles(built: BuiltFixture, outDir: string): void {
  mkdirSync(outDir, { recursive: true })
  for (const [name, content] of Object.entries(built.files)) writeFileSync(join(outDir, name), content)
}

function extraDataAt(value: unknown, loc: SourceLocation): string {
  const hex = hexAt(value, loc)
  if (hex.length > 2 + 64) throw loc.error('extraData is at most 32 bytes')
  return hex
}
