/**
 * Fixture source in, fixture files out. `buildFixtureFromSource` does the work in memory and
 * returns the files' bytes; `buildFixture` reads a `.scenario.json` file and writes the files.
 * The same source always gives the same bytes: nothing depends on the clock, the machine or the
 * order of a hash map.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { Block } from '@ethereumjs/block'
import { concatBytes } from '@ethereumjs/util'
import type { GenesisFile } from '../chain/loading/genesis.ts'
import { resolveContracts } from './contracts.ts'
import { FixtureSourceError, SourceLocation } from './errors.ts'
import { arrayAt, objectAt, optionalInteger, requiredInteger } from './fields.ts'
import { parseAmount } from './amounts.ts'
import { fixtureIndex } from './fixtureIndex.ts'
import { genesisAccounts } from './genesisAccounts.ts'
import { makeGenesisFile } from './genesisFile.ts'
import { mineBlock } from './mineBlock.ts'
import type { BlockPlan } from './mineBlock.ts'
import { openGenesisChain } from '../chain/loading/genesis.ts'
import { checkAgainstPlan, planBlock } from './planBlock.ts'
import type { PlannedTx } from './planBlock.ts'
import type { BlockSource, ScenarioSource } from './scenario.ts'
import { parseSettings, TOP_FIELDS } from './settings.ts'

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

const BLOCK_FIELDS = ['number', 'timestamp', 'gasLimit', 'transactions'] as const satisfies readonly (keyof BlockSource)[]

/**
 * Builds a fixture from a parsed source object, a {@link ScenarioSource} (checked here field by
 * field, since it usually comes from JSON). `baseDir` is where relative contract paths start;
 * `file` names the source in error messages. Throws {@link FixtureSourceError} for any mistake.
 */
export async function buildFixtureFromSource(source: unknown, baseDir: string, file = join(baseDir, '<scenario>')): Promise<BuiltFixture> {
  const root = new SourceLocation(file)
  const top = objectAt(source, TOP_FIELDS, root)
  const { network, chainId, hardfork, blockTime, genesisHeader, blockFields, priorityFee } = parseSettings(top, root)

  const contracts = await resolveContracts(top.contracts, baseDir, root.at('contracts'), hardfork)
  if (top.accounts === undefined) throw root.error('"accounts" is required')
  const { book, alloc } = genesisAccounts(top.accounts, contracts, root.at('accounts'))
  const genesis = makeGenesisFile(chainId, genesisHeader, alloc, hardfork)
  const chain = await openGenesisChain(genesis, network, { validateBlocks: true })

  const blockEntries = arrayAt(top.blocks, root.at('blocks'))
  const blocks: Block[] = []
  const planned: PlannedTx[][] = []
  let parent = chain.genesisBlock
  for (const [i, value] of blockEntries.entries()) {
    const number = parent.header.number + 1n
    const loc = root.at(`blocks[${i}] (block ${number})`)
    const entry = objectAt(value, BLOCK_FIELDS, loc)
    const declared = optionalInteger(entry, 'number', loc)
    if (declared !== undefined && BigInt(declared) !== number) {
      throw loc.at('number').error(`block number ${declared} is not the parent's + 1 (${number}); the chain's height comes from genesis.number`)
    }
    const gasLimit = entry.gasLimit === undefined ? undefined : parseAmount(entry.gasLimit, loc.at('gasLimit'))
    if (gasLimit !== undefined) checkGasLimit(gasLimit, parent.header.gasLimit, loc.at('gasLimit'))
    const timestamp = entry.timestamp === undefined ? parent.header.timestamp + blockTime : BigInt(requiredInteger(entry, 'timestamp', loc))
    if (timestamp <= parent.header.timestamp) {
      throw loc.at('timestamp').error(`timestamp ${timestamp} must be after the parent's (${parent.header.timestamp})`)
    }
    const blockPlan: BlockPlan = { ...blockFields, timestamp, ...(gasLimit === undefined ? {} : { gasLimit }) }
    const txs = await planBlock({ chain, book, contracts, ...(priorityFee === undefined ? {} : { priorityFee }) }, parent, blockPlan, entry.transactions === undefined ? [] : arrayAt(entry.transactions, loc.at('transactions')), loc)
    const { block, run } = await mineBlock(chain, parent, blockPlan, txs.map((t) => t.tx))
    checkAgainstPlan(txs, run, loc)
    blocks.push(block)
    planned.push(txs)
    parent = block
  }

  const first = Number(genesisHeader.number)
  const head = first + blocks.length
  const safe = optionalInteger(top, 'safe', root) ?? Math.max(first, head - 1)
  const finalized = optionalInteger(top, 'finalized', root) ?? Math.max(first, head - 2)
  if (safe > head) throw root.at('safe').error(`safe block ${safe} is beyond the head (${head})`)
  if (safe < first) throw root.at('safe').error(`safe block ${safe} is before the genesis (${first})`)
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

/** geth's `VerifyGaslimit`: a block's gas limit moves less than 1/1024 of its parent's, and is at least 5000. */
function checkGasLimit(limit: bigint, parentLimit: bigint, loc: SourceLocation): void {
  const bound = parentLimit / 1024n
  const diff = limit > parentLimit ? limit - parentLimit : parentLimit - limit
  if (diff >= bound) {
    throw loc.error(`gas limit ${limit} moves ${diff} from the parent's ${parentLimit}; consensus allows less than ${bound} (1/1024) per block`)
  }
  if (limit < 5000n) throw loc.error(`gas limit ${limit} is below the minimum 5000`)
}

export function writeFixtureFiles(built: BuiltFixture, outDir: string): void {
  mkdirSync(outDir, { recursive: true })
  for (const [name, content] of Object.entries(built.files)) writeFileSync(join(outDir, name), content)
}

