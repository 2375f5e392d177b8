/**
 * A fork's cache frozen into a fixture folder that starts with no upstream at all (`fork.json`
 * and `reads.jsonl`, as ./forkCache.ts writes them): `freezeFork` (and `gateway-double fork
 * freeze`). The fork block's header and hash stay exactly as the upstream answered them, and
 * every block, receipt and log below it that was read stays with it. Every `eth_getProof` answer
 * kept is checked against the fork block's state root (the account) and the account's storage
 * root (its slots), here and again when a frozen fixture is loaded (`checkForkProofs`): a frozen
 * state that does not prove is refused, naming the account.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes, bytesToHex, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { FixtureError } from '../fixtureFiles.ts'
import { ForkJournal, MANIFEST_FILE, READS_FILE, readManifest } from './forkCache.ts'
import type { ForkManifest } from './forkCache.ts'

interface ProofAnswer {
  address: string
  balance: string
  nonce: string
  codeHash: string
  storageHash: string
  accountProof: string[]
  storageProof?: { key: string; value: string; proof: string[] }[]
}

const bytes = (hex: string): Uint8Array => hexToBytes((hex.length % 2 === 1 ? `0x0${hex.slice(2)}` : hex) as `0x${string}`)
const quantity = (hex: string): Uint8Array => (BigInt(hex) === 0n ? new Uint8Array() : bigIntToBytes(BigInt(hex)))

/** Checks every `eth_getProof` answer among `entries` against the fork block's state root; returns how many. */
export async function checkForkProofs(manifest: ForkManifest, entries: readonly [string, unknown][], where: string): Promise<number> {
  const stateRoot = bytes(String(manifest.header.stateRoot))
  let checked = 0
  for (const [key, result] of entries) {
    const [method] = JSON.parse(key) as [string]
    if (method !== 'eth_getProof' || result === null || typeof result !== 'object') continue
    const proof = result as ProofAnswer
    const fail = (what: string) => new FixtureError(`${where}: the proof of ${what} does not verify against block ${BigInt(manifest.block)}'s state root ${bytesToHex(stateRoot)}`)
    let leaf: Uint8Array | null
    try {
      leaf = await verifyMerkleProof(bytes(proof.address), proof.accountProof.map(bytes), { root: stateRoot, useKeyHashing: true })
    } catch {
      throw fail(`account ${proof.address}`)
    }
    const expected = RLP.encode([quantity(proof.nonce), quantity(proof.balance), bytes(proof.storageHash), bytes(proof.codeHash)])
    const empty = BigInt(proof.nonce) === 0n && BigInt(proof.balance) === 0n && leaf === null
    if (!empty && (leaf === null || !equalsBytes(leaf, expected))) throw fail(`account ${proof.address}`)
    for (const slot of proof.storageProof ?? []) {
      let value: Uint8Array | null
      try {
        value = await verifyMerkleProof(setLengthLeft(bytes(slot.key), 32), slot.proof.map(bytes), { root: bytes(proof.storageHash), useKeyHashing: true })
      } catch {
        throw fail(`slot ${slot.key} of ${proof.address}`)
      }
      const want = BigInt(slot.value) === 0n ? null : RLP.encode(quantity(slot.value))
      if (want === null ? value !== null : value === null || !equalsBytes(value, want)) throw fail(`slot ${slot.key} of ${proof.address}`)
    }
    checked++
  }
  return checked
}

/**
 * Freezes the fork cache folder `from` into the fixture folder `out` (made if need be), after
 * checking its proofs; returns how many reads it holds and how many proofs were checked.
 */
export async function freezeFork(from: string, out: string): Promise<{ reads: number; proofs: number }> {
  const manifest = readManifest(from)
  if (manifest === undefined) throw new FixtureError(`fork freeze: ${from} is not a fork's cache (no ${MANIFEST_FILE})`)
  const entries = new ForkJournal(from, { readOnly: true }).entries()
  const proofs = await checkForkProofs(manifest, entries, `fork freeze: ${from}`)
  mkdirSync(out, { recursive: true })
  copyFileSync(join(from, MANIFEST_FILE), join(out, MANIFEST_FILE))
  if (existsSync(join(from, READS_FILE))) copyFileSync(join(from, READS_FILE), join(out, READS_FILE))
  return { reads: entries.length, proofs }
}
