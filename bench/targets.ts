/**
 * The targets the bench's tables judge, one line per row id (issue 19's numbers; issue 6's where
 * issue 19 is silent). A row whose id is here is printed with its target and met/missed, by
 * `npm run bench` and by every bench:* script that prints its rows with `formatTable`: adding a
 * row's target is adding its line here. A row may instead carry its own `target` when the run
 * computes it (e.g. a multiple of a figure measured in the same run); a line here wins.
 *
 * Each target is judged on the row's own figure (`figureOf` in report.ts: req/s, tx/s, Mgas/s,
 * ms, MiB...), and knows which way is better from the row.
 */

export interface Target {
  /**
   * `min-ratio`: gateway-double's figure / the base's must reach `value` (rates: req/s, tx/s);
   * `max-ratio`: gateway-double's figure / the base's must stay at or under `value` (times, ms);
   * `max` (`max-ms`, its older name): gateway-double's figure must stay at or under `value`, in the row's unit;
   * `min`: gateway-double's figure must reach `value`, in the row's unit.
   */
  kind: 'min-ratio' | 'max-ratio' | 'max' | 'max-ms' | 'min'
  value: number
  /** For the ratios: the row whose gateway-double figure is the base (e.g. the bare node:http row); Anvil's figure on the same row when absent. */
  of?: string
  /** As the table prints it. */
  text: string
}

/** gateway-double >= `value` x Anvil (a rate), or x the figure of row `of`. */
export const atLeastRatio = (value: number, of?: string, text = `>= ${value}x ${of === undefined ? 'Anvil' : of}`): Target => ({ kind: 'min-ratio', value, text, ...(of === undefined ? {} : { of }) })
/** gateway-double's time <= `value` x Anvil's, or x the figure of row `of`. */
export const atMostRatio = (value: number, of?: string, text = `<= ${value}x ${of === undefined ? "Anvil's" : of}`): Target => ({ kind: 'max-ratio', value, text, ...(of === undefined ? {} : { of }) })
/** gateway-double's figure <= `value` `unit`. */
export const atMost = (value: number, unit: string): Target => ({ kind: 'max', value, text: `<= ${value.toLocaleString('en-US')} ${unit}` })
/** gateway-double's figure >= `value` `unit`. */
export const atLeast = (value: number, unit: string): Target => ({ kind: 'min', value, text: `>= ${value.toLocaleString('en-US')} ${unit}` })

/** The bare `node:http` row of the same run: the request path's ceiling (issue 19, item 1). */
export const REFERENCE_ROW = 'reference.node-http'

export const TARGETS: Readonly<Record<string, Target>> = {
  // 1. The request path near Node's ceiling: the bare node:http row of the same run.
  eth_blockNumber: atLeastRatio(0.7, REFERENCE_ROW, '>= 0.7x node:http'),
  eth_getStorageAt: atLeastRatio(0.7, REFERENCE_ROW, '>= 0.7x node:http'),
  eth_getFilterChanges: atLeastRatio(0.7, REFERENCE_ROW, '>= 0.7x node:http'),
  // Issue 6's, which issue 19 leaves as they were.
  eth_getTransactionByBlockNumberAndIndex: atLeastRatio(2),
  eth_getBlockReceipts: atLeastRatio(10),
  'eth_estimateGas.repeated': atLeastRatio(1),
  // 2. Execution (bench/evm.ts judges its Mgas/s rows on 3x the figures of main before issue 19).
  'eth_estimateGas.distinct': atLeastRatio(0.35),
  'eth_call.distinct': atLeastRatio(0.3),
  // 3. Mining and the transaction loop (bench/testLoop.ts): rates, and the suite's time.
  'loop.viem-send': atLeastRatio(0.7),
  'loop.erc20-raw': atLeastRatio(0.7),
  'loop.deploy': atLeastRatio(0.7),
  'loop.snapshot-revert': atLeastRatio(0.7),
  'loop.mine': atLeastRatio(0.7),
  // The suite's rate: its time <= 1.2x Anvil's.
  'loop.suite': atLeastRatio(Number((1 / 1.2).toFixed(3)), undefined, "<= 1.2x Anvil's time"),
  'newHeads.1': atMostRatio(2),
  'newHeads.100': atMostRatio(2),
  // 4. Traces (bench/trace.ts): the struct logger on the last transaction of the 200-transaction block.
  'trace.struct-last': atMostRatio(5),
  // 5. The footprint (bench/memory.ts prints the slopes).
  'rss-after-load': atMost(150, 'MiB'),
  // 6. Start.
  'cold-start.default': atMost(250, 'ms'),
  'cold-start.execution-apis': atMost(1000, 'ms'),
  'start.import': atMost(150, 'ms'),
  'start.version': atMost(300, 'ms'),
}
