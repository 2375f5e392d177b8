/**
 * geth's simulate tracer (`internal/ethapi/logtracer.go`) on an EthereumJS VM: each call frame
 * keeps its logs, a frame that fails drops them (and its children's), a frame that succeeds hands
 * them to its caller. With `traceTransfers`, every ether transfer (a call's or creation's value,
 * not a DELEGATECALL's or CALLCODE's, and a SELFDESTRUCT's balance) is logged where it happens as
 * an ERC-7528 `Transfer(from, to, value)` from `0xEeee…EeEe`. The index counts every log of the
 * block, dropped ones included, as geth's counter does: a value transfer EthereumJS refuses before
 * making its frame counts too, as geth logs it on entering the frame it then fails.
 *
 * It listens to the EVM's frame events and wraps the LOG, SELFDESTRUCT, CALL and CREATE handlers of the VM's
 * opcode table (the simulation's own VM; `install` again after a fork change rebuilds the table).
 */
import type { VM } from '@ethereumjs/vm'
import { Address, bigIntToBytes, createAddressFromBigInt, generateAddress, generateAddress2, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { SimLog } from './types.ts'

const TRANSFER_TOPIC = hexToBytes('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef')
/** ERC-7528's address for ether. */
const ETHER = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee')
const LOG_OPS = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4]
const SELFDESTRUCT = 0xff
const CREATE = 0xf0
const CALL = 0xf1
const CREATE2 = 0xf5
const MAX_UINT64 = (1n << 64n) - 1n

type OpEntry = { opHandler: (...a: unknown[]) => unknown; traced?: true }

interface Message {
  caller: Address
  to?: Address
  codeAddress?: Address
  value: bigint
  delegatecall: boolean
  depth: number
  salt?: Uint8Array
  data: Uint8Array
}

interface RunState {
  stack: { peek(n?: number): bigint[] }
  interpreter: {
    _env: { address: Address; depth: number; contract: { balance: bigint; nonce: bigint } }
    _result: { logs: [Uint8Array, Uint8Array[], Uint8Array][] }
  }
  stateManager: { getAccount(a: Address): Promise<{ balance: bigint; nonce: bigint } | undefined> }
}

export class LogTracer {
  readonly #traceTransfers: boolean
  #frames: SimLog[][] = []
  #count = 0
  #txHash: Uint8Array = new Uint8Array(32)
  #txIndex = 0
  /** Set while a transaction runs: the VM's events reach this tracer only then. */
  #active = false

  constructor(traceTransfers: boolean) {
    this.#traceTransfers = traceTransfers
  }

  /** A new block: the log index starts again. */
  newBlock(): void {
    this.#count = 0
  }

  /** The next transaction. */
  reset(txHash: Uint8Array, txIndex: number): void {
    this.#frames = []
    this.#txHash = txHash
    this.#txIndex = txIndex
    this.#active = true
  }

  /** The transaction's logs (none when its top frame failed), and the tracer idle until the next. */
  finish(): SimLog[] {
    this.#active = false
    return this.#frames[0] ?? []
  }

  #log(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    const frame = this.#frames[this.#frames.length - 1]
    if (frame === undefined) return
    frame.push({ address, topics, data, logIndex: this.#count++, transactionHash: this.#txHash, transactionIndex: this.#txIndex })
  }

  #transfer(from: Address, to: Address, value: bigint): void {
    if (!this.#traceTransfers || value <= 0n) return
    this.#log(ETHER, [TRANSFER_TOPIC, setLengthLeft(from.bytes, 32), setLengthLeft(to.bytes, 32)], setLengthLeft(bigIntToBytes(value), 32))
  }

  /**
   * A CALL or creation with value that EthereumJS refuses before it makes a frame (the call depth
   * limit, a balance below the value, a creator's nonce at 2^64-1): geth enters the frame first,
   * so its tracer logs the transfer and drops it with the failed frame, and the index moves on.
   */
  #refused(op: number, runState: RunState, stackLimit: number): void {
    const value = op === CALL ? runState.stack.peek(3)[2]! : runState.stack.peek(1)[0]!
    if (value <= 0n) return
    const env = runState.interpreter._env
    const refused = env.depth >= stackLimit || env.contract.balance < value || (op !== CALL && env.contract.nonce >= MAX_UINT64)
    if (refused) this.#count++
  }

  async #enter(message: Message, vm: VM): Promise<void> {
    this.#frames.push([])
    if (!this.#traceTransfers || message.value <= 0n || message.delegatecall) return
    // CALLCODE runs another account's code with the value staying at the caller.
    if (message.to !== undefined && message.codeAddress !== undefined && !message.codeAddress.equals(message.to)) return
    this.#transfer(message.caller, message.to ?? (await createdAddress(message, vm)), message.value)
  }

  #exit(failed: boolean): void {
    if (this.#frames.length <= 1) {
      if (failed) this.#frames[0] = []
      return
    }
    const frame = this.#frames.pop()!
    if (!failed) this.#frames[this.#frames.length - 1]!.push(...frame)
  }

  /** Listens to `vm`'s frame events (once per VM) and wraps its LOG and SELFDESTRUCT handlers (after each fork change). */
  install(vm: VM): void {
    const evm = vm.evm as unknown as { events: { listenerCount(e: string): number; on(e: string, f: (...a: never[]) => void): void }; _opcodeMap: OpEntry[] }
    if (!installed.has(vm)) {
      installed.add(vm)
      evm.events.on('beforeMessage', (message: Message, resolve: () => void) => {
        if (!this.#active) return resolve()
        this.#enter(message, vm).then(resolve, resolve)
      })
      evm.events.on('afterMessage', (result: { execResult: { exceptionError?: unknown } }) => {
        if (this.#active) this.#exit(result.execResult.exceptionError !== undefined)
      })
    }
    const map = evm._opcodeMap
    for (const op of LOG_OPS) {
      const entry = map[op]
      if (entry === undefined || entry.traced) continue
      const handler = entry.opHandler
      map[op] = {
        ...entry,
        traced: true,
        opHandler: (...a: unknown[]) => {
          const result = handler(...a)
          if (this.#active) {
            const logs = (a[0] as RunState).interpreter._result.logs
            const [address, topics, data] = logs[logs.length - 1]!
            this.#log(address, topics, data)
          }
          return result
        },
      }
    }
    for (const op of [CREATE, CALL, CREATE2]) {
      const entry = map[op]
      if (entry === undefined || entry.traced) continue
      const handler = entry.opHandler
      const stackLimit = Number(vm.common.param('stackLimit'))
      map[op] = {
        ...entry,
        traced: true,
        opHandler: (...a: unknown[]) => {
          if (this.#active && this.#traceTransfers) this.#refused(op, a[0] as RunState, stackLimit)
          return handler(...a)
        },
      }
    }
    const destruct = map[SELFDESTRUCT]
    if (destruct !== undefined && !destruct.traced) {
      const handler = destruct.opHandler
      map[SELFDESTRUCT] = {
        ...destruct,
        traced: true,
        opHandler: async (...a: unknown[]) => {
          if (this.#active && this.#traceTransfers) {
            const runState = a[0] as RunState
            const self = runState.interpreter._env.address
            const beneficiary = createAddressFromBigInt(runState.stack.peek(1)[0]!)
            const balance = (await runState.stateManager.getAccount(self))?.balance ?? 0n
            // geth's SELFDESTRUCT enters and leaves a frame of its own for the transfer.
            this.#frames.push([])
            this.#transfer(self, beneficiary, balance)
            this.#exit(false)
          }
          return handler(...a)
        },
      }
    }
  }
}

const installed = new WeakSet<VM>()

/** The address a creation message makes (its caller's nonce is already bumped, as EthereumJS bumps it first). */
async function createdAddress(message: Message, vm: VM): Promise<Address> {
  if (message.salt !== undefined) return new Address(generateAddress2(message.caller.bytes, message.salt, message.data))
  const nonce = ((await vm.stateManager.getAccount(message.caller))?.nonce ?? 1n) - 1n
  return new Address(generateAddress(message.caller.bytes, bigIntToBytes(nonce)))
}
