/**
 * `npm run bench:evm`: execution speed in Mgas/s, gateway-double against Anvil in one run.
 *
 * Each row is one contract run by `eth_call` with its code given as a state override, on both
 * servers: a loop counted down from its calldata, whose iteration count is chosen so that one call
 * burns about 14M gas (`--gas`; under EIP-7825's 2^24), and which returns the gas left at its end (so the
 * gas burnt is read from the answer, and both servers must agree on it). Rows:
 * - JUMP: a loop of JUMPs (the interpreter's dispatch, nothing else);
 * - KECCAK256: a loop hashing 32 bytes of memory into itself;
 * - SSTORE/SLOAD: a loop reading and writing eight warm slots (the state's caches and journal);
 * - ERC-20 transfer: a contract calling its own `transfer` to a new holder per iteration (a call
 *   frame, two slots, a log: what a token transfer executes).
 * A round calls each server for `--duration` seconds, gateway-double then Anvil; Mgas/s is the gas
 * of all calls over their time (a call's HTTP round trip is included, and is small next to 14M gas).
 *
 * The target: 3x gateway-double's figures on main before the work of issue 19 (BASELINE below,
 * measured with this script). It is judged on the ratio to Anvil of the same run (the machine is
 * shared: absolute figures move with its load), and the absolute figures are printed beside it.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { anvilBinary, anvilEndpoint, anvilVersion } from './anvil.ts'
import { ROOT } from './fixture.ts'
import type { FromServer } from './gatewayServer.ts'
import type { Endpoint } from './processes.ts'
import { LOOPBACK, closeControlConnections, freePort, post, sleep, spawnTracked, stopAll } from './processes.ts'
import { RpcClient } from './rpc.ts'

const USAGE = `Usage: npm run bench:evm -- [options]

Mgas/s of eth_call on four loops (JUMP, KECCAK256, SSTORE/SLOAD, ERC-20 transfer), gateway-double
(default fixtures, network ethereum) against Anvil (@foundry-rs/anvil-linux-amd64), in one run.

Options:
  --duration <s>   seconds per server, row and round (default 3)
  --rounds <n>     rounds per row, each gateway-double then Anvil (default 2)
  --gas <n>        gas one call burns, about (default 14000000; at most 14500000)
  --json <file>    also write the results as JSON
  -h, --help       print this help
`

/** Gas of one call: under EIP-7825's cap, which both servers apply to calls under Osaka. */
const CALL_GAS = 15_000_000
/** The gas a loop's iteration count is chosen to burn, by default. */
const TARGET_GAS = 14_000_000
const LOOP_ADDRESS = '0x00000000000000000000000000000000000e7e10'
const DEV_KEY = 'deadbeefdeadbeefdeadbeefdeadbeef'

/**
 * gateway-double's Mgas/s and its ratio to Anvil on main before issue 19's execution work
 * (commit f9fd02f, `npm run bench:evm`, 2 rounds of 3 s, on the shared machine at a load average of
 * 18: Anvil ran the loops at 138, 35, 364 and 1,102 Mgas/s), the target being three times them.
 */
const BASELINE: Record<string, { mgas: number; ratio: number }> = {
  jump: { mgas: 2.0, ratio: 0.0145 },
  keccak: { mgas: 1.4, ratio: 0.039 },
  storage: { mgas: 0.8, ratio: 0.0022 },
  erc20: { mgas: 3.5, ratio: 0.0031 },
}

// A small assembler: enough for counted loops with labels.
type Op = number | { push: number } | { label: string } | { to: string }
const OP = { STOP: 0x00, ADD: 0x01, SUB: 0x03, AND: 0x16, KECCAK256: 0x20, CALLDATALOAD: 0x35, POP: 0x50, MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55, JUMP: 0x56, JUMPI: 0x57, GAS: 0x5a, JUMPDEST: 0x5b, PUSH1: 0x60, PUSH2: 0x61, DUP1: 0x80, DUP2: 0x81, DUP3: 0x82, SWAP1: 0x90, RETURN: 0xf3 }

function assemble(ops: Op[]): string {
  const labels = new Map<string, number>()
  let at = 0
  for (const op of ops) {
    if (typeof op === 'number') at += 1
    else if ('push' in op) at += 2
    else if ('label' in op) labels.set(op.label, at++)
    else at += 3
  }
  const bytes: number[] = []
  for (const op of ops) {
    if (typeof op === 'number') bytes.push(op)
    else if ('push' in op) bytes.push(OP.PUSH1, op.push)
    else if ('label' in op) bytes.push(OP.JUMPDEST)
    else {
      const dest = labels.get(op.to)!
      bytes.push(OP.PUSH2, dest >> 8, dest & 0xff)
    }
  }
  return `0x${Buffer.from(bytes).toString('hex')}`
}

/** A loop of `body` run n times (n: the calldata's first word), which returns the gas left. The body keeps the stack as it finds it ([n]). */
function countedLoop(body: Op[]): string {
  return assemble([
    { push: 0 }, OP.CALLDATALOAD,
    { label: 'loop' },
    ...body,
    { push: 1 }, OP.SWAP1, OP.SUB, OP.DUP1, { to: 'loop' }, OP.JUMPI,
    OP.GAS, { push: 0 }, OP.MSTORE, { push: 32 }, { push: 0 }, OP.RETURN,
  ])
}

const ERC20_LOOP_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Erc20Loop {
  mapping(address => uint256) public balanceOf;
  event Transfer(address indexed from, address indexed to, uint256 value);
  function transfer(address to, uint256 value) external returns (bool) {
    uint256 balance = balanceOf[msg.sender];
    require(balance >= value, "insufficient balance");
    unchecked { balanceOf[msg.sender] = balance - value; }
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
  fallback(bytes calldata input) external returns (bytes memory) {
    uint256 n = abi.decode(input, (uint256));
    balanceOf[address(this)] = n;
    for (uint256 i = 1; i <= n; i++) this.transfer(address(uint160(0xe7e10000 + i)), 1);
    return abi.encode(gasleft());
  }
}`

async function erc20LoopCode(): Promise<string> {
  const { default: solc } = await import('solc')
  const input = {
    language: 'Solidity',
    sources: { 'Erc20Loop.sol': { content: ERC20_LOOP_SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'prague', outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } } },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`)
  return `0x${output.contracts['Erc20Loop.sol']!.Erc20Loop!.evm.deployedBytecode.object}`
}

interface LoopSpec {
  id: string
  label: string
  code: string
}

async function loops(): Promise<LoopSpec[]> {
  return [
    // An unconditional JUMP in the body, the loop's own JUMPI at its end.
    { id: 'jump', label: 'JUMP loop', code: countedLoop([{ to: 'next' }, OP.JUMP, { label: 'next' }]) },
    // memory[0..32] = keccak256(memory[0..32]), n times.
    { id: 'keccak', label: 'KECCAK256 loop (32 bytes)', code: countedLoop([{ push: 32 }, { push: 0 }, OP.KECCAK256, { push: 0 }, OP.MSTORE]) },
    // slot[n & 7] += n: a warm SLOAD and SSTORE per iteration.
    { id: 'storage', label: 'SSTORE/SLOAD loop (8 warm slots)', code: countedLoop([OP.DUP1, { push: 7 }, OP.AND, OP.DUP1, OP.SLOAD, OP.DUP3, OP.ADD, OP.SWAP1, OP.SSTORE]) },
    { id: 'erc20', label: 'ERC-20 transfer (a call each, to a new holder)', code: await erc20LoopCode() },
  ]
}

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

/** The gas one call with n iterations burns (the call's gas minus what the loop returns as left). */
async function gasBurnt(endpoint: Endpoint, code: string, n: number): Promise<number> {
  const params = [{ to: LOOP_ADDRESS, data: word(n), gas: `0x${CALL_GAS.toString(16)}` }, 'latest', { [LOOP_ADDRESS]: { code } }]
  // A call may take long on a loaded machine: no time limit but the generous one here.
  const answer = await post(endpoint, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params }), 600_000)
  const parsed = answer.status === 200 ? (JSON.parse(answer.body) as { result?: string }) : {}
  if (parsed.result === undefined) throw new Error(`${endpoint.name}: eth_call answered HTTP ${answer.status}: ${answer.body.slice(0, 300)}`)
  return CALL_GAS - Number(BigInt(parsed.result))
}

interface Measured {
  mgasPerSec: number
  calls: number
  rounds: number[]
}

async function measure(client: Endpoint, code: string, n: number, gas: number, durationMs: number): Promise<{ gas: number; ms: number; calls: number }> {
  const t0 = performance.now()
  let calls = 0
  while (performance.now() - t0 < durationMs || calls === 0) {
    const burnt = await gasBurnt(client, code, n)
    if (burnt !== gas) throw new Error(`${client.name}: a call burnt ${burnt} gas, the first ${gas}`)
    calls++
  }
  return { gas: gas * calls, ms: performance.now() - t0, calls }
}

/** gateway-double on the default fixtures, through bench/gatewayServer.ts (no execution time limit). */
async function startGatewayDouble(): Promise<Endpoint> {
  const child = spawnTracked(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/gatewayServer.ts'), join(ROOT, 'config/default.json'), JSON.stringify({ evmTimeoutMs: 0 })], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  const ready = await new Promise<FromServer>((resolveReady, reject) => {
    child.child.once('message', resolveReady)
    void child.exited.then(({ code, signal }) => reject(new Error(`gateway-double exited (${code ?? signal}):\n${child.output().slice(-3000)}`)))
  })
  if (ready.type !== 'ready') throw new Error(`gateway-double failed to start: ${JSON.stringify(ready)}`)
  return { name: 'gateway-double', port: ready.port, path: `/v3/${DEV_KEY}`, host: 'ethereum-mainnet.localhost' }
}

async function startAnvil(): Promise<Endpoint> {
  const port = await freePort()
  const anvil = spawnTracked(anvilBinary(), ['--host', LOOPBACK, '--port', String(port), '--hardfork', 'osaka', '--quiet'])
  const endpoint = anvilEndpoint(port)
  const client = new RpcClient(endpoint)
  for (let tries = 0; ; tries++) {
    if (!anvil.alive) throw new Error(`anvil exited:\n${anvil.output().slice(-2000)}`)
    try {
      await client.call('eth_chainId')
      return endpoint
    } catch (err) {
      if (tries > 2500) throw err
      await sleep(4)
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { duration: { type: 'string' }, rounds: { type: 'string' }, gas: { type: 'string' }, json: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return
  }
  const durationMs = Number(values.duration ?? 3) * 1000
  const rounds = Number(values.rounds ?? 2)
  const targetGas = Number(values.gas ?? TARGET_GAS)
  if (!(durationMs > 0) || !Number.isInteger(rounds) || rounds < 1) throw new Error('--duration: seconds > 0; --rounds: an integer >= 1')
  if (!Number.isInteger(targetGas) || targetGas < 100_000 || targetGas > 14_500_000) throw new Error('--gas: an integer from 100000 to 14500000')
  const log = (line: string) => process.stderr.write(`${line}\n`)

  const specs = await loops()
  log(`starting gateway-double (default fixtures, ethereum) and ${anvilVersion()}...`)
  const [gdEndpoint, anvilEp] = await Promise.all([startGatewayDouble(), startAnvil()])
  const gd = gdEndpoint
  const anvil = anvilEp
  const results: { id: string; label: string; iterations: number; gasPerCall: number; gatewayDouble: Measured; anvil: Measured; ratio: number; target: number; targetMgas: number; met: boolean | undefined }[] = []
  for (const spec of specs) {
    // Gas per iteration from two small calls; then the count that burns about TARGET_GAS.
    const [g1, g2] = [await gasBurnt(gd, spec.code, 10), await gasBurnt(gd, spec.code, 20)]
    const perIteration = (g2 - g1) / 10
    const iterations = Math.max(1, Math.floor((targetGas - (g1 - 10 * perIteration)) / perIteration))
    const gas = await gasBurnt(gd, spec.code, iterations)
    const anvilGas = await gasBurnt(anvil, spec.code, iterations)
    if (anvilGas !== gas) throw new Error(`${spec.id}: gateway-double burnt ${gas} gas, Anvil ${anvilGas}, for ${iterations} iterations`)
    const runs = { gd: [] as { gas: number; ms: number; calls: number }[], anvil: [] as { gas: number; ms: number; calls: number }[] }
    for (let round = 1; round <= rounds; round++) {
      runs.gd.push(await measure(gd, spec.code, iterations, gas, durationMs))
      runs.anvil.push(await measure(anvil, spec.code, iterations, gas, durationMs))
      const [x, y] = [runs.gd.at(-1)!, runs.anvil.at(-1)!]
      log(`  ${spec.id} round ${round}/${rounds}: gateway-double ${(x.gas / x.ms / 1000).toFixed(1)} Mgas/s, anvil ${(y.gas / y.ms / 1000).toFixed(1)} Mgas/s`)
    }
    const pool = (rs: { gas: number; ms: number; calls: number }[]): Measured => ({
      mgasPerSec: rs.reduce((s, r) => s + r.gas, 0) / rs.reduce((s, r) => s + r.ms, 0) / 1000,
      calls: rs.reduce((s, r) => s + r.calls, 0),
      rounds: rs.map((r) => r.gas / r.ms / 1000),
    })
    const g = pool(runs.gd)
    const a = pool(runs.anvil)
    const ratio = g.mgasPerSec / a.mgasPerSec
    const base = BASELINE[spec.id]!
    const target = 3 * base.ratio
    results.push({ id: spec.id, label: spec.label, iterations, gasPerCall: gas, gatewayDouble: g, anvil: a, ratio, target, targetMgas: 3 * base.mgas, met: base.ratio > 0 ? ratio >= target : undefined })
  }
  await stopAll()
  closeControlConnections()

  const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
  const header = ['row', 'gas/call', 'gateway-double Mgas/s', 'Anvil Mgas/s', 'ratio', 'main (f9fd02f)', 'target (3x main)', '']
  const lines = results.map((r) => {
    const base = BASELINE[r.id]!
    return [
      r.label,
      fmt(r.gasPerCall, 0),
      fmt(r.gatewayDouble.mgasPerSec),
      fmt(r.anvil.mgasPerSec),
      `${fmt(r.ratio, 4)}x`,
      base.ratio > 0 ? `${fmt(base.mgas)} Mgas/s, ${fmt(base.ratio, 4)}x` : 'not recorded',
      base.ratio > 0 ? `>= ${fmt(r.target, 4)}x (${fmt(r.targetMgas)} Mgas/s)` : '-',
      r.met === undefined ? '' : r.met ? 'met' : 'missed',
    ]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd()
  const out = [row(header), row(widths.map((w) => '-'.repeat(w))), ...lines.map(row)]
  const judged = results.filter((r) => r.met !== undefined)
  out.push('', `targets: ${judged.filter((r) => r.met).length} met, ${judged.filter((r) => !r.met).length} missed (judged on the ratio to Anvil of this run)`)
  process.stdout.write(`${out.join('\n')}\n`)
  if (values.json !== undefined) {
    const { writeFileSync } = await import('node:fs')
    writeFileSync(values.json, `${JSON.stringify({ anvil: anvilVersion(), durationMs, rounds, targetGas, results }, null, 2)}\n`)
  }
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench:evm: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`)
  await stopAll()
  process.exitCode = 1
})
