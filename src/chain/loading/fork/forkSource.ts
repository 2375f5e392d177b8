/**
 * What a forked chain reads from its upstream, each answer read once and kept (in memory and in
 * the fork's cache, ./forkCache.ts): the state at the fork block (`ForkReads`: accounts by
 * `eth_getProof`, which carries their proofs, or by balance, nonce and code where the upstream has
 * no `eth_getProof`; slots; code) and the history up to it (`ForkOrigin.history`: blocks,
 * transactions, receipts, logs, earlier states). Concurrent reads of one thing share one request.
 * Offline, or with no upstream, a read the cache lacks is a `ForkReadError` naming it.
 */
import { Account, bytesToHex, hexToBytes, KECCAK256_NULL, KECCAK256_RLP, unpadBytes } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import { RLP } from '@ethereumjs/rlp'
import { ForkReadError } from '../../vm/forkState.ts'
import type { ForkOrigin, ForkReads } from '../../vm/forkState.ts'
import { readKey } from './forkCache.ts'
import type { ForkJournal } from './forkCache.ts'
import type { ForkOpening } from './forkSettings.ts'
import type { Upstream } from './upstream.ts'
import { UpstreamError, UpstreamRpcError } from './upstream.ts'

/** `eth_getProof`'s answer, as far as it is read. */
interface ProofAnswer {
  balance: string
  nonce: string
  codeHash: string
  storageHash: string
  storageProof?: { key: string; value: string }[]
}

const EMPTY_ROOT = bytesToHex(KECCAK256_RLP)
const EMPTY_CODE = bytesToHex(KECCAK256_NULL)

export class ForkSource implements ForkReads, ForkOrigin {
  readonly block: bigint
  readonly hash: string
  readonly chainId: bigint
  readonly upstream: string
  /** How the fork was opened, for forking the network again (./forkAgain.ts). */
  readonly opening: ForkOpening | undefined
  #client: Upstream | undefined
  /** The upstream's URL in full (its key included: never shown), changed by `setUrl`; none when frozen. */
  #url: string | undefined
  /** Makes the client of another URL (the same headers and retry settings). */
  readonly #connect: ((url: string) => Upstream) | undefined
  readonly #journal: ForkJournal
  readonly #inFlight = new Map<string, Promise<unknown>>()
  readonly #tag: string
  /** False once the upstream refused `eth_getProof`. */
  #proofs = true

  constructor(opts: { client: Upstream | undefined; journal: ForkJournal; block: bigint; hash: string; chainId: bigint; upstream: string; connect?: (url: string) => Upstream; opening?: ForkOpening }) {
    this.#client = opts.client
    this.opening = opts.opening
    this.#url = opts.opening?.settings.frozen === undefined ? opts.opening?.settings.url : undefined
    this.#connect = opts.connect
    this.#journal = opts.journal
    this.block = opts.block
    this.hash = opts.hash
    this.chainId = opts.chainId
    this.upstream = opts.upstream
    this.#tag = `0x${opts.block.toString(16)}`
  }

  get offline(): boolean {
    return this.#client === undefined
  }

  setUrl(url: string): void {
    if (this.#connect === undefined) throw new ForkReadError(`fork of ${this.upstream} is a frozen fixture: it has no upstream to change`)
    this.#client = this.#connect(url)
    this.#url = url
  }

  /** The upstream's URL in full (never to be shown: it may hold a key); undefined for a frozen fixture. */
  get url(): string | undefined {
    return this.#url
  }

  get requests(): number {
    return this.#client?.requests ?? 0
  }

  /** The kept answer to a request, or the upstream's (then kept); `what` names the read in errors. */
  read<T>(method: string, params: readonly unknown[], what: string, history = false): Promise<T> {
    const key = readKey(method, params)
    if (this.#journal.has(key)) return Promise.resolve(this.#journal.get(key) as T)
    let pending = this.#inFlight.get(key)
    if (pending === undefined) {
      pending = this.#fetch(method, params, what, history).finally(() => this.#inFlight.delete(key))
      this.#inFlight.set(key, pending)
    }
    return pending as Promise<T>
  }

  async #fetch(method: string, params: readonly unknown[], what: string, history: boolean): Promise<unknown> {
    const client = this.#client
    if (client === undefined) throw new ForkReadError(`fork of ${this.upstream} at block ${this.block} is offline and its cache lacks ${what} (${method})`)
    let result: unknown
    try {
      result = await client.call(method, params)
    } catch (err) {
      if (err instanceof UpstreamRpcError && history) throw new ForkReadError(err.error.message, err.error)
      if (err instanceof UpstreamError) throw new ForkReadError(`cannot read ${what}: ${err.message}`)
      throw err
    }
    this.#journal.put(method, params, result)
    return result
  }

  history(method: string, params: readonly unknown[]): Promise<unknown> {
    return this.read(method, params, `${method} ${JSON.stringify(params)}`, true)
  }

  /** The account at the fork block: its proof (or its balance, nonce and code hash). */
  async #account(address: string): Promise<ProofAnswer> {
    if (this.#proofs) {
      try {
        return await this.read<ProofAnswer>('eth_getProof', [address, [], this.#tag], `account ${address} at block ${this.block}`)
      } catch (err) {
        // Offline, the cache of an upstream without eth_getProof holds the three reads instead.
        if (this.offline ? !this.#journal.has(readKey('eth_getBalance', [address, this.#tag])) : !missingMethod(err)) throw err
        if (!this.offline) this.#proofs = false
      }
    }
    const what = `account ${address} at block ${this.block}`
    const [balance, nonce, code] = await Promise.all([
      this.read<string>('eth_getBalance', [address, this.#tag], what),
      this.read<string>('eth_getTransactionCount', [address, this.#tag], what),
      this.read<string>('eth_getCode', [address, this.#tag], what),
    ])
    return { balance, nonce, codeHash: code === '0x' ? EMPTY_CODE : 'code', storageHash: code === '0x' && BigInt(nonce) === 0n ? EMPTY_ROOT : 'unknown' }
  }

  async account(address: Address): Promise<Uint8Array | null> {
    const a = await this.#account(address.toString())
    const codeHash = a.codeHash === 'code' ? hexToBytes((await this.#keccakOfCode(address)) as `0x${string}`) : hexToBytes(a.codeHash as `0x${string}`)
    const balance = BigInt(a.balance)
    const nonce = BigInt(a.nonce)
    const noCode = bytesToHex(codeHash) === EMPTY_CODE || bytesToHex(codeHash) === `0x${'00'.repeat(32)}`
    if (balance === 0n && nonce === 0n && noCode) return null
    return new Account(nonce, balance, KECCAK256_RLP, noCode ? KECCAK256_NULL : codeHash).serialize()
  }

  async #keccakOfCode(address: Address): Promise<string> {
    const { keccak256 } = await import('../../../encoding/keccak.ts')
    return bytesToHex(keccak256(await this.code(address)))
  }

  async storage(address: Address, key: Uint8Array): Promise<Uint8Array | null> {
    const addr = address.toString()
    const account = await this.#account(addr)
    if (account.storageHash === EMPTY_ROOT) return null
    const slot = bytesToHex(key)
    const what = `slot ${slot} of ${addr} at block ${this.block}`
    let value: string
    if (this.#proofs) {
      const proof = await this.read<ProofAnswer>('eth_getProof', [addr, [slot], this.#tag], what)
      value = proof.storageProof?.[0]?.value ?? '0x0'
    } else {
      value = await this.read<string>('eth_getStorageAt', [addr, slot, this.#tag], what)
    }
    const bytes = unpadBytes(hexToBytes(quantityHex(value)))
    return bytes.length === 0 ? null : RLP.encode(bytes)
  }

  async code(address: Address): Promise<Uint8Array> {
    const addr = address.toString()
    const code = await this.read<string>('eth_getCode', [addr, this.#tag], `code of ${addr} at block ${this.block}`)
    return hexToBytes(code as `0x${string}`)
  }
}

/** An even-length 0x hex of a quantity or data answer. */
function quantityHex(value: string): `0x${string}` {
  const digits = value.slice(2)
  return `0x${digits.length % 2 === 1 ? `0${digits}` : digits}`
}

function missingMethod(err: unknown): boolean {
  return err instanceof ForkReadError && /-32601|not (supported|available|found)|does not exist|unsupported|unknown method/i.test(err.message)
}
