/**
 * A transfer in alchemy_getAssetTransfers' shape: `value` in the asset's units as a number (wei
 * / 10^18 for ether, token units / 10^decimals; null for NFTs and tokens without `decimals()`),
 * `asset` (`ETH`, the token's `symbol()`, or null), `rawContract` (the raw value: ether's a
 * quantity, a token's the 32-byte word of its log; the contract; its decimals as hex), `erc721TokenId`/`tokenId` and `erc1155Metadata` for NFTs,
 * and `metadata.blockTimestamp` when asked.
 */
import { toQuantity } from '../../encoding/hex.ts'
import type { RawTransfer } from './transfers.ts'
import type { TokenFacts } from './tokenReads.ts'

const word = (n: bigint): string => `0x${n.toString(16).padStart(64, '0')}`

/** `amount / 10^decimals` as the nearest double (exact for whole amounts up to 2^53). */
function units(amount: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals)
  const whole = amount / scale
  const frac = amount % scale
  return Number(whole) + (decimals === 0 ? 0 : Number(`0.${frac.toString().padStart(decimals, '0')}`))
}

export function transferJson(t: RawTransfer, facts: TokenFacts | undefined, withMetadata: boolean): Record<string, unknown> {
  const ether = t.contract === null
  const decimals = ether ? 18 : (facts?.decimals ?? null)
  const json: Record<string, unknown> = {
    blockNum: toQuantity(t.record.number),
    uniqueId: t.uniqueId,
    hash: t.hash,
    from: t.from,
    to: t.to,
    value: t.amount === null || decimals === null ? null : units(t.amount, decimals),
    erc721TokenId: t.tokenId === null ? null : word(t.tokenId),
    erc1155Metadata: t.erc1155 === null ? null : t.erc1155.map((m) => ({ tokenId: word(m.tokenId), value: toQuantity(m.value) })),
    tokenId: t.tokenId === null ? null : word(t.tokenId),
    asset: ether ? 'ETH' : (facts?.symbol ?? null),
    category: t.category,
    rawContract: {
      // Ether's as a quantity; a token's as its log wrote it (a 32-byte word).
      value: t.amount === null ? null : ether ? toQuantity(t.amount) : word(t.amount),
      address: t.contract,
      decimal: decimals === null || t.category === 'erc721' || t.category === 'erc1155' ? null : toQuantity(decimals),
    },
  }
  if (withMetadata) json.metadata = { blockTimestamp: new Date(Number(t.record.timestamp) * 1000).toISOString() }
  return json
}
