/**
 * `edits.json`: what a chain.rlp replay alone would not reproduce of a chain the double grew.
 *
 * - `state`: state edits (`anvil_setBalance`...) made while block `after` was the head, in order,
 *   and the state root they gave. The loader applies them on that block's state before executing
 *   the next block, whose state root then checks them; the root written here checks the last ones
 *   (made on the head, with no block after them).
 * - `senders`: transactions sent from impersonated accounts. Their signature is a placeholder
 *   (chain/pool/impersonation.ts), so the loader takes the sender from here; the block's state
 *   root checks it.
 *
 * ```json
 * { "format": 1,
 *   "state": [{ "after": 6, "stateRoot": "0x...", "edits": [{ "address": "0x...", "balance": "0x1" }] }],
 *   "senders": [{ "block": 7, "index": 0, "hash": "0x...", "from": "0x..." }] }
 * ```
 */
import { hexToBytes } from '@ethereumjs/util'
import { checkEdit, StateEditError } from '../vm/stateEdits.ts'
import type { StateEdit } from '../vm/stateEdits.ts'
import { FixtureError } from './fixtureFiles.ts'

export const EDITS_FORMAT = 1

export interface EditsFile {
  comment?: string
  format: number
  state: { after: number; stateRoot: string; edits: StateEdit[] }[]
  senders: { block: number; index: number; hash: string; from: string }[]
}

export interface ParsedEdits {
  /** By block number: the edits made while it was the head, and the root they gave. */
  readonly stateAfter: ReadonlyMap<bigint, { root: Uint8Array; edits: readonly StateEdit[] }>
  /** By block number, then transaction index: the given sender and the transaction's hash. */
  readonly senders: ReadonlyMap<bigint, ReadonlyMap<number, { from: string; hash: string }>>
}

export const NO_EDITS: ParsedEdits = { stateAfter: new Map(), senders: new Map() }

const HASH = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x[0-9a-f]{40}$/

/** Reads `edits.json`; a malformed file is a `FixtureError` naming the entry and field. */
export function parseEditsFile(bytes: Uint8Array, name: string): ParsedEdits {
  const where = `fixture ${name}: edits.json`
  let file: EditsFile
  try {
    file = JSON.parse(new TextDecoder().decode(bytes)) as EditsFile
  } catch (err) {
    throw new FixtureError(`${where} is not valid JSON (${(err as Error).message})`)
  }
  if (typeof file !== 'object' || file === null || file.format !== EDITS_FORMAT) {
    throw new FixtureError(`${where}: format must be ${EDITS_FORMAT}`)
  }
  const stateAfter = new Map<bigint, { root: Uint8Array; edits: StateEdit[] }>()
  for (const [i, entry] of (Array.isArray(file.state) ? file.state : []).entries()) {
    const at = `${where}: state[${i}]`
    if (!Number.isSafeInteger(entry?.after) || entry.after < 0) throw new FixtureError(`${at}.after: must be a block number`)
    if (typeof entry.stateRoot !== 'string' || !HASH.test(entry.stateRoot)) throw new FixtureError(`${at}.stateRoot: must be a 32-byte 0x hash`)
    if (!Array.isArray(entry.edits)) throw new FixtureError(`${at}.edits: must be a list`)
    entry.edits.forEach((edit, j) => {
      try {
        checkEdit(edit)
      } catch (err) {
        if (err instanceof StateEditError) throw new FixtureError(`${at}.edits[${j}].${err.message}`)
        throw err
      }
    })
    if (stateAfter.has(BigInt(entry.after))) throw new FixtureError(`${at}.after: block ${entry.after} is listed twice`)
    stateAfter.set(BigInt(entry.after), { root: hexToBytes(entry.stateRoot as `0x${string}`), edits: entry.edits })
  }
  const senders = new Map<bigint, Map<number, { from: string; hash: string }>>()
  for (const [i, entry] of (Array.isArray(file.senders) ? file.senders : []).entries()) {
    const at = `${where}: senders[${i}]`
    if (!Number.isSafeInteger(entry?.block) || entry.block < 0) throw new FixtureError(`${at}.block: must be a block number`)
    if (!Number.isSafeInteger(entry.index) || entry.index < 0) throw new FixtureError(`${at}.index: must be a transaction index`)
    if (typeof entry.hash !== 'string' || !HASH.test(entry.hash)) throw new FixtureError(`${at}.hash: must be a 32-byte 0x hash`)
    if (typeof entry.from !== 'string' || !ADDRESS.test(entry.from)) throw new FixtureError(`${at}.from: must be a lowercase 0x address`)
    let block = senders.get(BigInt(entry.block))
    if (!block) senders.set(BigInt(entry.block), (block = new Map()))
    block.set(entry.index, { from: entry.from, hash: entry.hash })
  }
  return { stateAfter, senders }
}
