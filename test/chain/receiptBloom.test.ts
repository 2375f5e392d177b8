/**
 * A kept receipt's logs bloom (src/chain/blocks/render.ts): a receipt without logs holds the one
 * flat empty bloom every such receipt shares, not a ~560-byte rope of its own; a receipt with
 * logs renders its bloom's bits. The same text either way.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import type { TxReceipt } from '@ethereumjs/vm'
import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { renderReceipt } from '../../src/chain/blocks/render.ts'
import { heapAfterGc } from '../support/heap.ts'
import { bytes } from '../support/trieFixture.ts'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Osaka })
const tx = createFeeMarket1559Tx({ to: `0x${'11'.repeat(20)}`, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }, { common }).sign(bytes(9, 32))
const at = { blockHash: `0x${'22'.repeat(32)}`, blockNumber: 5n, blockTimestamp: 1_700_000_000n, index: 0, baseFee: 7n }

const receiptWith = (bitvector: Uint8Array, logs: TxReceipt['logs']): TxReceipt =>
  ({ status: 1, cumulativeBlockGasUsed: 21_000n, bitvector, logs }) as TxReceipt

const render = (receipt: TxReceipt) => renderReceipt({ tx, from: tx.getSenderAddress().toString(), receipt, gasUsed: 21_000n, firstLogIndex: 0, at, blobGasPrice: undefined })

describe("a kept receipt's logs bloom", () => {
  it('renders the bloom: zeros without logs, its bits with them', () => {
    expect(render(receiptWith(new Uint8Array(256), [])).logsBloom).toBe(`0x${'0'.repeat(512)}`)
    const bloom = bytes(3, 256)
    expect(render(receiptWith(bloom, [[bytes(4, 20), [bytes(5, 32)], new Uint8Array()]])).logsBloom).toBe(bytesToHex(bloom))
  })

  it('a receipt without logs holds no bloom text of its own', () => {
    render(receiptWith(new Uint8Array(256), []))
    const before = heapAfterGc()
    const kept = Array.from({ length: 2_000 }, () => render(receiptWith(new Uint8Array(256), [])))
    const perReceipt = (heapAfterGc() - before) / kept.length
    expect(kept[1_999]!.logsBloom).toHaveLength(514)
    // Measured: 1,707-1,747 bytes a receipt with a bloom of its own, 1,150-1,155 with the shared one.
    expect(perReceipt).toBeLessThan(1_450)
  })
})
