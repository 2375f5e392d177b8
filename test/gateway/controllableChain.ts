/**
 * A minimal chain implementing the control contract of `Chain` (snapshot/restore, mining modes,
 * mine, pending, fork) over a list of fake blocks, and an RPC backend whose
 * `eth_sendRawTransaction` adds to it: enough to test the gateway's controls through HTTP before
 * the real chain has them (the real-chain tests come with it).
 */
import type { Chain } from '../../src/chain/chain.ts'
import type { MiningMode } from '../../src/gateway/control/types.ts'
import type { RpcBackend } from '../../src/gateway/gateway.ts'
import { errorResponse } from '../../src/rpc/dispatch.ts'
import { MethodNotFoundError } from '../../src/rpc/errors.ts'

interface FakeBlock {
  number: bigint
  hash: string
  timestamp: bigint
  transactions: { hash: string }[]
}

interface FakeSnapshot {
  blocks: FakeBlock[]
  pending: string[]
  mode: MiningMode
}

const hash = (n: bigint, salt: string) => `0x${(n.toString(16) + salt).padStart(64, '0')}`

export class FakeControllableChain {
  readonly name: string
  readonly chainId: bigint
  #blocks: FakeBlock[]
  #pending: string[] = []
  #mode: MiningMode = 'auto'

  constructor(name: string, chainId: bigint, head: bigint) {
    this.name = name
    this.chainId = chainId
    this.#blocks = []
    for (let n = 0n; n <= head; n++) this.#blocks.push({ number: n, hash: hash(n, 'b'), timestamp: 1_700_000_000n + n * 12n, transactions: [] })
  }

  get head(): FakeBlock {
    return this.#blocks[this.#blocks.length - 1]!
  }

  get pending(): readonly string[] {
    return this.#pending
  }

  get miningMode(): MiningMode {
    return this.#mode
  }

  setMiningMode(mode: MiningMode): void {
    this.#mode = mode
  }

  /** What eth_sendRawTransaction does: pool it, and mine at once in auto mode. */
  async submit(txHash: string): Promise<void> {
    this.#pending.push(txHash)
    if (this.#mode === 'auto') await this.mine()
  }

  async mine(): Promise<FakeBlock> {
    const number = this.head.number + 1n
    const block = { number, hash: hash(number, 'b'), timestamp: this.head.timestamp + 12n, transactions: this.#pending.map((h) => ({ hash: h })) }
    this.#pending = []
    this.#blocks.push(block)
    return block
  }

  snapshot(): FakeSnapshot {
    return { blocks: [...this.#blocks], pending: [...this.#pending], mode: this.#mode }
  }

  async restore(s: FakeSnapshot): Promise<void> {
    this.#blocks = [...s.blocks]
    this.#pending = [...s.pending]
    this.#mode = s.mode
  }

  async fork(name: string): Promise<Chain> {
    const copy = new FakeControllableChain(name, this.chainId, 0n)
    await copy.restore(this.snapshot())
    return copy as unknown as Chain
  }
}

export function controllableChain(name: string, chainId: bigint, head: bigint): Chain {
  return new FakeControllableChain(name, chainId, head) as unknown as Chain
}

const hex = (n: bigint) => `0x${n.toString(16)}`

/** eth_blockNumber, eth_chainId and eth_sendRawTransaction (params[0] is taken as the tx hash) on a `FakeControllableChain`. */
export function controllableRpc(): RpcBackend {
  return {
    isSupportedMethod: (m) => ['eth_blockNumber', 'eth_chainId', 'eth_sendRawTransaction', 'eth_getStorageAt'].includes(m),
    async execute(ctx, request) {
      const chain = ctx.chain as unknown as FakeControllableChain
      switch (request.method) {
        case 'eth_blockNumber':
          return { jsonrpc: '2.0', id: request.id, result: hex(chain.head.number) }
        case 'eth_chainId':
          return { jsonrpc: '2.0', id: request.id, result: hex(chain.chainId) }
        case 'eth_getStorageAt':
          return { jsonrpc: '2.0', id: request.id, result: `0x${'0'.repeat(64)}` }
        case 'eth_sendRawTransaction': {
          const txHash = String(request.params[0])
          await chain.submit(txHash)
          return { jsonrpc: '2.0', id: request.id, result: txHash }
        }
        default:
          return errorResponse(request.id, new MethodNotFoundError(request.method))
      }
    },
  }
}
