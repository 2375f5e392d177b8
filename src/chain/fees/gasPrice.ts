/**
 * geth's gas price oracle (`eth/gasprice`), ported for a chain that is read, not synced: the tip
 * suggestion behind eth_maxPriorityFeePerGas (and eth_gasPrice, which adds the head's base fee),
 * and the per-transaction effective tip that eth_feeHistory's rewards use.
 *
 * `SuggestTipCap` with geth's full-node defaults (`ethconfig.FullNodeGPO`):
 * - the head and up to 19 blocks before it (20 `Blocks`), newest first, never the genesis;
 * - from each block, the 3 lowest effective tips (`sampleNumber`) of transactions not sent by the
 *   block's coinbase, skipping tips under 2 wei (`IgnorePrice`);
 * - a block that yields nothing counts as one sample of the last price, and a block that yields a
 *   single sample pulls in one more older block, up to 40 blocks in all;
 * - the answer is the 60th percentile (`Percentile`) of the samples, at most 500 gwei (`MaxPrice`).
 *
 * Two choices make it deterministic. geth fetches the blocks concurrently, and which older blocks
 * it pulls in depends on the order their answers arrive; here they are taken newest first, as if
 * they arrived in order. And geth's "last price" is whatever it last answered (it starts at the
 * miner's default tip, 0.001 gwei); here every head is answered as a freshly started node would,
 * from that start price, so the suggestion is a function of the chain alone.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'

/** `ethconfig.FullNodeGPO.Blocks`. */
export const ORACLE_BLOCKS = 20
/** `ethconfig.FullNodeGPO.Percentile`. */
export const ORACLE_PERCENTILE = 60
/** `gasprice.sampleNumber`: tips taken from each block. */
export const ORACLE_SAMPLES_PER_BLOCK = 3
/** `gasprice.DefaultIgnorePrice`: tips below it are not sampled. */
export const ORACLE_IGNORE_PRICE = 2n
/** `gasprice.DefaultMaxPrice`: 500 gwei. */
export const ORACLE_MAX_PRICE = 500_000_000_000n
/** geth's `miner.DefaultConfig.GasPrice` (0.001 gwei): the oracle's first "last price". */
export const ORACLE_START_PRICE = 1_000_000n

/**
 * What a transaction pays its block's producer per gas (geth's `EffectiveGasTip`):
 * `min(tipCap, feeCap - baseFee)`, where both caps are `gasPrice` for types 0 and 1; before London
 * (no base fee), the tip cap itself.
 */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
  const tipCap = 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : feeCap
  if (baseFee === undefined) return tipCap
  const headroom = feeCap - baseFee
  return tipCap < headroom ? tipCap : headroom
}

/** The lowest `limit` tips of a block at or above `ignoreUnder`, from senders other than its coinbase. */
function blockValues(record: BlockRecord): bigint[] {
  const header = record.block.header
  const coinbase = header.coinbase.toString()
  const txs = record.block.transactions.map((tx, i) => ({
    tip: effectiveTip(tx, header.baseFeePerGas),
    from: record.transactions[i]!.from as string,
  }))
  txs.sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  const prices: bigint[] = []
  for (const { tip, from } of txs) {
    if (tip < ORACLE_IGNORE_PRICE) continue
    if (from !== coinbase) {
      prices.push(tip)
      if (prices.length >= ORACLE_SAMPLES_PER_BLOCK) break
    }
  }
  return prices
}

/**
 * The last answer per chain: the head it was for, the tip, and the samples of each block it read
 * (by hash; a block's samples never change), which the next head's answer reads again but one or two:
 * at most `2 x ORACLE_BLOCKS` blocks of at most `ORACLE_SAMPLES_PER_BLOCK` tips each.
 */
const cache = new WeakMap<ChainReader, { head: string; tip: bigint; samples: ReadonlyMap<string, readonly bigint[]> }>()

/** geth's `SuggestTipCap` at the chain's head (see the module comment). */
export function suggestTipCap(chain: ChainReader): bigint {
  const head = chain.head
  const cached = cache.get(chain)
  if (cached && cached.head === head.hash) return cached.tip
  const samples = new Map<string, readonly bigint[]>()
  const samplesOf = (record: BlockRecord): readonly bigint[] => {
    const values = cached?.samples.get(record.hash) ?? blockValues(record)
    samples.set(record.hash, values)
    return values
  }

  const lastPrice = ORACLE_START_PRICE
  const floor = chain.genesis.number
  const pending: bigint[] = []
  let number = head.number
  let expected = 0
  for (let sent = 0; sent < ORACLE_BLOCKS && number > floor; sent++) {
    pending.push(number--)
    expected++
  }
  const results: bigint[] = []
  while (expected > 0) {
    const record = chain.byNumber(pending.shift()!)
    expected--
    let values = record ? samplesOf(record) : []
    if (values.length === 0) values = [lastPrice]
    if (values.length === 1 && results.length + 1 + expected < ORACLE_BLOCKS * 2 && number > floor) {
      pending.push(number--)
      expected++
    }
    results.push(...values)
  }
  let price = lastPrice
  if (results.length > 0) {
    results.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    price = results[Math.floor(((results.length - 1) * ORACLE_PERCENTILE) / 100)]!
  }
  if (price > ORACLE_MAX_PRICE) price = ORACLE_MAX_PRICE
  cache.set(chain, { head: head.hash, tip: price, samples })
  return price
}
