/**
 * A chain as a fixture folder again (the loader's inverse, `geth export`'s counterpart): what it was
 * loaded from plus every block mined since, so that the next start loads, verifies and serves it
 * identically (same hashes, receipts, storage, code).
 *
 * - `genesis.json`: the bytes the chain was loaded from (an Anvil dump's: the genesis made of it);
 * - `chain.rlp`: every block after the genesis, RLP-encoded and concatenated;
 * - `forkchoice.json`: the safe and finalized block numbers now;
 * - `edits.json` (./editsFile.ts), only when needed: the state edits made between blocks and the
 *   senders of impersonated transactions, which a replay of chain.rlp alone would not reproduce;
 * - `accounts.json`: the fixture's own index (its accounts, contracts, transactions), with the
 *   contracts created by transactions since (receipts' `contractAddress`: creations by other
 *   contracts are not known), named `created-<block>-<index>`, contracts given code by a state edit,
 *   named `code-<address>`, and the transactions mined since appended.
 *
 * Pooled transactions that were never mined are not part of a chain and are not exported.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bytesToHex, concatBytes } from '@ethereumjs/util'
import type { Chain } from '../chain.ts'
import type { TransactionJson } from '../blocks/render.ts'
import { placeholderR } from '../pool/impersonation.ts'
import { EDITS_FORMAT } from './editsFile.ts'
import type { EditsFile } from './editsFile.ts'

/** A chain that cannot be exported (it was not loaded from a fixture). */
export class ExportError extends Error {
  override readonly name = 'ExportError'
}

/** File name to contents, in the order they are written. */
export type FixtureFolder = ReadonlyMap<string, Uint8Array>

const text = (value: unknown): Uint8Array => Buffer.from(`${JSON.stringify(value, null, 2)}\n`)

/** The chain's fixture folder, as it is now (see the top of this file). */
export function exportChain(chain: Chain): FixtureFolder {
  const source = chain.source
  if (!source) throw new ExportError(`network ${chain.name} was not loaded from a fixture, so it has no genesis file to export`)
  const records = chain.blockchain.records
  const files = new Map<string, Uint8Array>()
  files.set('genesis.json', source.genesis)
  files.set('chain.rlp', concatBytes(...records.slice(1).map((r) => r.block.serialize())))
  files.set('forkchoice.json', text({ safe: Number(chain.safeNumber), finalized: Number(chain.finalizedNumber) }))
  const edits = editsFile(chain)
  if (edits) files.set('edits.json', text(edits))
  files.set('accounts.json', text(index(chain)))
  return files
}

/** Writes a fixture folder (created if missing; these files replaced, others left alone). */
export function writeFixtureFolder(dir: string, files: FixtureFolder): void {
  mkdirSync(dir, { recursive: true })
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes)
}

/** Whether a rendered transaction carries the impersonation placeholder of its sender (pool/impersonation.ts). */
function impersonated(tx: TransactionJson): boolean {
  return tx.s === '0x1' && typeof tx.r === 'string' && typeof tx.from === 'string' && BigInt(tx.r) === placeholderR(tx.from)
}

function editsFile(chain: Chain): EditsFile | undefined {
  const file: EditsFile = {
    comment: 'Written by gateway-double export: state edits made between blocks, and the senders of impersonated transactions (see docs/your-chain.md).',
    format: EDITS_FORMAT,
    state: [],
    senders: [],
  }
  for (const record of chain.blockchain.records) {
    const edited = chain.editsOf(record)
    if (edited) file.state.push({ after: Number(record.number), stateRoot: bytesToHex(edited.root), edits: [...edited.edits] })
    record.transactions.forEach((tx, index) => {
      if (impersonated(tx)) file.senders.push({ block: Number(record.number), index, hash: tx.hash, from: tx.from as string })
    })
  }
  return file.state.length > 0 || file.senders.length > 0 ? file : undefined
}

interface Index {
  comment?: string
  network?: string
  chainId?: number
  accounts?: unknown[]
  contracts?: { name?: string; address?: string; deployedIn?: unknown }[]
  transactions?: { hash?: string }[]
  [field: string]: unknown
}

/** The fixture's `accounts.json` with the contracts and transactions of the blocks mined since. */
function index(chain: Chain): Index {
  const loaded = chain.source?.index
  const base: Index = typeof loaded === 'object' && loaded !== null && !Array.isArray(loaded) ? structuredClone(loaded as Index) : {}
  const contracts = Array.isArray(base.contracts) ? base.contracts : []
  const transactions = Array.isArray(base.transactions) ? base.transactions : []
  const knownContracts = new Set(contracts.map((c) => c.address?.toLowerCase()))
  const knownTxs = new Set(transactions.map((t) => t.hash?.toLowerCase()))
  for (const record of chain.blockchain.records) {
    record.receipts.forEach((receipt, i) => {
      const tx = record.transactions[i]!
      if (knownTxs.has(tx.hash)) return
      transactions.push({
        block: Number(record.number),
        index: i,
        hash: tx.hash,
        type: Number(tx.type),
        status: Number(receipt.status ?? '0x1'),
        from: tx.from,
        to: tx.to,
        ...(impersonated(tx) ? { impersonated: true } : {}),
      } as { hash: string })
      const created = receipt.contractAddress
      if (typeof created === 'string' && receipt.status === '0x1' && !knownContracts.has(created)) {
        knownContracts.add(created)
        contracts.push({ name: `created-${record.number}-${i}`, address: created, deployedIn: { block: Number(record.number), index: i, hash: tx.hash } })
      }
    })
    for (const edit of chain.editsOf(record)?.edits ?? []) {
      if (edit.code !== undefined && edit.code !== '0x' && !knownContracts.has(edit.address)) {
        knownContracts.add(edit.address)
        contracts.push({ name: `code-${edit.address}`, address: edit.address, deployedIn: { stateEditAfterBlock: Number(record.number) } })
      }
    }
  }
  return {
    ...base,
    comment: `Written by gateway-double export of network ${chain.name} at block ${chain.head.number}${base.comment ? `; the fixture's own note: ${base.comment}` : ''}`,
    network: base.network ?? chain.name,
    chainId: base.chainId ?? Number(chain.chainId),
    accounts: Array.isArray(base.accounts) ? base.accounts : [],
    contracts,
    transactions,
  }
}
