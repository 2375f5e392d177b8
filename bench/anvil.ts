/**
 * Anvil from the npm package `@foundry-rs/anvil-linux-amd64`, on 127.0.0.1, and the bench chain
 * replayed onto it: the fixture's genesis through `--init genesis.json`, then for each block of
 * `chain.rlp` its fee recipient (`anvil_setCoinbase`) and timestamp (`evm_setNextBlockTimestamp`),
 * its raw signed transactions (`eth_sendRawTransaction`, in block order, with the pool in FIFO
 * order and mining off), and one `evm_mine`.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FixtureBlock } from './fixture.ts'
import type { Endpoint, TrackedChild } from './processes.ts'
import { LOOPBACK, freePort, spawnTracked } from './processes.ts'
import { RpcClient } from './rpc.ts'

export function anvilBinary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the bench uses @foundry-rs/anvil-linux-amd64, which runs on linux x64 only (this is ${process.platform} ${process.arch})`)
  }
  let pkg: string
  try {
    pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')
  } catch {
    throw new Error('@foundry-rs/anvil-linux-amd64 is not installed: run `npm ci` (it is a devDependency)')
  }
  const bin = join(dirname(pkg), 'bin', 'anvil')
  if (!existsSync(bin)) throw new Error(`${bin} is missing: reinstall @foundry-rs/anvil-linux-amd64`)
  return bin
}

export function anvilVersion(): string {
  // "anvil Version: 1.7.1\nCommit SHA: ..." -> "Anvil 1.7.1"
  const first = execFileSync(anvilBinary(), ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim()
  return first.replace(/^anvil Version:\s*/i, 'Anvil ')
}

export function anvilEndpoint(port: number): Endpoint {
  return { name: 'anvil', port, path: '/', host: `${LOOPBACK}:${port}` }
}

/** Flags of the Anvil that serves the bench chain. */
export function anvilChainArgs(port: number, genesisPath: string, gasLimit: bigint): string[] {
  return [
    '--host', LOOPBACK,
    '--port', String(port),
    '--init', genesisPath,
    '--hardfork', 'osaka',
    // The fixture's block gas limit (Anvil's default is 30M): the base fee follows from it.
    '--gas-limit', gasLimit.toString(),
    // Only the fixture's accounts: no dev accounts, no CREATE2 deployer in genesis.
    '--accounts', '0',
    '--no-create2',
    // Blocks are mined on request, with the transactions in the order they were sent.
    '--no-mining',
    '--order', 'fifo',
    // No log line per request (gateway-double writes none either).
    '--quiet',
  ]
}

export function spawnAnvil(args: readonly string[]): TrackedChild {
  return spawnTracked(anvilBinary(), args)
}

/** Replays the fixture's blocks onto a fresh Anvil started with {@link anvilChainArgs}. */
export async function replayOnAnvil(anvil: RpcClient, blocks: readonly FixtureBlock[]): Promise<{ ms: number }> {
  const started = performance.now()
  for (const block of blocks) {
    await anvil.call('anvil_setCoinbase', [block.coinbase])
    await anvil.call('evm_setNextBlockTimestamp', [Number(block.timestamp)])
    // Anvil's pool checks a fee cap against the head block's base fee, not the next block's: a
    // transaction priced for a lower next base fee (block 3's type-0 ones are) would be refused.
    // The fixture's own base fee for the block (EIP-1559 from its parent, as Anvil computes it
    // too) makes the pool check the right one; the header comparison still checks it.
    await anvil.call('anvil_setNextBlockBaseFeePerGas', [`0x${block.baseFeePerGas.toString(16)}`])
    for (const raw of block.rawTransactions) await anvil.call('eth_sendRawTransaction', [raw])
    await anvil.call('evm_mine', [])
    const mined = await anvil.call<{ number: string; transactions: string[] }>('eth_getBlockByNumber', ['latest', false])
    if (BigInt(mined.number) !== block.number || mined.transactions.length !== block.rawTransactions.length) {
      throw new Error(
        `anvil: block ${block.number} mined as block ${BigInt(mined.number)} with ${mined.transactions.length} of its ${block.rawTransactions.length} transactions`,
      )
    }
  }
  return { ms: performance.now() - started }
}

/** Waits until `rpc`'s server answers `eth_blockNumber` (30 s at most), failing early if `child` exits. */
export async function waitForAnswer(rpc: RpcClient, child: TrackedChild): Promise<void> {
  const deadline = performance.now() + 30_000
  for (;;) {
    try {
      await rpc.call('eth_blockNumber')
      return
    } catch (err) {
      if (!child.alive) throw new Error(`${child.label} exited:\n${child.output().slice(-3000)}`)
      if (performance.now() > deadline) throw err
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

/** A new Anvil serving the bench chain: started with {@link anvilChainArgs}, the fixture's blocks replayed. */
export async function startAnvilOnChain(genesisPath: string, gasLimit: bigint, blocks: readonly FixtureBlock[]): Promise<{ process: TrackedChild; endpoint: Endpoint; replayMs: number }> {
  const port = await freePort()
  const child = spawnAnvil(anvilChainArgs(port, genesisPath, gasLimit))
  const endpoint = anvilEndpoint(port)
  const rpc = new RpcClient(endpoint)
  await waitForAnswer(rpc, child)
  const { ms } = await replayOnAnvil(rpc, blocks)
  return { process: child, endpoint, replayMs: ms }
}
