/**
 * The upstream of the fork tests (and of `npm run bench:fork`): an Anvil holding two tokens
 * (fixtures/sources/contracts/Token.sol) and a constant-product pool over them (./Pool.sol), with
 * a history of a few hundred blocks (liquidity, swaps, approvals, transfers between empty blocks)
 * on both sides of the fork block, so that the fork must read the state at its block, not the
 * upstream's latest.
 */
import { fileURLToPath } from 'node:url'
import { createPublicClient, createWalletClient, http, maxUint256, parseEther } from 'viem'
import type { Abi, Address, Hash, PublicClient, TransactionReceipt } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { compileContracts } from '../../../../src/builder/compile.ts'
import { anvilChain, startAnvil } from '../../../capture/anvil.ts'
import type { RunningAnvil } from '../../../capture/anvil.ts'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

/** Anvil's first four test accounts (its public test mnemonic: never use them on a real network). */
export const ACCOUNTS = [0, 1, 2, 3].map((addressIndex) => mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex }))

export interface ForkWorld {
  readonly anvil: RunningAnvil
  readonly token0: Address
  readonly token1: Address
  readonly pool: Address
  readonly tokenAbi: Abi
  readonly tokenBytecode: `0x${string}`
  readonly poolAbi: Abi
  /** The block to fork at: history on both sides of it. */
  readonly forkBlock: bigint
  /** A transaction mined before the fork block, and one after it. */
  readonly before: Hash
  readonly after: Hash
}

const loc = { file: 'test/e2e/support/fork/world.ts' } as never

export async function compileWorld(): Promise<{ token: { abi: Abi; bytecode: `0x${string}` }; pool: { abi: Abi; bytecode: `0x${string}` } }> {
  const [token, pool] = await compileContracts(
    [
      { source: 'fixtures/sources/contracts/Token.sol', contractName: 'Token', loc },
      { source: 'test/e2e/support/fork/Pool.sol', contractName: 'Pool', loc },
    ],
    ROOT,
  )
  return { token: { abi: token!.abi as Abi, bytecode: token!.bytecode as `0x${string}` }, pool: { abi: pool!.abi as Abi, bytecode: pool!.bytecode as `0x${string}` } }
}

/** Starts the upstream and writes its history: about `blocks` blocks, the fork block in the middle. */
export async function buildWorld(blocks = 300): Promise<ForkWorld> {
  const compiled = await compileWorld()
  const anvil = await startAnvil([])
  try {
    const chain = anvilChain(31337, anvil.url)
    const client = createPublicClient({ chain, transport: http(anvil.url), cacheTime: 0 }) as PublicClient
    const wallets = ACCOUNTS.map((account) => createWalletClient({ account, chain, transport: http(anvil.url) }))
    const [w0, w1, w2] = wallets as [(typeof wallets)[0], (typeof wallets)[0], (typeof wallets)[0]]
    const mined = async (hash: Hash) => {
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
      if (receipt.status !== 'success') throw new Error(`upstream history: ${hash} reverted`)
      return receipt
    }
    const deploy = async (abi: Abi, bytecode: `0x${string}`, args: unknown[]) =>
      (await mined(await w0.deployContract({ abi, bytecode, args }))).contractAddress!
    const token0 = await deploy(compiled.token.abi, compiled.token.bytecode, [parseEther('1000000')])
    const token1 = await deploy(compiled.token.abi, compiled.token.bytecode, [parseEther('1000000')])
    const pool = await deploy(compiled.pool.abi, compiled.pool.bytecode, [token0, token1])
    const call = async (wallet: typeof w0, address: Address, abi: Abi, functionName: string, args: unknown[]) =>
      mined(await wallet.writeContract({ address, abi, functionName, args, chain, account: wallet.account }))
    const tok = compiled.token.abi
    for (const w of [w0, w1, w2]) {
      for (const t of [token0, token1]) {
        if (w !== w0) await call(w0, t, tok, 'transfer', [w.account.address, parseEther('5000')])
        await call(w, t, tok, 'approve', [pool, maxUint256])
      }
    }
    await call(w0, pool, compiled.pool.abi, 'addLiquidity', [parseEther('10000'), parseEther('20000')])
    const mine = (n: number) => client.request({ method: 'anvil_mine' as never, params: [`0x${n.toString(16)}`] as never })
    const swaps = async (rounds: number) => {
      let last: Hash | undefined
      for (let i = 0; i < rounds; i++) {
        const w = i % 2 === 0 ? w1 : w2
        last = (await call(w, pool, compiled.pool.abi, 'swap', [parseEther(String(10 + i)), i % 3 !== 0, w.account.address])).transactionHash
        await mine(Math.floor(blocks / (2 * rounds)))
      }
      return last!
    }
    const before = await swaps(10)
    const forkBlock = await client.getBlockNumber()
    const after = await swaps(10)
    return { anvil, token0, token1, pool, tokenAbi: tok, tokenBytecode: compiled.token.bytecode, poolAbi: compiled.pool.abi, forkBlock, before, after }
  } catch (err) {
    await anvil.stop()
    throw err
  }
}

/** A receipt without what differs between two chains by construction (block hashes: timestamps differ). */
export function comparable(r: TransactionReceipt) {
  return {
    status: r.status,
    type: r.type,
    from: r.from,
    to: r.to,
    blockNumber: r.blockNumber,
    transactionIndex: r.transactionIndex,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    contractAddress: r.contractAddress,
    logsBloom: r.logsBloom,
    logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex, transactionIndex: l.transactionIndex })),
  }
}
