/**
 * eth_createAccessList as geth's `AccessList` makes it: run the call with the access list found so
 * far, note every account and slot it touches (geth's `AccessListTracer`: SLOAD and SSTORE slots
 * of the running contract; the targets of BALANCE, EXTCODE*, SELFDESTRUCT and calls, save the
 * sender, the recipient, the precompiles and the EIP-7702 authorities), and run again with that
 * list until a run touches nothing new. The answer: the list (addresses and slots sorted), the gas
 * the call uses with it, and the call's failure if it fails.
 */
import { bytesToHex, createAddressFromString, createZeroAddress, generateAddress, bigIntToUnpaddedBytes } from '@ethereumjs/util'
import type { ChainReader } from '../blocks/chainReader.ts'
import type { BlockRecord } from '../blocks/types.ts'
import { runCall } from '../execution/call.ts'
import type { CallArgs, CallOverrides } from '../execution/callArgs.ts'
import type { ExecutionBudget } from '../vm/executionGuard.ts'
import type { OpcodeStep, Tracer } from './hooks.ts'
// The runs' time is the execution budget's; the trace's own deadline only has to be later.
import { MAX_TRACE_TIMEOUT_MS, TraceBudget } from './limits.ts'
import { Observer } from './observer.ts'
import { OP } from './opcodes.ts'

export interface AccessListEntry {
  address: string
  storageKeys: string[]
}

export interface AccessListAnswer {
  accessList: AccessListEntry[]
  gasUsed: bigint
  /** The call's failure with this list (`execution reverted`...), if it fails. */
  error?: string
}

/** Runs past this many never settle (geth has no bound; a list only grows, so real calls settle in a few). */
const MAX_RUNS = 64

const ADDRESS_OPS = new Set<number>([OP.EXTCODECOPY, OP.EXTCODEHASH, OP.EXTCODESIZE, OP.BALANCE, OP.SELFDESTRUCT])
const CALL_OPS = new Set<number>([OP.DELEGATECALL, OP.CALL, OP.STATICCALL, OP.CALLCODE])

/** geth's `AccessListTracer`: the touched accounts and slots, less the excluded accounts. */
class AccessListTracer implements Tracer {
  readonly list = new Map<string, Set<string>>()
  readonly #excluded: ReadonlySet<string>
  readonly opcodes = { which: [OP.SLOAD, OP.SSTORE, ...ADDRESS_OPS, ...CALL_OPS] }

  constructor(initial: readonly AccessListEntry[], excluded: ReadonlySet<string>) {
    this.#excluded = excluded
    for (const entry of initial) {
      const address = entry.address.toLowerCase()
      if (excluded.has(address)) continue
      this.#address(address)
      for (const key of entry.storageKeys) this.list.get(address)!.add(key.toLowerCase())
    }
  }

  onOpcode(step: OpcodeStep): void {
    const s = step.stack
    const top = s.length - 1
    if ((step.op === OP.SLOAD || step.op === OP.SSTORE) && top >= 0) {
      this.#address(step.address).add(`0x${s[top]!.toString(16).padStart(64, '0')}`)
    } else if (ADDRESS_OPS.has(step.op) && top >= 0) {
      this.#touch(s[top]!)
    } else if (CALL_OPS.has(step.op) && top >= 4) {
      this.#touch(s[top - 1]!)
    }
  }

  result(): string {
    return ''
  }

  /** geth's `types.AccessList` of it: addresses in order, each with its slots in order. */
  entries(): AccessListEntry[] {
    return [...this.list.keys()].sort().map((address) => ({ address, storageKeys: [...this.list.get(address)!].sort() }))
  }

  equals(other: AccessListTracer): boolean {
    if (this.list.size !== other.list.size) return false
    for (const [address, slots] of this.list) {
      const theirs = other.list.get(address)
      if (!theirs || theirs.size !== slots.size || [...slots].some((s) => !theirs.has(s))) return false
    }
    return true
  }

  #touch(word: bigint): void {
    const address = `0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`
    if (!this.#excluded.has(address)) this.#address(address)
  }

  #address(address: string): Set<string> {
    let slots = this.list.get(address)
    if (!slots) this.list.set(address, (slots = new Set()))
    return slots
  }
}

export interface AccessListRequest {
  chain: ChainReader
  record: BlockRecord
  /** The call with its fees and nonce filled in (geth's `setFeeDefaults`). */
  args: CallArgs
  gasCap: bigint
  overrides: CallOverrides | undefined
  /** Accounts the list leaves out besides sender and recipient: precompiles, EIP-7702 authorities. */
  excluded: readonly string[]
  /** One time budget for all the runs. */
  budget: ExecutionBudget
}

/** Runs the call until its access list settles (throws `CallRejected`, `OverrideError`, `ExecutionTimeout` as eth_call). */
export async function createAccessList(request: AccessListRequest): Promise<AccessListAnswer> {
  const { args } = request
  const from = args.from ?? createZeroAddress().toString()
  const to = args.to ?? bytesToHex(generateAddress(createAddressFromString(from).bytes, bigIntToUnpaddedBytes(args.nonce ?? 0n)))
  const excluded = new Set([from.toLowerCase(), to.toLowerCase(), ...request.excluded.map((a) => a.toLowerCase())])
  let previous = new AccessListTracer(args.accessList ?? [], excluded)
  for (let run = 0; ; run++) {
    const accessList = previous.entries()
    const tracer = new AccessListTracer(accessList, excluded)
    const { outcome } = await runCall(request.chain, request.record, { ...args, accessList }, request.gasCap, request.overrides, request.budget, (vm, block) => {
      const observer = new Observer(vm, { tracer, budget: new TraceBudget({ timeoutMs: MAX_TRACE_TIMEOUT_MS }), coinbase: block.header.coinbase.toString(), firstLogIndex: 0 })
      return () => observer.detach()
    })
    if (tracer.equals(previous) || run + 1 >= MAX_RUNS) {
      return { accessList, gasUsed: outcome.usedGas, ...(outcome.failed ? { error: outcome.error ?? 'execution failed' } : {}) }
    }
    previous = tracer
  }
}
