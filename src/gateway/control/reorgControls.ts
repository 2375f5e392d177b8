/**
 * The reorg control (`control.reorg`, `POST /_double/networks/:name/reorg`): its input checked
 * with the controls' rigour (400 naming the field), then `Chain.reorg` (src/chain/mining/reorg.ts
 * says what a reorg replaces and with what; a chain without it answers 501), and its outcome in JSON.
 */
import type { BlockRecord } from '../../chain/blocks/types.ts'
import type { ReorgOptions, ReorgResult } from '../../chain/mining/miner.ts'
import { ReorgError } from '../../chain/mining/reorg.ts'
import { ControlInputError } from '../controlError.ts'
import type { Network } from '../request.ts'
import { feature, isRecord, networkNamed, show } from './shared.ts'
import type { ControlDeps, GatewayControl, ReorgedBlock, ReorgInfo } from './types.ts'

const FIELDS = ['depth', 'length', 'transactions', 'drop']
const HEX_RE = /^0x(?:[0-9a-fA-F]{2})*$/
const HASH_RE = /^0x[0-9a-fA-F]{64}$/

function block(r: BlockRecord): ReorgedBlock {
  return { number: Number(r.number), hash: r.hash, timestamp: Number(r.timestamp), transactions: r.transactions.map((t) => t.hash) }
}

function parseTransactions(v: unknown): ReorgOptions['transactions'] {
  if (v === undefined || v === 'same' || v === 'empty') return v
  const shape = 'must be "same", "empty", or a list (one per new block) of lists of raw transactions in hex'
  if (!Array.isArray(v)) throw new ControlInputError('transactions', `${shape}, got ${show(v)}`)
  return v.map((txs: unknown, b) => {
    if (!Array.isArray(txs)) throw new ControlInputError(`transactions[${b}]`, `must be a list of raw transactions in hex, got ${show(txs)}`)
    return txs.map((raw: unknown, i) => {
      if (typeof raw !== 'string' || !HEX_RE.test(raw) || raw.length < 4) {
        throw new ControlInputError(`transactions[${b}][${i}]`, `must be a raw transaction in hex (0x...), got ${show(raw)}`)
      }
      return Buffer.from(raw.slice(2), 'hex')
    })
  })
}

export type ReorgControls = Pick<GatewayControl, 'reorg'>

export function createReorgControls(deps: Pick<ControlDeps, 'networks'>): ReorgControls {
  return {
    reorg: (name, input) => reorgNetwork(networkNamed(deps.networks, name), input),
  }
}

/** Checks `input`, reorgs the network's chain, and says what it did. */
async function reorgNetwork(network: Network, input: unknown): Promise<ReorgInfo> {
  if (!isRecord(input)) throw new ControlInputError('reorg', `must be an object, got ${show(input)}`)
  const o = input
  for (const name of Object.keys(o)) if (!FIELDS.includes(name)) throw new ControlInputError(name, `unknown field (allowed: ${FIELDS.join(', ')})`)
  if (typeof o.depth !== 'number') throw new ControlInputError('depth', `must be a number of blocks, got ${show(o.depth)}`)
  if (o.length !== undefined && typeof o.length !== 'number') throw new ControlInputError('length', `must be a number of blocks, got ${show(o.length)}`)
  if (o.drop !== undefined && !Array.isArray(o.drop)) throw new ControlInputError('drop', `must be a list of transaction hashes, got ${show(o.drop)}`)
  const drop = ((o.drop as unknown[] | undefined) ?? []).map((h, i) => {
    if (typeof h !== 'string' || !HASH_RE.test(h)) throw new ControlInputError(`drop[${i}]`, `must be a transaction hash (0x and 64 hex digits), got ${show(h)}`)
    return h.toLowerCase()
  })
  const options: ReorgOptions = {
    depth: o.depth,
    ...(o.length === undefined ? {} : { length: o.length as number }),
    ...(o.transactions === undefined ? {} : { transactions: parseTransactions(o.transactions) }),
    drop,
  }
  const reorg = feature(network, 'reorg')
  let result: ReorgResult
  try {
    result = await reorg(options)
  } catch (err) {
    if (err instanceof ReorgError) throw new ControlInputError(err.field, err.message)
    throw err
  }
  return {
    network: network.name,
    ancestor: { number: Number(result.ancestor.number), hash: result.ancestor.hash },
    removed: result.removed.map(block),
    added: result.added.map(block),
    pooled: result.pooled.map((p) => p.hash),
    dropped: [...result.dropped],
  }
}
