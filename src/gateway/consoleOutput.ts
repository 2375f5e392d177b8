/**
 * Printing contracts' `console.log` lines as Anvil does (the logger's `console`): a call's as the
 * request runs (./backend.ts's `CallContext`), a transaction's when its block is mined, whichever
 * request or timer mined it.
 */
import type { Logger } from './backend.ts'
import type { Network } from './request.ts'

/**
 * Prints, with the logger's `console`, the lines of every transaction mined on `networks` from now
 * on; returns the way to stop. Listens to nothing when the logger prints no console lines.
 */
export function printMinedConsole(networks: Iterable<Network>, logger: Logger): () => void {
  const print = logger.console?.bind(logger)
  if (print === undefined) return () => {}
  const stops = [...networks].map(({ chain }) =>
    chain.events.listen((event) => {
      if (event.type !== 'blockAdded' || event.cause !== 'mined' || event.record.console === undefined) return
      for (const lines of event.record.console.values()) for (const line of lines) print(line)
    }),
  )
  return () => {
    for (const stop of stops) stop()
  }
}
