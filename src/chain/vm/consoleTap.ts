/**
 * Contracts' `console.log` lines, as a VM executes (../../encoding/consoleLog.ts decodes them). A
 * VM's tap is made on first use and listens to its EVM's frames: a frame entered at the console
 * address is decoded into the collection under way, if any. The call itself runs as on any node
 * (a call to an account with no code), so the gas is a real node's.
 *
 * A collection is either one list (a call: `collectLines`) or one list per transaction (a block:
 * `collectPerTransaction`, split at the VM's `beforeTx`). Lines of frames that later revert are
 * kept, as Anvil and Hardhat print them.
 */
import type { VM } from '@ethereumjs/vm'
import { CONSOLE_ADDRESS, consoleLine } from '../../encoding/consoleLog.ts'
import { fromData } from '../../encoding/hex.ts'

const CONSOLE_BYTES = fromData(CONSOLE_ADDRESS)

interface Frame {
  to?: { bytes: Uint8Array }
  data: Uint8Array
}

function isConsole(to: Uint8Array): boolean {
  // The last byte first: almost every other address differs there.
  for (let i = 19; i >= 0; i--) if (to[i] !== CONSOLE_BYTES[i]) return false
  return true
}

/** One VM's collection point; the VM's executions take turns, so one collection at a time. */
class ConsoleTap {
  /** The list lines go to, when something collects. */
  lines: string[] | undefined
  /** When collecting per transaction: a list per transaction begun. */
  perTx: string[][] | undefined

  constructor(vm: VM) {
    const evm = vm.evm as unknown as { events: { on(event: string, listener: (frame: Frame) => void): void } }
    evm.events.on('beforeMessage', (frame) => {
      const to = frame.to?.bytes
      if (this.lines === undefined || to === undefined || !isConsole(to)) return
      const line = consoleLine(frame.data)
      if (line !== undefined) this.lines.push(line)
    })
    const events = vm.events as unknown as { on(event: string, listener: () => void): void }
    events.on('beforeTx', () => {
      if (this.perTx === undefined) return
      this.lines = []
      this.perTx.push(this.lines)
    })
  }
}

const taps = new WeakMap<VM, ConsoleTap>()

function tapOf(vm: VM): ConsoleTap {
  let tap = taps.get(vm)
  if (tap === undefined) taps.set(vm, (tap = new ConsoleTap(vm)))
  return tap
}

/** Runs `run` on `vm`, collecting the lines logged into `lines`. */
export async function collectLines<T>(vm: VM, lines: string[], run: () => Promise<T>): Promise<T> {
  const tap = tapOf(vm)
  tap.lines = lines
  try {
    return await run()
  } finally {
    tap.lines = undefined
  }
}

/**
 * Runs `run` (a block's transactions) on `vm`; answers its result and the lines each transaction
 * logged, by index (only those that logged any), or undefined when none did.
 */
export async function collectPerTransaction<T>(vm: VM, run: () => Promise<T>): Promise<{ result: T; lines: ReadonlyMap<number, readonly string[]> | undefined }> {
  const tap = tapOf(vm)
  const perTx: string[][] = []
  tap.perTx = perTx
  try {
    const result = await run()
    let lines: Map<number, readonly string[]> | undefined
    perTx.forEach((logged, i) => {
      if (logged.length > 0) (lines ??= new Map()).set(i, logged)
    })
    return { result, lines }
  } finally {
    tap.perTx = undefined
    tap.lines = undefined
  }
}
