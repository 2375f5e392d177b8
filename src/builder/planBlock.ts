/**
 * Turning a block's transaction entries into signed transactions. Each entry is run, in order, on
 * a scratch copy of the parent state, which settles its nonce and gas, catches everything that
 * would keep it out of a block (bad nonce, no funds, no room) and checks that it succeeds, or
 * fails if the source says it must. The block itself is then mined from the signed transactions.
 */
import { Block, createBlockHeader } from '@ethereumjs/block'
import { paramsTx } from '@ethereumjs/tx'
import type { TypedTransaction } from '@ethereumjs/tx'
import { createAddressFromString } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import type { RunBlockResult, RunTxResult } from '@ethereumjs/vm'
import type { AddressBook } from './addressBook.ts'
import { formatWei } from './amounts.ts'
import type { ContractCode } from './contracts.ts'
import { draftTransaction, signDraft } from './draftTransaction.ts'
import type { TxDraft } from './draftTransaction.ts'
import { FixtureSourceError } from './errors.ts'
import type { SourceLocation } from './errors.ts'
import { createAccessList } from './accessList.ts'
import { estimateGas } from './estimateGas.ts'
import { failureReason } from './failureReason.ts'
import { headerShellFields } from './mineBlock.ts'
import type { BlockPlan } from './mineBlock.ts'
import type { OpenChain } from '../chain/loading/genesis.ts'
import { withoutEthereumJsContext } from '../chain/vm/ethereumjsMessage.ts'

/** What the scratch run saw, to be checked against the real block. */
export interface PlannedTx {
  tx: TypedTransaction
  draft: TxDraft
  status: 0 | 1
  gasUsed: bigint
  createdAddress?: string
}

/**
 * EIP-7825's per-transaction gas cap (2^24, Osaka), as the tx library defines it. Read from there
 * because Common only learns tx parameters once a transaction has been created.
 */
const TX_GAS_CAP = BigInt(paramsTx[7825]!.maxTransactionGasLimit!)

export interface PlanContext {
  chain: OpenChain
  book: AddressBook
  contracts: Map<string, ContractCode>
  priorityFee?: bigint
}

export async function planBlock(
  ctx: PlanContext,
  parent: Block,
  plan: BlockPlan,
  entries: unknown[],
  loc: SourceLocation,
): Promise<PlannedTx[]> {
  const { chain, book } = ctx
  const { common } = chain
  const block = new Block(createBlockHeader(headerShellFields(chain, parent, plan), { common }), [], [], [], { common })
  const scratch = await chain.vm.shallowCopy()
  await scratch.stateManager.setStateRoot(parent.header.stateRoot)
  let blockGasUsed = 0n
  const planned: PlannedTx[] = []

  for (const [i, entry] of entries.entries()) {
    const at = loc.at('transactions', i)
    const draft = draftTransaction(entry, { book, contracts: ctx.contracts, baseFee: block.header.baseFeePerGas!, ...(ctx.priorityFee === undefined ? {} : { priorityFee: ctx.priorityFee }) }, at)
    const cannot = (reason: string) => at.error(`cannot be included (${draft.summary}): ${reason}`)
    const unexpectedFailure = (result: RunTxResult) => cannot(`${failureReason(result)} (add "expectRevert": true if it is meant to fail)`)
    // EthereumJS throws plain errors for whatever keeps a transaction out of a block; give them the entry's location.
    const located = (e: unknown) => (e instanceof FixtureSourceError ? e : cannot(withoutEthereumJsContext(e)))
    const included = async <T>(step: () => Promise<T>): Promise<T> => {
      try {
        return await step()
      } catch (e) {
        throw located(e)
      }
    }
    const sender = createAddressFromString(draft.sender.address)
    const account = await scratch.stateManager.getAccount(sender)
    const nonce = draft.nonce ?? account?.nonce ?? 0n
    const room = block.header.gasLimit - blockGasUsed
    const sign = (gas: bigint) => {
      try {
        return signDraft(draft, gas, nonce, common)
      } catch (e) {
        throw located(e)
      }
    }

    // The most gas a trial may use, as geth caps it: the block's room, the per-transaction cap,
    // and what the balance can pay for at the transaction's fee cap.
    let hi = room < TX_GAS_CAP ? room : TX_GAS_CAP
    const balance = account?.balance ?? 0n
    // Said plainly here, because EthereumJS would report the upfront cost of a trial's gas limit.
    if (balance < draft.value) throw cannot(`${draft.sender.name} has ${formatWei(balance)}, less than the ${formatWei(draft.value)} it sends`)
    if (draft.feeCap > 0n && balance > draft.value && (balance - draft.value) / draft.feeCap < hi) {
      hi = (balance - draft.value) / draft.feeCap
    }
    if (draft.autoAccessList) draft.accessList = await included(() => createAccessList(scratch, block, sign(hi)))

    let gas = draft.gas
    if (gas === undefined) {
      const noExecution = draft.to !== undefined && (await scratch.stateManager.getCode(createAddressFromString(draft.to))).length === 0
      const estimate = await included(() => estimateGas(scratch, block, sign, hi, noExecution))
      if (estimate.first.execResult.exceptionError !== undefined && !draft.expectRevert) throw unexpectedFailure(estimate.first)
      gas = estimate.gas
    }
    if (gas > room) throw cannot(`gas limit ${gas} does not fit in the block (${room} of ${block.header.gasLimit} left)`)

    const tx = sign(gas)
    const result = await included(() => runTx(scratch, { tx, block, blockGasUsed }))
    const ok = result.execResult.exceptionError === undefined
    if (!ok && !draft.expectRevert) throw unexpectedFailure(result)
    if (ok && draft.expectRevert) throw at.error(`${draft.summary} was expected to fail ("expectRevert": true) but succeeded`)
    blockGasUsed += result.blockGasSpent

    const createdAddress = ok ? result.createdAddress?.toString() : undefined
    if (draft.deploys?.as !== undefined) {
      if (createdAddress === undefined) throw at.at('as').error('the creation failed, so there is no contract to name')
      book.add({ name: draft.deploys.as, address: createdAddress, contract: draft.deploys.contract }, at.at('as'))
    }
    planned.push({ tx, draft, status: ok ? 1 : 0, gasUsed: result.totalGasSpent, ...(createdAddress === undefined ? {} : { createdAddress }) })
  }
  return planned
}

/**
 * The trial runs and the mined block must agree on every transaction's outcome; if not, a
 * transaction depends on something the trial could not see (the block's system calls), and the
 * fixture would not be what its source says.
 */
export function checkAgainstPlan(planned: PlannedTx[], run: RunBlockResult, loc: SourceLocation): void {
  run.results.forEach((result, j) => {
    const expected = planned[j]!
    const status = result.execResult.exceptionError === undefined ? 1 : 0
    if (status !== expected.status || result.totalGasSpent !== expected.gasUsed) {
      throw loc.at('transactions', j).error(
        `behaves differently in the mined block (status ${status}, gas ${result.totalGasSpent}) than in its trial run (status ${expected.status}, gas ${expected.gasUsed})`,
      )
    }
  })
}
