// A newcomer's first script, run by test/e2e/package.test.ts in the fresh project against the
// installed command's plain URL (the first URL its banner prints, given as argv[2]): viem's
// http(url) and ethers' JsonRpcProvider(url) with no helper, the accounts and ABIs from
// gateway-double/fixtures, a transfer signed with a fixture key. Prints what it saw as JSON.
import { JsonRpcProvider } from 'ethers'
import { counterAbi, ethereumAccounts, ethereumContracts, tokenAbi } from 'gateway-double/fixtures'
import { createPublicClient, createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mainnet } from 'viem/chains'

const url = process.argv[2]
const client = createPublicClient({ chain: mainnet, transport: http(url) })
const wallet = createWalletClient({ account: privateKeyToAccount(ethereumAccounts.alice.privateKey), chain: mainnet, transport: http(url) })
const balance = () => client.readContract({ address: ethereumContracts.token.address, abi: tokenAbi, functionName: 'balanceOf', args: [ethereumAccounts.carol.address] })
const before = await balance()
const hash = await wallet.writeContract({ address: ethereumContracts.token.address, abi: tokenAbi, functionName: 'transfer', args: [ethereumAccounts.carol.address, 5n] })
const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
const provider = new JsonRpcProvider(url)
const ethersHead = await provider.getBlockNumber()
const ethersChainId = (await provider.getNetwork()).chainId
provider.destroy()
console.log(
  JSON.stringify({
    status: receipt.status,
    received: String((await balance()) - before),
    count: String(await client.readContract({ address: ethereumContracts.counter.address, abi: counterAbi, functionName: 'count' })),
    viemHead: String(await client.getBlockNumber()),
    ethersHead,
    ethersChainId: String(ethersChainId),
  }),
)
