/**
 * src/chain/vm/interpreterPatch.ts changes how EthereumJS's interpreter runs, never what it
 * computes: each program here runs on the patched path (no step listener) and on EthereumJS's own
 * `runStep` (a step listener sends every step there), and the two results must be the same, to
 * the gas, the return data, the logs, the error and the storage written; and a frame result's
 * runState, made when read (src/chain/vm/frameResult.ts), is the one EthereumJS makes.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { EVM, getOpcodesForHF } from '@ethereumjs/evm'
import { codeAnalysis } from '../../src/chain/vm/codeAnalysis.ts'
import { ethereumjsExtend, frameClasses, interpreterFor } from '../../src/chain/vm/frameMemory.ts'
import { ethereumjsExecuteCall } from '../../src/chain/vm/executeCall.ts'
import { ethereumjsRunInterpreter } from '../../src/chain/vm/frameResult.ts'
import { PATCHED_VERSION, patchInterpreter } from '../../src/chain/vm/interpreterPatch.ts'
import { vmLibraries } from '../../src/chain/vm/vmLibraries.ts'
import { keccak256 } from '../../src/encoding/keccak.ts'

const CONTRACT = createAddressFromString('0x00000000000000000000000000000000000e7e10')
const OTHER = createAddressFromString('0x00000000000000000000000000000000000e7e11')

/** Runtime programs, hex. */
const PROGRAMS: Record<string, string> = {
  // n = 300: JUMP loop, then return GAS.
  'a JUMP loop': '0x61012c5b610008565b6001900380610003575a60005260206000f3',
  // keccak chain of memory, 200 times, return memory.
  'a KECCAK256 loop': '0x60c85b60206000206000526001900380610002575a60205260406000f3',
  // slot[n & 7] += n, 100 times; return GAS.
  'an SSTORE/SLOAD loop': '0x60645b806007168054820190556001900380610002575a60005260206000f3',
  // a jump into push data: invalid jump destination.
  'a bad jump': '0x600456605b00',
  // an invalid opcode after some gas.
  'INVALID': '0x6001600201fe',
  // out of gas in a loop without end.
  'out of gas': '0x5b600056',
  // a LOG1, then the memory returned.
  'a LOG': '0x60aa60005260ff60206000a160206000f3',
  // a REVERT with data.
  'a REVERT': '0x60aa60005260206000fd',
  // a STATICCALL into the other contract (which returns 32 bytes), then its answer returned.
  'a STATICCALL': '0x6020600060006000620e7e115afa5060206000f3',
  // an opcode not on the fork (0x0c).
  'an undefined opcode': '0x60010c',
  // STOP and RETURN end the frame (./haltHandlers.ts): what follows them never runs (the stack left is compared).
  'a STOP before more code': '0x6001006002',
  'a RETURN before more code': '0x60aa60005260206000f36002',
  'a RETURN of nothing': '0x6007600060006000f3',
  'a RETURN with one operand': '0x6001f3',
  // SSTORE's cases (slot 1 holds 5, slot 2 holds 7 before): set and reset to zero, change and
  // restore, a no-op, clear and recreate; then a warm and a cold SLOAD.
  'SSTORE refunds and SLOADs': '0x60016000556000600055600660015560056001556005600155600060025560036002556002546009540160005260206000f3',
  // CALLDATACOPY, CODECOPY, MCOPY, MSTORE8, an empty RETURNDATACOPY; MSIZE; a wide RETURN.
  'memory copies': '0x6020600061010037601060006102003960406101006104005e60ff61050053600060006000' + '3e' + '596000526106006000f3',
  // RETURNDATACOPY past the (empty) return data.
  'RETURNDATACOPY out of range': '0x6001600060003e',
  // a LOG2 with 32 bytes of data.
  'a LOG2': '0x60aa6000526002600160206000a200',
  // a LOG0 without data; a LOG4 with a full-width, a zero and two small topics over memory partly written.
  'LOG0 and LOG4': '0x60aa600052' + '60006000a0' + '7f' + 'ff'.repeat(32) + '6000610100600160306010a400',
  // MLOADs of a word written and of memory never written.
  'MLOADs': '0x7fff000000000000000000000000000000000000000000000000000000000000016020526020516040510160005260206000f3',
  // an MSTORE far out: out of gas for memory.
  'memory out of gas': '0x600163ffffffff52',
  // KECCAK256 of nothing and of 768 bytes.
  'KECCAK256 lengths': '0x6000600020610300600020016000526020' + '6000f3',
  // ADD past 2^256 and SUB below 0, left on the stack (the frame's stack is compared).
  'ADD and SUB wrapping': '0x7f' + 'ff'.repeat(32) + '60020160016000036001600203600260010100',
  'ADD with one operand': '0x600101',
  'SUB with one operand': '0x600103',
  // A JUMPI not taken to a bad destination, then one taken into push data.
  'JUMPIs to bad destinations': '0x600060ff576001600357',
  'a JUMPI with one operand': '0x600157',
  'a JUMP with no operand': '0x56',
  // A JUMP to the code's length (not above it) and one beyond 2^256 / 2 (no JUMPDEST there).
  "a JUMP to the code's length": '0x600356',
  'a JUMP far beyond the code': '0x7f' + 'ff'.repeat(32) + '56',
  // PUSHes before the first jump and after it (the analysis' values), then a PUSH32 cut short by the code's end.
  'PUSHes around the analysis': '0x600456005b61abcd6000527f0102',
  // CALLDATALOAD of CALL_DATA's 40 bytes: at 0, at 8 (the last whole word), at 20 (cut short), at its
  // length, past it, at 2^255; then with an empty stack.
  CALLDATALOADs: '0x6000356008356014356028356029357f' + '80' + '00'.repeat(31) + '3500',
  'CALLDATALOAD with an empty stack': '0x35',
}
const OTHER_CODE = '0x602a60005260206000f3'
/** The call data every program is called with (40 bytes, none alike). */
const CALL_DATA = Uint8Array.from({ length: 40 }, (_, i) => 0x11 + i * 5)

/**
 * Runs `program`: on the patched path, or with a step listener (EthereumJS's own `runStep`), or
 * `vanilla`: with the listener and EthereumJS's own opcode table (not ./fastHandlers.ts's handlers).
 */
async function run(program: string, withListener: boolean | 'vanilla', hardfork: Hardfork = Hardfork.Osaka, calls = 1) {
  const { evm: evmLib } = await vmLibraries()
  // The chain's own keccak, as its Commons have it (./fastHandlers.ts replaces KECCAK256 only then).
  const common = new Common({ chain: Mainnet, hardfork, customCrypto: { keccak256 } })
  const stateManager = new MerkleStateManager({ common })
  const evm = await evmLib.createEVM({ common, stateManager })
  if (withListener === 'vanilla') (evm as unknown as { _opcodeMap: unknown })._opcodeMap = getOpcodesForHF(common).opcodeMap
  await stateManager.putAccount(CONTRACT, new Account())
  await stateManager.putCode(CONTRACT, hexToBytes(program as `0x${string}`))
  await stateManager.putStorage(CONTRACT, new Uint8Array(32).fill(1, 31), Uint8Array.of(5))
  await stateManager.putStorage(CONTRACT, new Uint8Array(32).fill(2, 31), Uint8Array.of(7))
  await stateManager.putAccount(OTHER, new Account())
  await stateManager.putCode(OTHER, hexToBytes(OTHER_CODE))
  let steps = 0
  if (withListener) evm.events.on('step', () => void steps++)
  // Called `calls` times on one EVM: from the second on, a frame can read its code's kept analysis from its first step.
  let result = await evm.runCall({ to: CONTRACT, gasLimit: 1_000_000n, data: CALL_DATA })
  for (let i = 1; i < calls; i++) result = await evm.runCall({ to: CONTRACT, gasLimit: 1_000_000n, data: CALL_DATA })
  const rs = result.execResult.runState as unknown as Record<string, unknown> | undefined
  const frame = rs && {
    resultKeys: Object.keys(result.execResult),
    keys: Object.keys(rs),
    opCode: rs.opCode,
    programCounter: rs.programCounter,
    gasLeft: rs.gasLeft,
    stack: (rs.stack as { getStack(): bigint[] }).getStack(),
    address: String(rs.address),
    depth: rs.depth,
    returnValue: rs.returnValue,
  }
  const slots = await Promise.all([0, 1, 2, 7].map(async (slot) => bytesToHex(await stateManager.getStorage(CONTRACT, new Uint8Array(32).fill(slot, 31)))))
  const exec = result.execResult
  return {
    steps,
    frame,
    outcome: {
      gasUsed: exec.executionGasUsed,
      refund: exec.gasRefund,
      returned: bytesToHex(exec.returnValue),
      error: exec.exceptionError?.error,
      logs: (exec.logs ?? []).map((log) => log.map((part) => (Array.isArray(part) ? part.map((b) => bytesToHex(b)) : bytesToHex(part)))),
      slots,
    },
  }
}

describe('the interpreter patch', () => {
  it(`is applied to EthereumJS ${PATCHED_VERSION}, the version installed`, async () => {
    await vmLibraries()
    expect(await patchInterpreter()).toBe(true)
  })

  it('answers isActivatedEIP as the active EIPs list does, on every fork', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Chainstart })
    for (const fork of [Hardfork.Chainstart, Hardfork.London, Hardfork.Cancun, Hardfork.Prague, Hardfork.Osaka, Hardfork.Chainstart]) {
      common.setHardfork(fork)
      const list = (common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache
      const eips = Array.from({ length: 9000 }, (_, eip) => eip)
      expect(eips.filter((eip) => common.isActivatedEIP(eip)), fork).toEqual(eips.filter((eip) => list.includes(eip)))
    }
  })

  for (const [name, program] of Object.entries(PROGRAMS)) {
    it(`runs ${name} as EthereumJS's own step does`, async () => {
      const fast = await run(program, false)
      const reference = await run(program, true)
      expect(reference.steps).toBeGreaterThan(0)
      expect(fast.outcome).toEqual(reference.outcome)
    })
  }

  for (const hardfork of [Hardfork.Istanbul, Hardfork.London, Hardfork.Osaka]) {
    for (const [name, program] of Object.entries(PROGRAMS)) {
      it(`runs ${name} under ${hardfork} as EthereumJS's own handlers do`, async () => {
        const fast = await run(program, false, hardfork)
        const vanilla = await run(program, 'vanilla', hardfork)
        expect(vanilla.steps).toBeGreaterThan(0)
        expect(fast.outcome).toEqual(vanilla.outcome)
        // Where the frame ended, with what on its stack (./stackHandlers.ts hands failures to EthereumJS's handlers as found).
        expect(fast.frame && { ...fast.frame, stack: fast.frame.stack.map(String) }).toEqual(vanilla.frame && { ...vanilla.frame, stack: vanilla.frame.stack.map(String) })
      })
    }
  }

  for (const [name, program] of Object.entries(PROGRAMS)) {
    it(`runs ${name} a second time on one EVM (its kept analysis from the first step) as EthereumJS's own handlers do`, async () => {
      const fast = await run(program, false, Hardfork.Osaka, 2)
      const vanilla = await run(program, 'vanilla', Hardfork.Osaka, 2)
      expect(fast.outcome).toEqual(vanilla.outcome)
      expect(fast.frame && { ...fast.frame, stack: fast.frame.stack.map(String) }).toEqual(vanilla.frame && { ...vanilla.frame, stack: vanilla.frame.stack.map(String) })
    })
  }

  /** Runs each program with the double's `method` and with EthereumJS's own (`own`): the same frames and outcomes. */
  async function sameAsEthereumjs(method: 'runInterpreter' | '_executeCall', own: unknown, names: readonly string[]): Promise<void> {
    await vmLibraries()
    const proto = EVM.prototype as unknown as Record<typeof method, unknown>
    const patched = proto[method]
    expect(own).toBeDefined()
    expect(patched).not.toBe(own)
    for (const name of names) {
      const ours = await run(PROGRAMS[name]!, false)
      proto[method] = own
      try {
        const theirs = await run(PROGRAMS[name]!, false)
        expect(theirs.frame, name).toBeDefined()
        expect(ours.frame, name).toEqual(theirs.frame)
        expect(ours.outcome, name).toEqual(theirs.outcome)
      } finally {
        proto[method] = patched
      }
    }
  }

  it("makes a frame result's runState, when read, as EthereumJS makes it at the frame's end", async () => {
    await sameAsEthereumjs('runInterpreter', ethereumjsRunInterpreter, ['INVALID', 'a REVERT', 'a STATICCALL', 'an SSTORE/SLOAD loop', 'out of gas'])
  })

  it("executes a message call's frames as EthereumJS's own _executeCall does", async () => {
    await sameAsEthereumjs('_executeCall', ethereumjsExecuteCall, ['INVALID', 'a REVERT', 'a STATICCALL', 'SSTORE refunds and SLOADs', 'out of gas', 'LOG0 and LOG4'])
  })

  it('keeps one analysis of a code for every frame that runs it on an EVM', async () => {
    const a = await run(PROGRAMS['a JUMP loop']!, false)
    const b = await run(PROGRAMS['a JUMP loop']!, false)
    expect(a.outcome).toEqual(b.outcome)
  })

  it("looks a code array up by itself, and views of one buffer each by its own code, as EthereumJS's analysis of each", async () => {
    const { evm: evmLib } = await vmLibraries()
    await patchInterpreter()
    const evm = await evmLib.createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Osaka }) })
    const args = [evm, evm.stateManager, evm.blockchain, { address: CONTRACT }, 1_000n, evm.journal, undefined, { enabled: false }] as const
    const interpreter = interpreterFor(...(args as unknown as Parameters<typeof interpreterFor>)) as unknown as Parameters<typeof codeAnalysis>[0]
    const theirs = (code: Uint8Array) => (Object.getPrototypeOf(interpreter) as typeof interpreter)._getValidJumpDestinations.call(interpreter, code)
    // Two codes in one buffer (as RLP decoding hands out views), the second's JUMPDESTs elsewhere.
    const jumpLoop = hexToBytes(PROGRAMS['a JUMP loop'] as `0x${string}`)
    const pushes = hexToBytes(PROGRAMS['PUSHes around the analysis'] as `0x${string}`)
    const buffer = new Uint8Array(jumpLoop.length + pushes.length)
    buffer.set(jumpLoop)
    buffer.set(pushes, jumpLoop.length)
    const first = buffer.subarray(0, jumpLoop.length)
    const second = buffer.subarray(first.length)
    for (const code of [first, second, first, second, Uint8Array.from(second)]) {
      const ours = codeAnalysis(interpreter, code)
      const own = theirs(code)
      expect(Array.from(ours.jumps), bytesToHex(code)).toEqual(Array.from(own.jumps))
      expect(ours.pushes).toEqual(own.pushes)
    }
    expect(codeAnalysis(interpreter, first)).toBe(codeAnalysis(interpreter, first))
  })
})

describe("a frame's memory (src/chain/vm/frameMemory.ts)", () => {
  const made = async () => {
    const { evm: evmLib } = await vmLibraries()
    await patchInterpreter()
    const classes = frameClasses()!
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Osaka })
    const evm = await evmLib.createEVM({ common })
    const env = { gasRefund: 3n, initialLogs: [['log']], address: CONTRACT }
    const args = [evm, evm.stateManager, evm.blockchain, env, 1_000n, evm.journal, undefined, { enabled: false }] as const
    const Interpreter = classes.Interpreter as unknown as new (...a: typeof args) => Record<string, unknown>
    return { classes, ours: interpreterFor(...(args as unknown as Parameters<typeof interpreterFor>)) as Record<string, unknown>, theirs: new Interpreter(...args) }
  }

  it("makes a frame's interpreter as EthereumJS's constructor does, with an empty memory", async () => {
    const { ours, theirs } = await made()
    expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs))
    expect(Object.keys(ours)).toEqual(Object.keys(theirs))
    const rs = (it: Record<string, unknown>) => it._runState as Record<string, unknown>
    expect(Object.keys(rs(ours))).toEqual(Object.keys(rs(theirs)))
    const { memory: m1, stack: s1, interpreter: i1, ...restOurs } = rs(ours)
    const { memory: m2, stack: s2, interpreter: i2, ...restTheirs } = rs(theirs)
    expect(restOurs).toEqual(restTheirs)
    expect([i1, i2]).toEqual([ours, theirs])
    expect(Object.getPrototypeOf(m1)).toBe(Object.getPrototypeOf(m2))
    expect(Object.getPrototypeOf(s1)).toBe(Object.getPrototypeOf(s2))
    expect((m1 as { _store: Uint8Array })._store.length).toBe(0)
    for (const key of ['opDebuggers', '_result', 'profilerOpts', 'common', '_env']) expect(ours[key], key).toEqual(theirs[key])
  })

  it("grows to the bytes EthereumJS's memory holds, by doubling, never 8 KiB more than asked", async () => {
    const { classes } = await made()
    type Mem = { _store: Uint8Array; extend(o: number, s: number): void; write(o: number, s: number, v: Uint8Array): void; read(o: number, s: number): Uint8Array }
    const ours = Object.assign(Object.create(classes.Memory.prototype), { _store: new Uint8Array(0) }) as Mem
    const theirs = new (classes.Memory as unknown as new () => Mem)()
    theirs.extend = ethereumjsExtend!
    // A token call's first writes (the free memory pointer, a word at 0x80) take 256 bytes, not 8 KiB.
    for (const m of [ours, theirs]) {
      m.write(0x40, 32, new Uint8Array(32).fill(0x80))
      m.write(0x80, 32, new Uint8Array(32).fill(1))
    }
    expect(ours._store.length).toBe(256)
    let seed = 7
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
    let touched = 0xa0
    for (let i = 0; i < 400; i++) {
      const offset = next(i < 300 ? 2_000 : 40_000)
      const size = 1 + next(i % 50 === 0 ? 9_000 : 64)
      const value = Uint8Array.from({ length: size }, () => next(256))
      for (const m of [ours, theirs]) m.write(offset, size, value)
      const at = next(45_000)
      const n = next(600)
      expect(ours.read(at, n), `read ${at} ${n} after write ${offset} ${size}`).toEqual(theirs.read(at, n))
      touched = Math.max(touched, offset + size, n > 0 ? at + n : 0)
      const wanted = Math.ceil(touched / 32) * 32
      expect(ours._store.length).toBeGreaterThanOrEqual(wanted)
      expect(ours._store.length).toBeLessThanOrEqual(Math.max(256, wanted + 8192))
    }
    expect(ours.read(0, 45_000)).toEqual(theirs.read(0, 45_000))
  })
})
