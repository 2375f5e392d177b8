/**
 * The third change to EthereumJS 10.1.3's interpreter (see ./interpreterPatch.ts and
 * patches/README.md): the handlers of the memory and storage opcodes, with the same gas and
 * effects as EthereumJS's, without its two costs there.
 *
 * - EthereumJS pads every storage key, stored word and log topic with
 *   `setLengthLeft(bigIntToBytes(n), 32)`, whose padding spreads both arrays into a new one
 *   (`new Uint8Array([...pad, ...msg])`): a third of a storage loop's time in a profile, and an
 *   ERC-20 transfer's three topics ~1% of a distinct eth_estimateGas. Here a word is written into 32 bytes at once (`word32`),
 *   and a 32-byte hash, memory word or stored value read as a number at once (`wordOf`, `numberOf`),
 *   not through a hex string (`bytesToBigInt`: ~1% of a distinct eth_estimateGas's CPU for SSTORE's and SLOAD's values).
 * - Its gas handlers are all `async`, so a step with a dynamic price waits on a promise even when
 *   the price is arithmetic (memory expansion, KECCAK256's words, a LOG's topics, a warm or cold
 *   SLOAD). Those are synchronous here; the interpreter (./interpreterPatch.ts `step`, and
 *   EthereumJS's own `runStep`, which awaits the value) takes a price or a promise of one.
 *
 * With them go ./stackHandlers.ts's PUSH, JUMP, JUMPI, ADD and SUB (patches/README.md change 13),
 * and ./haltHandlers.ts's STOP and RETURN (change 19).
 *
 * A handler is replaced only where the EVM's table holds EthereumJS's own (not a custom opcode's,
 * nor a wrapper's) and only under the rules the replacement was written for: the binary-tree EIPs
 * (6800, 7864), block access lists (7928) and the state-gas EIPs (8037, 8038) keep EthereumJS's
 * handlers, and so does SSTORE before Istanbul.
 */
import type { Common } from '@ethereumjs/common'
import { EVMError, getOpcodesForHF } from '@ethereumjs/evm'
import { bytesToBigInt } from '@ethereumjs/util'
import { HALT_OPS } from './haltHandlers.ts'
import { STACK_OPS } from './stackHandlers.ts'

type Handler = (...args: never[]) => unknown

interface Entry {
  readonly opcodeInfo: object
  readonly opHandler: Handler
  readonly gasHandler?: Handler
}

interface Journal {
  isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean
  addWarmedStorage(address: Uint8Array, slot: Uint8Array): void
}

interface RunState {
  opCode: number
  memoryWordCount: bigint
  highestMemCost: bigint
  stack: { peek(n?: number): bigint[]; pop(): bigint; popN(n: number): bigint[]; push(v: bigint): void }
  memory: { write(offset: number, size: number, value: Uint8Array): void; read(offset: number, size: number, avoidCopy?: boolean): Uint8Array }
  env: { eof?: unknown }
  interpreter: {
    journal: Journal
    isStatic(): boolean
    getAddress(): { bytes: Uint8Array }
    getGasLeft(): bigint
    getReturnDataSize(): bigint
    refundGas(amount: bigint, context?: string): void
    subRefund(amount: bigint, context?: string): void
    storageLoad(key: Uint8Array, original?: boolean, trackBAL?: boolean): Promise<Uint8Array>
    storageStore(key: Uint8Array, value: Uint8Array): Promise<void>
    log(data: Uint8Array, topicsCount: number, topics: Uint8Array[]): void
  }
}

const scratch = new Uint8Array(32)
const view = new DataView(scratch.buffer)

/** `n` (a stack word, below 2^256) as 32 big-endian bytes: `setLengthLeft(bigIntToBytes(n), 32)`. */
export function word32(n: bigint): Uint8Array {
  fill(n)
  return scratch.slice()
}

/** `n` in the fewest big-endian bytes, none for 0 (`bigIntToBytes(n)`, and SSTORE's empty zero). */
export function minimalBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0)
  fill(n)
  let i = 0
  while (scratch[i] === 0) i++
  return scratch.slice(i)
}

/** 32 big-endian bytes as a number (`bytesToBigInt`, without the hex string; read through `view`, not a DataView of their own). */
export function wordOf(bytes: Uint8Array): bigint {
  scratch.set(bytes.length === 32 ? bytes : bytes.subarray(0, 32))
  return (((((view.getBigUint64(0) << 64n) | view.getBigUint64(8)) << 64n) | view.getBigUint64(16)) << 64n) | view.getBigUint64(24)
}

/** Big-endian bytes as a number (`bytesToBigInt`): up to 32 of them through `view`, without the hex string. */
export function numberOf(bytes: Uint8Array): bigint {
  const n = bytes.length
  if (n === 0) return 0n
  if (n > 32) return bytesToBigInt(bytes)
  scratch.fill(0, 0, 32 - n)
  scratch.set(bytes, 32 - n)
  return (((((view.getBigUint64(0) << 64n) | view.getBigUint64(8)) << 64n) | view.getBigUint64(16)) << 64n) | view.getBigUint64(24)
}

function fill(n: bigint): void {
  // setBigUint64 keeps the low 64 bits of what it is given.
  view.setBigUint64(0, n >> 192n)
  view.setBigUint64(8, n >> 128n)
  view.setBigUint64(16, n >> 64n)
  view.setBigUint64(24, n)
}

const trap = (message: string): never => {
  throw new EVMError(message as never)
}
const { OUT_OF_GAS, OUT_OF_RANGE, STATIC_STATE_CHANGE } = EVMError.errorMessages

const divCeil32 = (a: bigint): bigint => (a % 32n === 0n ? a / 32n : a / 32n + 1n)

/** EthereumJS's `subMemUsage`: the gas to expand memory to `offset + length`, recorded on the run state. */
function memoryGas(rs: RunState, offset: bigint, length: bigint, common: Common): bigint {
  if (length === 0n) return 0n
  const words = divCeil32(offset + length)
  if (words <= rs.memoryWordCount) return 0n
  let cost = words * common.param('memoryGas') + (words * words) / common.param('quadCoefficientDivGas')
  if (cost > rs.highestMemCost) {
    const highest = rs.highestMemCost
    rs.highestMemCost = cost
    cost -= highest
  }
  rs.memoryWordCount = words
  return cost
}

/** EthereumJS's `accessStorageEIP2929` (charging, without the binary-tree EIPs): warms the slot. */
function storageAccess(rs: RunState, key: Uint8Array, isSstore: boolean, common: Common): bigint {
  if (!common.isActivatedEIP(2929)) return 0n
  const address = rs.interpreter.getAddress().bytes
  const journal = rs.interpreter.journal
  if (!journal.isWarmedStorage(address, key)) {
    journal.addWarmedStorage(address, key)
    return common.param('coldsloadGas')
  }
  return isSstore ? 0n : common.param('warmstoragereadGas')
}

/** EthereumJS's `adjustSstoreGasEIP2929`. */
function adjustForWarmSlot(rs: RunState, key: Uint8Array, cost: bigint, name: 'noop' | 'initRefund' | 'cleanRefund', common: Common): bigint {
  if (!common.isActivatedEIP(2929)) return cost
  if (!rs.interpreter.journal.isWarmedStorage(rs.interpreter.getAddress().bytes, key)) return cost
  const warmRead = common.param('warmstoragereadGas')
  if (name === 'noop') return warmRead
  if (name === 'initRefund') return common.param('sstoreInitEIP2200Gas') - warmRead
  return common.param('sstoreResetGas') - common.param('coldsloadGas') - warmRead
}

/** EthereumJS's `updateSstoreGasEIP2200`, on the values as numbers (equal padded bytes are equal numbers; empty is 0). */
function sstoreGasEIP2200(rs: RunState, current: bigint, original: bigint, value: bigint, key: Uint8Array, common: Common): bigint {
  const it = rs.interpreter
  if (it.getGasLeft() <= common.param('sstoreSentryEIP2200Gas')) trap(OUT_OF_GAS)
  if (current === value) return adjustForWarmSlot(rs, key, common.param('sstoreNoopEIP2200Gas'), 'noop', common)
  if (original === current) {
    if (original === 0n) return common.param('sstoreInitEIP2200Gas')
    if (value === 0n) it.refundGas(common.param('sstoreClearRefundEIP2200Gas'), 'EIP-2200 -> sstoreClearRefundEIP2200')
    return common.param('sstoreCleanEIP2200Gas')
  }
  if (original !== 0n) {
    if (current === 0n) it.subRefund(common.param('sstoreClearRefundEIP2200Gas'), 'EIP-2200 -> sstoreClearRefundEIP2200')
    else if (value === 0n) it.refundGas(common.param('sstoreClearRefundEIP2200Gas'), 'EIP-2200 -> sstoreClearRefundEIP2200')
  }
  if (original === value) {
    if (original === 0n) it.refundGas(adjustForWarmSlot(rs, key, common.param('sstoreInitRefundEIP2200Gas'), 'initRefund', common), 'EIP-2200 -> initRefund')
    else it.refundGas(adjustForWarmSlot(rs, key, common.param('sstoreCleanRefundEIP2200Gas'), 'cleanRefund', common), 'EIP-2200 -> cleanRefund')
  }
  return common.param('sstoreDirtyEIP2200Gas')
}

type GasHandler = (rs: RunState, gas: bigint, common: Common) => bigint | Promise<bigint>

/** Gas handlers of memory-expanding opcodes: arithmetic only, so synchronous. */
const copyGas = (rs: RunState, gas: bigint, common: Common): bigint => {
  const [memOffset, , length] = rs.stack.peek(3) as [bigint, bigint, bigint]
  gas += memoryGas(rs, memOffset, length, common)
  return length === 0n ? gas : gas + common.param('copyGas') * divCeil32(length)
}
const wordGas = (size: bigint) => (rs: RunState, gas: bigint, common: Common): bigint => gas + memoryGas(rs, rs.stack.peek()[0]!, size, common)
const rangeGas = (rs: RunState, gas: bigint, common: Common): bigint => {
  const [offset, length] = rs.stack.peek(2) as [bigint, bigint]
  return gas + memoryGas(rs, offset, length, common)
}
const logGas = (rs: RunState, gas: bigint, common: Common): bigint => {
  if (rs.interpreter.isStatic()) trap(STATIC_STATE_CHANGE)
  const [offset, length] = rs.stack.peek(2) as [bigint, bigint]
  const topics = rs.opCode - 0xa0
  if (topics < 0 || topics > 4) trap(OUT_OF_RANGE)
  gas += memoryGas(rs, offset, length, common)
  return gas + common.param('logTopicGas') * BigInt(topics) + length * common.param('logDataGas')
}

const GAS: Record<number, GasHandler> = {
  0x20: (rs, gas, common) => {
    const [offset, length] = rs.stack.peek(2) as [bigint, bigint]
    gas += memoryGas(rs, offset, length, common)
    return gas + common.param('keccak256WordGas') * divCeil32(length)
  },
  0x37: copyGas,
  0x39: copyGas,
  0x3e: (rs, gas, common) => {
    const [, dataOffset, length] = rs.stack.peek(3) as [bigint, bigint, bigint]
    if (dataOffset + length > rs.interpreter.getReturnDataSize() && rs.env.eof === undefined) trap(OUT_OF_GAS)
    return copyGas(rs, gas, common)
  },
  0x51: wordGas(32n),
  0x52: wordGas(32n),
  0x53: wordGas(1n),
  0x54: (rs, gas, common) => gas + storageAccess(rs, word32(rs.stack.peek()[0]!), false, common),
  0x55: async (rs, gas, common) => {
    if (rs.interpreter.isStatic()) trap(STATIC_STATE_CHANGE)
    const [key, value] = rs.stack.peek(2) as [bigint, bigint]
    const keyBytes = word32(key)
    const current = numberOf(await rs.interpreter.storageLoad(keyBytes, false, false))
    const original = numberOf(await rs.interpreter.storageLoad(keyBytes, true, false))
    gas += sstoreGasEIP2200(rs, current, original, value, keyBytes, common)
    return gas + storageAccess(rs, keyBytes, true, common)
  },
  0x5e: (rs, gas, common) => {
    const [dst, src, length] = rs.stack.peek(3) as [bigint, bigint, bigint]
    gas += 3n * ((length + 31n) / 32n)
    gas += memoryGas(rs, src, length, common)
    return gas + memoryGas(rs, dst, length, common)
  },
  0xa0: logGas,
  0xa1: logGas,
  0xa2: logGas,
  0xa3: logGas,
  0xa4: logGas,
  0xf3: rangeGas,
  0xfd: rangeGas,
}

/** LOG0-LOG4: the topics as 32 bytes each (`word32`), the data a copy of memory, as EthereumJS's. */
function log(rs: RunState): void {
  const [offset, length] = rs.stack.popN(2) as [bigint, bigint]
  const count = rs.opCode - 0xa0
  const topics = rs.stack.popN(count).map((topic) => word32(topic))
  const data = length === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(length))
  rs.interpreter.log(data, count, topics)
}

const OPS: Record<number, (rs: RunState, common: Common) => unknown> = {
  // Installed only where the Common has a keccak of its own (see installFastHandlers).
  0x20: (rs, common) => {
    const [offset, length] = rs.stack.popN(2) as [bigint, bigint]
    // A view of memory, not a copy: the hash reads it at once and keeps nothing.
    const data = length === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(length), true)
    rs.stack.push(wordOf(common.customCrypto.keccak256!(data)))
  },
  0x51: (rs) => rs.stack.push(wordOf(rs.memory.read(Number(rs.stack.pop()), 32, true))),
  0x52: (rs) => {
    const [offset, word] = rs.stack.popN(2) as [bigint, bigint]
    // Memory copies what it is given: the shared 32 bytes need no copy of their own.
    fill(word)
    rs.memory.write(Number(offset), 32, scratch)
  },
  0x54: async (rs) => {
    const value = await rs.interpreter.storageLoad(word32(rs.stack.pop()))
    rs.stack.push(numberOf(value))
  },
  0x55: async (rs) => {
    const [key, value] = rs.stack.popN(2) as [bigint, bigint]
    await rs.interpreter.storageStore(word32(key), minimalBytes(value))
  },
  0xa0: log,
  0xa1: log,
  0xa2: log,
  0xa3: log,
  0xa4: log,
}

/** EIPs under which these handlers are not EthereumJS's: its own stay. */
const OTHER_RULES = [6800, 7864, 7928, 8037, 8038]

let own: { ops: Map<number, unknown>; gas: Map<number, unknown> } | undefined

/** EthereumJS's own handlers (the same functions under every fork), to tell them from others. */
function ownHandlers(common: Common): { ops: Map<number, unknown>; gas: Map<number, unknown> } {
  if (own === undefined) {
    const { handlers, dynamicGasHandlers } = getOpcodesForHF(common)
    own = { ops: handlers as Map<number, unknown>, gas: dynamicGasHandlers as Map<number, unknown> }
  }
  return own
}

/** Replaces, in an EVM's opcode table just built for `common`'s fork, the handlers above (see the module's comment for where). */
export function installFastHandlers(map: Entry[], common: Common): void {
  if (OTHER_RULES.some((eip) => common.isActivatedEIP(eip)) || !common.gteHardfork('istanbul')) return
  const { ops, gas } = ownHandlers(common)
  for (const [code, handler] of Object.entries(GAS)) {
    const op = Number(code)
    const entry = map[op]
    if (entry?.gasHandler === undefined || entry.gasHandler !== gas.get(op)) continue
    map[op] = { ...entry, gasHandler: handler as unknown as Handler }
  }
  for (const [code, handler] of Object.entries(OPS)) {
    const op = Number(code)
    if (op === 0x20 && common.customCrypto.keccak256 === undefined) continue
    const entry = map[op]
    if (entry === undefined || entry.opHandler !== ops.get(op)) continue
    map[op] = { ...entry, opHandler: handler as unknown as Handler }
  }
  for (const [op, make] of [...STACK_OPS, ...HALT_OPS]) {
    const entry = map[op]
    if (entry === undefined || entry.opHandler !== ops.get(op)) continue
    map[op] = { ...entry, opHandler: make(entry.opHandler as never) as unknown as Handler }
  }
}
