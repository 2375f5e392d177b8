/**
 * A capture as a fixture source: the fork of the captured height, the block as the genesis, the
 * touched accounts (empty ones left out, slots as words) as its alloc.
 */
import { HARDFORKS } from '../builder/genesisFile.ts'
import type { Hardfork } from '../builder/genesisFile.ts'
import type { ScenarioSource } from '../builder/scenario.ts'
import { CaptureError } from './endpoint.ts'
import type { Endpoint } from './endpoint.ts'
import { hex, word } from './nodeShapes.ts'
import type { CallJson, PrestateAccount, RpcBlock } from './nodeShapes.ts'

/** mainnet's forks from the Merge on: block for Paris, times after it. */
const MAINNET_FORKS: { fork: Hardfork; block?: bigint; time?: bigint }[] = [
  { fork: 'paris', block: 15_537_394n },
  { fork: 'shanghai', time: 1_681_338_455n },
  { fork: 'cancun', time: 1_710_338_135n },
  { fork: 'prague', time: 1_746_612_311n },
  { fork: 'osaka', time: 1_764_798_551n },
]

/**
 * The fork of the captured height: mainnet's schedule for chain id 1; Anvil's own word
 * (`anvil_nodeInfo`, where its BPO forks run Osaka's rules); else the newest fork the header's
 * fields show (requestsHash: Prague, blob fields: Cancun, withdrawals: Shanghai). `--hardfork` overrides.
 */
export async function detectHardfork(endpoint: Endpoint, chainId: number, block: RpcBlock): Promise<Hardfork> {
  const number = BigInt(block.number)
  const time = BigInt(block.timestamp)
  if (chainId === 1) {
    let found: Hardfork | undefined
    for (const f of MAINNET_FORKS) if ((f.block !== undefined && number >= f.block) || (f.time !== undefined && time >= f.time)) found = f.fork
    if (found === undefined) throw new CaptureError(`block ${number} is before the Merge: fixtures run Paris or later forks`)
    return found
  }
  const info = await endpoint.send('the node info', 'anvil_nodeInfo', [])
  const named = (info.result as { hardFork?: string } | undefined)?.hardFork?.toLowerCase()
  if (named !== undefined) {
    if (/^bpo\d+$/.test(named)) return 'osaka'
    if ((HARDFORKS as readonly string[]).includes(named)) return named as Hardfork
    if (named === 'merge') return 'paris'
    throw new CaptureError(`the node runs ${info.result && (info.result as { hardFork: string }).hardFork}: fixtures run ${HARDFORKS.join(', ')} (choose one with --hardfork)`)
  }
  if (block.requestsHash !== undefined) return 'prague'
  if (block.excessBlobGas !== undefined) return 'cancun'
  if (block.withdrawalsRoot !== undefined) return 'shanghai'
  if (BigInt(block.difficulty) === 0n && block.baseFeePerGas !== undefined) return 'paris'
  throw new CaptureError(`block ${number} looks older than the Merge: fixtures run Paris or later forks (choose one with --hardfork)`)
}

function isEmpty(a: PrestateAccount): boolean {
  return (
    BigInt(a.balance ?? 0) === 0n &&
    BigInt(a.nonce ?? 0) === 0n &&
    (a.code === undefined || a.code === '0x') &&
    Object.values(a.storage ?? {}).every((v) => BigInt(v) === 0n)
  )
}

/** The fixture source of a capture: the block as genesis, the touched accounts as its alloc, no blocks after it. */
export function sourceOf(network: string, chainId: number, hardfork: Hardfork, block: RpcBlock, accounts: Map<string, PrestateAccount>, call: CallJson): ScenarioSource {
  const named = new Map<string, string>([[(call.from as string).toLowerCase(), 'sender']])
  if (typeof call.to === 'string' && call.to.toLowerCase() !== (call.from as string).toLowerCase()) named.set(call.to.toLowerCase(), 'target')
  const entries = [...accounts].filter(([, a]) => !isEmpty(a)).sort(([a], [b]) => (a < b ? -1 : 1))
  const out: ScenarioSource['accounts'] = {}
  for (const [address, a] of entries) {
    const storage = Object.fromEntries(
      Object.entries(a.storage ?? {})
        .filter(([, v]) => BigInt(v) !== 0n)
        .map(([k, v]) => [word(k), word(v)])
        .sort(([x], [y]) => (x! < y! ? -1 : 1)),
    )
    const hasCode = a.code !== undefined && a.code !== '0x'
    out[named.get(address) ?? `acct-${address.slice(2)}`] = {
      address,
      balance: hex(BigInt(a.balance ?? 0)),
      nonce: hex(BigInt(a.nonce ?? 0)),
      ...(hasCode ? { code: a.code!.toLowerCase() } : {}),
      ...(hasCode && Object.keys(storage).length > 0 ? { storage } : {}),
    }
  }
  const number = Number(BigInt(block.number))
  const cancun = HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf('cancun')
  return {
    comment: `Captured block ${number} (${block.hash}) of chain ${chainId}: the accounts one call touches. See capture.json.`,
    network,
    chainId,
    hardfork,
    genesis: {
      number,
      timestamp: Number(BigInt(block.timestamp)),
      gasLimit: block.gasLimit,
      baseFeePerGas: block.baseFeePerGas ?? '0x0',
      extraData: block.extraData,
      coinbase: block.miner.toLowerCase(),
      mixHash: block.mixHash,
      parentHash: block.parentHash,
      gasUsed: block.gasUsed,
      ...(cancun ? { excessBlobGas: block.excessBlobGas ?? '0x0', blobGasUsed: block.blobGasUsed ?? '0x0' } : {}),
    },
    accounts: out,
    blocks: [],
    safe: number,
    finalized: number,
  }
}
