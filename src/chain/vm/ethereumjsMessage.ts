/**
 * EthereumJS appends where an error happened to its messages: `(vm hf=osaka -> block number=3
 * hash=0x… -> tx type=2 hash=0x…)` from runTx, `(block header number=1 hash=0x… hf=…)` from
 * headers. Our messages name the place themselves, so that tail goes.
 */
export function withoutEthereumJsContext(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  return message.replace(/\s*\((?:vm hf|block |tx type|tx hash)[^]*$/, '').trim()
}
