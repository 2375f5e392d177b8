/**
 * Calls at several blocks share their fork's VMs (src/chain/execution/callEngines.ts): a VM is lent
 * to one block's execution at a time and pointed at that block's state and block hashes. Calls at
 * blocks whose states differ, asked one after the other and all at once (a batch runs them
 * concurrently, so several VMs are lent together), each see their own block: the balance and the
 * storage slot set before it, and its own BLOCKHASH of the block before.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { fixtureClient } from '../support/rpcClient.ts'
import type { RpcClient } from '../support/rpcClient.ts'

const WATCHED = '0x00000000000000000000000000000000000ca11e'
const SLOT = `0x${'0'.repeat(63)}1`
const quantity = (n: bigint) => `0x${n.toString(16)}`
const ETHER = 10n ** 18n
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`

/** WATCHED's code: returns its slot 1. */
const WATCHED_CODE = '0x60015460005260206000f3'

/**
 * Init code: word 0 BALANCE(WATCHED), word 1 what WATCHED's code returns (its slot 1), word 2
 * BLOCKHASH(NUMBER - 1).
 */
const INIT = `0x${[
  `73${WATCHED.slice(2)}31600052`, // BALANCE(WATCHED) -> mem[0]
  `6020602060006000600073${WATCHED.slice(2)}5af150`, // CALL(gas, WATCHED, 0, 0, 0, 32, 32) -> mem[32]; POP
  '60014303406040526060' + '6000f3', // BLOCKHASH(NUMBER - 1) -> mem[64]; RETURN(0, 96)
].join('')}`

describe('calls at several blocks', () => {
  let rpc: RpcClient
  const blocks: { number: bigint; balance: bigint; slot: bigint }[] = []
  beforeAll(async () => {
    rpc = await fixtureClient('ethereum')
    for (let i = 1n; i <= 4n; i++) {
      await rpc.chain.editState([{ address: WATCHED, balance: quantity(i * ETHER), code: WATCHED_CODE, storage: { [SLOT]: word(i * 7n) } }])
      await rpc.chain.mine()
      blocks.push({ number: rpc.chain.head.number, balance: i * ETHER, slot: i * 7n })
      // The next edit is made on a block of its own (reads of a block see the edits made on it).
      await rpc.chain.mine()
    }
  })

  const expected = (b: { number: bigint; balance: bigint; slot: bigint }) => {
    const parentHash = rpc.chain.byNumber(b.number - 1n)!.hash
    return `${word(b.balance)}${word(b.slot).slice(2)}${parentHash.slice(2)}`
  }
  const probeAt = (n: bigint) => ({ method: 'eth_call', params: [{ data: INIT }, quantity(n)] })

  it('one after the other, each block sees its own state and block hashes', async () => {
    for (const b of [...blocks, ...blocks.toReversed()]) {
      expect(await rpc.result('eth_call', probeAt(b.number).params)).toBe(expected(b))
    }
  })

  it('all at once in a batch, each block sees its own state and block hashes', async () => {
    const order = [...blocks, ...blocks.toReversed(), ...blocks].map((b, id) => ({ b, id }))
    const answers = (await rpc.post(JSON.stringify(order.map(({ b, id }) => ({ jsonrpc: '2.0', id, ...probeAt(b.number) }))))) as unknown as { id: number; result: string }[]
    expect(answers.toSorted((x, y) => x.id - y.id).map((a) => a.result)).toEqual(order.map(({ b }) => expected(b)))
  })

  it('estimates at each block run on its state: a transfer of more than the old balance fails there only', async () => {
    for (const b of blocks) {
      const res = await rpc.call('eth_estimateGas', [{ from: WATCHED, to: WATCHED, value: quantity((5n * ETHER) / 2n), gasPrice: quantity(10n ** 10n) }, quantity(b.number)])
      if (b.balance > (5n * ETHER) / 2n) expect(res.result).toMatch(/^0x[0-9a-f]+$/)
      else expect(res.error?.message).toBe('insufficient funds for transfer')
    }
  })
})
