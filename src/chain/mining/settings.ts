/**
 * What the next mined blocks' headers take besides their parent: the time (the clock, moved by a
 * chain's own offset, a fixed next timestamp, or a fixed interval after the parent), and the fee
 * recipient, gas limit and base fee when a test set them (Anvil's `evm_increaseTime`,
 * `evm_setNextBlockTimestamp`, `anvil_setBlockTimestampInterval`, `anvil_setCoinbase`,
 * `evm_setBlockGasLimit`, `anvil_setNextBlockBaseFeePerGas`). A block is never older than its
 * parent's timestamp + 1 (geth's rule; Anvil also allows equal or earlier times).
 *
 * Settings are values: a chain's snapshot keeps a copy, and a restore puts it back.
 */
export interface MiningSettingsState {
  /** Seconds added to the clock (`evm_increaseTime`, `anvil_setTime`). */
  readonly offset: bigint
  /** The next block's timestamp, used once (`evm_setNextBlockTimestamp`). */
  readonly nextTimestamp?: bigint
  /** Every block `interval` seconds after its parent (`anvil_setBlockTimestampInterval`). */
  readonly interval?: bigint
  /** The fee recipient of the next blocks; default the genesis block's. */
  readonly coinbase?: string
  /** The gas limit of the next blocks; default the parent's. */
  readonly gasLimit?: bigint
  /** The next block's base fee, used once; default from the parent (EIP-1559). */
  readonly nextBaseFee?: bigint
}

export const DEFAULT_MINING_SETTINGS: MiningSettingsState = { offset: 0n }

/** The next block's timestamp under `settings`, after a parent at `parent`, the clock at `nowSeconds`. */
export function nextTimestamp(settings: MiningSettingsState, parent: bigint, nowSeconds: bigint): bigint {
  let t: bigint
  if (settings.nextTimestamp !== undefined) t = settings.nextTimestamp
  else if (settings.interval !== undefined) t = parent + settings.interval
  else t = nowSeconds + settings.offset
  return t > parent ? t : parent + 1n
}

/**
 * The settings after a block was mined at `timestamp`: a fixed next timestamp and base fee are
 * used up, and time goes on from a fixed timestamp (the offset moves so that the clock reads it
 * now), as Anvil and Hardhat do.
 */
export function afterMined(settings: MiningSettingsState, timestamp: bigint, nowSeconds: bigint): MiningSettingsState {
  const { nextTimestamp: next, nextBaseFee: _used, ...rest } = settings
  return next === undefined ? rest : { ...rest, offset: timestamp - nowSeconds }
}
