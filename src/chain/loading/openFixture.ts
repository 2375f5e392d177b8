/**
 * A fixture's files to a verified `Chain`: `genesis.json` opened, every block of `chain.rlp`
 * replayed through the VM on its parent's state (with the state edits `edits.json` lists before
 * it, and its impersonated senders), each required to reproduce its header's state root, receipts
 * root, bloom and gas used (and its transactions, uncles and withdrawals roots); a block that does
 * not is refused with an error naming the block and the field. What a successful replay produced
 * is kept (verifiedCache.ts), and later loads of the same files with the same code start from it
 * instead of replaying. `loadFixture` (./loadFixture.ts) reads the files from a folder; the blocks
 * are decoded, checked and replayed by ./chainBlocks.ts.
 */
import { join } from 'node:path'
import type { BlockBytes } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import { keccakReady } from '../../encoding/keccak.ts'
import { recordOf } from '../blocks/record.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { Chain } from '../chain.ts'
import type { EditedState } from '../chain.ts'
import type { ChainClock } from '../clock.ts'
import type { MiningMode } from '../mining/miner.ts'
import { withoutEthereumJsContext } from '../vm/ethereumjsMessage.ts'
import { KeyBook } from '../vm/keyBook.ts'
import type { RecordingStateManager } from '../vm/recordingState.ts'
import { applyEdits } from '../vm/stateEdits.ts'
import type { StateEdit } from '../vm/stateEdits.ts'
import type { TagLags } from '../blocks/types.ts'
import { checkStaticRoots, decodeBlock, decodeConcatenated, lazyRecord, replay } from './chainBlocks.ts'
import { NO_EDITS, parseEditsFile } from './editsFile.ts'
import type { ParsedEdits } from './editsFile.ts'
import { checkGenesis, FixtureError } from './fixtureFiles.ts'
import type { Forkchoice } from './fixtureFiles.ts'
import { openGenesisChain, openVerifiedGenesis, stateOver } from './genesis.ts'
import type { Hardfork } from './genesis.ts'
import { cacheKey, defaultCacheDir, readCache, writeCache } from './verifiedCache.ts'
import type { CachedChain } from './verifiedCache.ts'

export interface LoadOptions {
  /** The network name, used in messages and as the chain's name. Default: the folder's name. */
  name?: string
  /**
   * Where verified chains are kept (see verifiedCache.ts), or false to verify on every load.
   * Default: node_modules/.cache/gateway-double of the project the process runs in, else a folder
   * in the system's temporary folder; `GATEWAY_DOUBLE_CACHE_DIR` names another.
   */
  cache?: string | false
  /** Where blocks mined later take their timestamps from. Default: the system clock (`Date.now`). */
  clock?: ChainClock
  /** `auto` (default): each sent transaction is mined at once; `manual`: they wait for `chain.mine()`. */
  miningMode?: MiningMode
  /** For an Anvil state dump, which records none: the chain id (default 31337, Anvil's). */
  chainId?: number
  /** For an Anvil state dump: the rules (default `osaka`). */
  hardfork?: Hardfork
}

/** A fixture's files, as read (what `loadFixtureFiles` loads; an export writes them again). */
export interface FixtureFiles {
  /** `genesis.json` */
  readonly genesis: Uint8Array
  /** `chain.rlp` (empty: the genesis block alone) */
  readonly chain: Uint8Array
  /** `edits.json` (see editsFile.ts) */
  readonly edits?: Uint8Array
  /** The safe and finalized blocks (`forkchoice.json`, or hive's `headfcu.json`), checked */
  readonly forkchoice?: Forkchoice
  /** How far they trail the head as blocks are mined (default: their distances at the head) */
  readonly lags?: TagLags
  /** Where they were read, for messages */
  readonly forkchoicePath?: string
  /** `accounts.json`, parsed: kept for an export, not read by the loader */
  readonly index?: unknown
  /** The contracts `accounts.json` names, by name (`Chain.contracts`) */
  readonly contracts?: Readonly<Record<string, string>>
}

/** What either way of opening a fixture gives the chain. */
interface Opened {
  common: Common
  state: () => Promise<RecordingStateManager>
  records: BlockRecord[]
  edited: Map<BlockRecord, EditedState>
}

/** Where the genesis is, its parsed contents, and the other files' bytes and blocks, for the two ways below. */
interface Reading {
  name: string
  genesisPath: string
  genesis: ReturnType<typeof checkGenesis>
  raws: BlockBytes[]
  edits: ParsedEdits
}

/** Loads a fixture from its files' contents (`loadFixture` reads them from a folder). */
export async function loadFixtureFiles(files: FixtureFiles, opts: LoadOptions & { name: string; dir?: string }): Promise<Chain> {
  const { name } = opts
  const genesisPath = opts.dir === undefined ? 'genesis.json' : join(opts.dir, 'genesis.json')
  const reading: Reading = {
    name,
    genesisPath,
    genesis: checkGenesis(parseJson<unknown>(files.genesis, genesisPath, name), genesisPath, name),
    raws: [...decodeConcatenated(files.chain, name)],
    edits: files.edits === undefined ? NO_EDITS : parseEditsFile(files.edits, name),
  }
  const cacheDir = opts.cache === false ? undefined : (opts.cache ?? defaultCacheDir())
  const key = cacheDir === undefined ? undefined : cacheKey(files.edits === undefined ? [files.genesis, files.chain] : [files.genesis, files.chain, files.edits])
  const read = cacheDir !== undefined && key !== undefined ? readCache(cacheDir, key) : undefined
  // A cache holds every block of the chain it was made from (its key covers chain.rlp): one that
  // does not is ignored, and the chain replayed.
  const cached = read && read.records.length === reading.raws.length ? read : undefined
  const opened = cached ? fromCache(reading, cached) : await byReplay(reading, cacheDir !== undefined && key !== undefined ? { dir: cacheDir, key } : undefined)
  const { records } = opened
  const head = records[records.length - 1]!
  const { safe, finalized } = resolveForkchoice(files.forkchoice ?? {}, files.forkchoicePath ?? 'forkchoice.json', name, records, head.number)
  return Chain.open({
    name,
    common: opened.common,
    state: opened.state,
    records,
    safe,
    finalized,
    ...(files.lags === undefined ? {} : { lags: files.lags }),
    verifiedBy: cached ? 'cache' : 'replay',
    clock: opts.clock,
    miningMode: opts.miningMode,
    edits: opened.edited,
    ...(files.contracts === undefined ? {} : { contracts: files.contracts }),
    source: { genesis: files.genesis, ...(files.index === undefined ? {} : { index: files.index }) },
  })
}

/**
 * Verified by an earlier load of these very bytes: the records are read back, and each block is
 * decoded into an EthereumJS Block only when something first asks for it (decoding builds a
 * Common per transaction: most of a cached load's time, for blocks most runs never read). No
 * blockchain and no VM: a cached load executes nothing (see vmLibraries.ts); nor a state manager
 * until something reads state.
 */
function fromCache({ name, genesisPath, genesis, raws, edits }: Reading, cached: CachedChain): Opened {
  let verified: ReturnType<typeof openVerifiedGenesis>
  try {
    verified = openVerifiedGenesis(genesis, name, { genesisStateRoot: hexToBytes(cached.genesisStateRoot as `0x${string}`) })
  } catch (err) {
    throw genesisError(err, genesisPath, name)
  }
  const { genesisBlock, common } = verified
  const { entries, book } = cached
  // The genesis block is built when first read, as the later blocks are decoded (lazyRecord).
  const records: BlockRecord[] = [
    {
      get block() {
        return genesisBlock()
      },
      number: verified.number,
      hash: cached.genesisHash,
      get timestamp() {
        return genesisBlock().header.timestamp
      },
      transactions: [],
      receipts: [],
    },
  ]
  let number = verified.number
  for (const [i, raw] of raws.entries()) {
    number++
    records.push(lazyRecord(raw, common, number, cached.records[i]!, name, edits.senders.get(number)))
  }
  const edited = new Map<BlockRecord, EditedState>()
  for (const [i, saved] of cached.edited ?? []) edited.set(records[i]!, { root: hexToBytes(saved.root as `0x${string}`), edits: saved.edits })
  return { common, state: () => stateOver(new Map(entries), common, KeyBook.from(book)), records, edited }
}

/** Every block replayed on its parent's state (and the state edits after it); what it gave cached. */
async function byReplay({ name, genesisPath, genesis, raws, edits }: Reading, cache: { dir: string; key: string } | undefined): Promise<Opened> {
  await keccakReady() // the replay hashes every trie node it writes
  const open = await openGenesisChain(genesis, name, { validateBlocks: false }).catch((err: unknown) => {
    throw genesisError(err, genesisPath, name)
  })
  const { blockchain, vm, genesisBlock, stateEntries, stateManager, common } = open
  const records = [recordOf(genesisBlock, [], [])]
  const edited = new Map<BlockRecord, EditedState>()
  let parent = genesisBlock
  let parentRoot = await applyRecordedEdits(stateManager, records[0]!, edits, edited, name)
  for (const raw of raws) {
    const block = decodeBlock(raw, common, name, parent, edits.senders.get(parent.header.number + 1n))
    // The blockchain serves BLOCKHASH to the replay (the chain's own VM reads the records).
    await blockchain.putBlock(block)
    await checkStaticRoots(block, name)
    const record = await replay(vm, block, parent, parentRoot, name)
    records.push(record)
    parentRoot = await applyRecordedEdits(stateManager, record, edits, edited, name)
    parent = block
  }
  const unused = [...edits.stateAfter.keys(), ...edits.senders.keys()].find((n) => !records.some((r) => r.number === n))
  if (unused !== undefined) throw new FixtureError(`fixture ${name}: edits.json names block ${unused}, which is not in the chain`)
  if (cache !== undefined) {
    writeCache(cache.dir, cache.key, {
      genesisStateRoot: bytesToHex(genesisBlock.header.stateRoot),
      genesisHash: records[0]!.hash,
      records: records.slice(1).map((r) => ({ hash: r.hash, transactions: [...r.transactions], receipts: [...r.receipts] })),
      entries: [...stateEntries],
      book: stateManager.book.save(),
      edited: records.flatMap((r, i) => {
        const e = edited.get(r)
        return e ? [[i, { root: bytesToHex(e.root), edits: [...e.edits] }] as [number, { root: string; edits: StateEdit[] }]] : []
      }),
    })
  }
  return { common, state: () => Promise.resolve(stateManager), records, edited }
}

/** EthereumJS's refusal of a genesis that passed `checkGenesis` (a value it cannot read), naming the file. */
function genesisError(err: unknown, path: string, name: string): FixtureError {
  return err instanceof FixtureError ? err : new FixtureError(`fixture ${name}: ${path}: ${withoutEthereumJsContext(err)}`)
}

/**
 * Applies the state edits `edits.json` lists after `record` (if any) on its state, checks the root
 * they give against the one written, and notes them; returns the state root the next block
 * executes on.
 */
async function applyRecordedEdits(
  state: RecordingStateManager,
  record: BlockRecord,
  edits: ParsedEdits,
  edited: Map<BlockRecord, EditedState>,
  name: string,
): Promise<Uint8Array> {
  const root = record.block.header.stateRoot
  const entry = edits.stateAfter.get(record.number)
  if (!entry) return root
  await state.setStateRoot(root)
  await applyEdits(state, entry.edits)
  const got = await state.getStateRoot()
  if (!equalsBytes(got, entry.root)) {
    throw new FixtureError(
      `fixture ${name}: edits.json: the state edits after block ${record.number} give state root ${bytesToHex(got)}, the file says ${bytesToHex(entry.root)}`,
    )
  }
  edited.set(record, { root: got, edits: entry.edits })
  return got
}

export function parseJson<T>(bytes: Uint8Array, path: string, name: string): T {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T
  } catch (err) {
    throw new FixtureError(`fixture ${name}: ${path} is not valid JSON (${(err as Error).message})`)
  }
}

function resolveForkchoice(file: Forkchoice, path: string, name: string, records: BlockRecord[], head: bigint): { safe: bigint; finalized: bigint } {
  const find = (field: 'safe' | 'finalized'): bigint => {
    const value = file[field]
    if (value === undefined) return head
    if (typeof value === 'number' && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new FixtureError(`fixture ${name}: ${path}: ${field}: must be a block number of at least 0 or a block hash, got ${value}`)
    }
    if (typeof value === 'number' || /^\d+$/.test(value) || /^0x[0-9a-f]{1,16}$/i.test(value)) {
      const n = BigInt(value)
      if (n <= head) return n
      throw new FixtureError(`fixture ${name}: ${field} block ${n} is beyond the head ${head}`)
    }
    const byHash = records.find((r) => r.hash === value.toLowerCase())
    if (!byHash) throw new FixtureError(`fixture ${name}: ${field} block ${value} is not in the chain`)
    return byHash.number
  }
  return { safe: find('safe'), finalized: find('finalized') }
}
