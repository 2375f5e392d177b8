/**
 * What admission (./pool/admission.ts) reads of a chain, at the moment each check comes: the
 * head's rules and the next block's as the miner will make it (fork, gas limit, base fees), and
 * accounts at the head (its state edits included: ./store/headAccount.ts).
 */
import type { Miner } from './mining/miner.ts'
import type { AdmissionContext } from './pool/admission.ts'
import type { ChainStore } from './store/chainStore.ts'

export function admissionContext(store: ChainStore, miner: Miner): AdmissionContext {
  return {
    headRules: () => {
      const head = store.head
      return {
        common: store.commonAt(head.number, head.timestamp),
        nextCommon: store.commonAt(head.number + 1n, miner.nextTimestamp()),
        gasLimit: miner.nextGasLimit(),
        chainId: store.chainId,
      }
    },
    account: async (from) => {
      const account = await store.accountAt(store.head, from)
      return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n }
    },
    nextBaseFee: () => miner.nextBaseFee(),
    nextBlobBaseFee: () => miner.nextBlobBaseFee(),
  }
}
