/**
 * eth_getProof on the default ethereum fixture: every proof is checked as a light client checks it,
 * against the block's state root (the account) and the account's storage root (each slot), for an
 * account with storage, one without, one that does not exist, and at an older block. Then geth's
 * echo of the keys and its refusals.
 */
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/encoding/keccak.ts'
import { fixtureBook } from '../support/fixtureBook.ts'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

interface Proof {
  address: string
  accountProof: string[]
  balance: string
  codeHash: string
  nonce: string
  storageHash: string
  storageProof: { key: string; value: string; proof: string[] }[]
}

const book = fixtureBook('ethereum')
const TOKEN = book.address('token')
const ZERO = `0x${'00'.repeat(32)}`
const hex = (s: string) => hexToBytes(s as `0x${string}`)
/** Slot of `balances[holder]` in the Token (mapping at slot 0). */
const balanceSlot = (holder: string) => bytesToHex(keccak256(hex(`0x${holder.slice(2).padStart(64, '0')}${'00'.repeat(32)}`)))

describe('eth_getProof', () => {
  let rpc: RpcClient
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
  })
  const proof = async (params: unknown[]): Promise<Proof> => {
    const res = await rpc.call('eth_getProof', params)
    if (res.error) throw new Error(JSON.stringify(res.error))
    return res.result as Proof
  }
  const stateRoot = async (block: string) => ((await rpc.call('eth_getBlockByNumber', [block, false])).result as { stateRoot: string }).stateRoot

  /** The value a proof proves at `key` under `root` (its first node is the root's), null: proven absent. */
  async function proven(key: string, nodes: string[], root: string): Promise<Uint8Array | null> {
    expect(bytesToHex(keccak256(hex(nodes[0]!)))).toBe(root)
    return verifyMerkleProof(keccak256(hex(key)), nodes.map(hex))
  }

  /** The account the proof proves, decoded from the leaf under the state root (null: proven absent). */
  async function provenAccount(p: Proof, root: string): Promise<bigint[] | null> {
    const leaf = await proven(p.address, p.accountProof, root)
    if (leaf === null) return null
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf) as Uint8Array[]
    expect(bytesToHex(storageRoot!)).toBe(p.storageHash)
    expect(bytesToHex(codeHash!)).toBe(p.codeHash)
    return [bytesToBigInt(nonce!), bytesToBigInt(balance!)]
  }

  it('proves a contract and its storage slots against the state and storage roots', async () => {
    const holders = ['alice', 'bob', 'carol', 'erin'].map((n) => book.address(n))
    const keys = holders.map(balanceSlot)
    const p = await proof([TOKEN, keys, 'latest'])
    expect(await provenAccount(p, await stateRoot('latest'))).toEqual([BigInt(p.nonce), BigInt(p.balance)])
    expect(p.storageProof.map((s) => s.key)).toEqual(keys)
    for (const [i, s] of p.storageProof.entries()) {
      const leaf = await proven(keys[i]!, s.proof, p.storageHash)
      const value = leaf === null ? 0n : bytesToBigInt(RLP.decode(leaf) as Uint8Array)
      expect(`0x${value.toString(16)}`).toBe(s.value)
      const stored = (await rpc.call('eth_getStorageAt', [TOKEN, keys[i], 'latest'])).result as string
      expect(BigInt(stored)).toBe(value)
    }
    expect(p.storageProof.some((s) => s.value !== '0x0')).toBe(true)
  })

  it('proves an account without code or storage, and one that does not exist', async () => {
    const alice = book.address('alice')
    const p = await proof([alice, [], 'latest'])
    const [nonce, balance] = (await provenAccount(p, await stateRoot('latest')))!
    expect(nonce).toBe(BigInt((await rpc.call('eth_getTransactionCount', [alice, 'latest'])).result as string))
    expect(balance).toBe(BigInt((await rpc.call('eth_getBalance', [alice, 'latest'])).result as string))
    expect(p.codeHash).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
    expect(p.storageHash).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')

    const nobody = '0x00000000000000000000000000000000000b0dee'
    const absent = await proof([nobody, ['0x1'], 'latest'])
    expect(await provenAccount(absent, await stateRoot('latest'))).toBeNull()
    expect(absent).toMatchObject({ balance: '0x0', nonce: '0x0', codeHash: ZERO, storageHash: ZERO, storageProof: [{ key: '0x1', value: '0x0', proof: [] }] })
  })

  it('proves the state of an older block against that block’s root', async () => {
    const bob = book.address('bob')
    const before = await proof([TOKEN, [balanceSlot(bob)], '0x1'])
    const now = await proof([TOKEN, [balanceSlot(bob)], 'latest'])
    expect(before.storageProof[0]!.value).toBe('0x0')
    expect(now.storageProof[0]!.value).not.toBe('0x0')
    expect(await provenAccount(before, await stateRoot('0x1'))).not.toBeNull()
  })

  it('echoes a 32-byte key as given, a shorter one as a quantity', async () => {
    const p = await proof([TOKEN, ['0x00', '0x0', '00', bytesToHex(setLengthLeft(Uint8Array.of(1), 32))]])
    expect(p.storageProof.map((s) => s.key)).toEqual(['0x0', '0x0', '0x0', `0x${'00'.repeat(31)}01`])
  })

  it('refuses bad keys, too many keys and an unknown block with geth’s errors', async () => {
    expect((await rpc.call('eth_getProof', [TOKEN, ['0xzz']])).error).toEqual({ code: -32602, message: 'invalid hex in storage key: "0xzz"' })
    expect((await rpc.call('eth_getProof', [TOKEN, [`0x${'11'.repeat(33)}`]])).error?.message).toMatch(/^storage key too long \(want at most 32 bytes\)/)
    expect((await rpc.call('eth_getProof', [TOKEN, Array(1025).fill('0x0')])).error).toEqual({ code: -32602, message: 'too many storage keys requested (max 1024, got 1025)' })
    expect((await rpc.call('eth_getProof', [TOKEN, '0x0'])).error).toEqual({ code: -32602, message: 'invalid argument 1: json: cannot unmarshal string into Go value of type []string' })
    expect((await rpc.call('eth_getProof', [TOKEN, [], '0xffff'])).error).toEqual({ code: -32000, message: 'header not found' })
  })
})
