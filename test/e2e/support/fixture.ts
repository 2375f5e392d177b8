/**
 * What the end-to-end tests know about the default ethereum fixture, and a real server for them.
 *
 * Names, keys and transaction hashes come from fixtures/ethereum/accounts.json (written by the
 * builder). The few numbers written here follow from the fixture's source
 * (fixtures/sources/ethereum.scenario.json) and are each read a second way in the tests: through
 * the client's contract API and through a raw JSON-RPC call, so a wrong chain or a wrong decoding
 * fails.
 */
import { readFileSync } from 'node:fs'
import { localhostFetch } from '../../../src/http/client.ts'
import { startServer } from '../../../src/http/server.ts'
import type { RunningServer } from '../../../src/http/server.ts'
import { METHODS } from '../../../src/rpc/registry.ts'

type Hex = `0x${string}`

interface AccountsJson {
  accounts: { name: string; address: Hex; privateKey?: Hex }[]
  contracts: { name: string; address: Hex }[]
  transactions: { block: number; index: number; hash: Hex; type: number; status: number; summary: string }[]
}

const book = JSON.parse(
  readFileSync(new URL('../../../fixtures/ethereum/accounts.json', import.meta.url), 'utf8'),
) as AccountsJson

function account(name: string): { address: Hex; privateKey: Hex } {
  const a = book.accounts.find((x) => x.name === name)
  if (a?.privateKey === undefined) throw new Error(`no signing account ${name} in fixtures/ethereum/accounts.json`)
  return { address: a.address, privateKey: a.privateKey }
}

function contract(name: string): Hex {
  const c = book.contracts.find((x) => x.name === name)
  if (c === undefined) throw new Error(`no contract ${name} in fixtures/ethereum/accounts.json`)
  return c.address
}

export const alice = account('alice')
export const bob = account('bob')
export const carol = account('carol')
export const dave = account('dave')
export const erin = account('erin')
export const token = contract('token')
export const reverter = contract('reverter')
export const counter = contract('counter')

/** The fixture's transaction at (block, index), from accounts.json. */
export function fixtureTx(block: number, index: number): AccountsJson['transactions'][number] {
  const tx = book.transactions.find((t) => t.block === block && t.index === index)
  if (tx === undefined) throw new Error(`no transaction ${block}/${index} in fixtures/ethereum/accounts.json`)
  return tx
}

/** The fixture's transactions of one block, in order. */
export function fixtureBlock(block: number): AccountsJson['transactions'] {
  return book.transactions.filter((t) => t.block === block)
}

const ETHER = 10n ** 18n

export const HEAD = 6n
export const CHAIN_ID = 1

/**
 * Token balances at the head, from the scenario's transfers: alice minted 1,000,000 GDT and sent
 * 1000 to bob, 500 to carol, 250 to dave, 10 to erin, and 200 went to erin by transferFrom; bob
 * sent 100 to carol; carol 50 to dave; erin 5 to burn; carol's 1,000,000 to bob reverted.
 */
export const TOKEN_BALANCES = {
  alice: 998_040n * ETHER,
  bob: 900n * ETHER,
  carol: 550n * ETHER,
  dave: 300n * ETHER,
  erin: 205n * ETHER,
} as const

/** `Counter.count`: 7 in genesis, incremented in block 3 (index 2) and block 6 (index 2). */
export const COUNTER = { atBlock2: 7n, atBlock3: 8n, atHead: 9n } as const

/** Block 2 index 3: alice sends bob 1 ether, alice's sixth transaction. */
export const PLAIN_TRANSFER = { block: 2n, index: 3, value: ETHER, gas: 21_000n, nonce: 5, type: 2 } as const

/**
 * eth_estimateGas of bob → token.transfer(carol, 100 GDT): both balances non-zero before and
 * after, at the head as before block 3, whose first transaction is exactly this call and used
 * 34,404 gas. geth's estimator stops its binary search within 1.5% of the lowest gas that
 * succeeds, so the estimate lies in [gasUsed, gasUsed * 1.015].
 */
export const TRANSFER_ESTIMATE = { gas: 34_763n, gasUsedInBlock3: 34_404n, amount: 100n * ETHER } as const

export const REVERT_REASON = 'Reverter: always reverts'
export const EXCEEDS_BALANCE = 'Token: transfer amount exceeds balance'

/** True once eth_sendRawTransaction is in the method table (branch `mining`). */
export const sendSupported = Object.hasOwn(METHODS, 'eth_sendRawTransaction')

/** A server for one test file: the default config (the three fixture networks), a free port. */
export async function startE2eServer(): Promise<RunningServer & { url: string }> {
  const server = await startServer({ port: 0 })
  const url = server.urls.ethereum
  if (url === undefined) throw new Error('the default config serves no ethereum network')
  return Object.assign(server, { url })
}

/**
 * The second read path: one JSON-RPC call by hand (localhostFetch, no client library), its
 * `result` or a thrown error carrying the JSON-RPC error.
 */
export async function rawRpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await localhostFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } }
  if (body.error !== undefined) throw Object.assign(new Error(body.error.message), { rpc: body.error })
  return body.result as T
}

/** The storage slot of `balanceOf[holder]` in Token (the mapping is at slot 0). */
export function balanceSlot(keccak256: (data: Hex) => Hex, holder: Hex): Hex {
  const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')
  return keccak256(`0x${word(holder)}${word('0')}`)
}

export const toHex = (n: bigint | number): Hex => `0x${n.toString(16)}`
