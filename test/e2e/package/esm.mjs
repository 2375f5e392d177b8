// A dApp's ES module script, run by test/e2e/package.test.ts in a fresh project where the packed
// tarball is installed: the library in-process, viem through localhostFetch, a revert as viem
// decodes it; and the project's own EthereumJS, which the package's run-time changes to its bundled
// copy must not reach. Prints what it saw as JSON.
import { readFileSync } from 'node:fs'
import { Common } from '@ethereumjs/common'
import { localhostFetch, startServer } from 'gateway-double'
import { ContractFunctionRevertedError, createPublicClient, http, parseAbi } from 'viem'

const projectIsActivatedEIP = Common.prototype.isActivatedEIP
const server = await startServer({ port: 0 })
try {
  const client = createPublicClient({ transport: http(server.urls.ethereum, { fetchFn: localhostFetch }) })
  const accounts = JSON.parse(readFileSync(new URL('./node_modules/gateway-double/fixtures/ethereum/accounts.json', import.meta.url), 'utf8'))
  const reverter = accounts.contracts.find((c) => c.name === 'reverter').address
  let revert
  try {
    await client.readContract({ address: reverter, abi: parseAbi(['function revertWithReason() pure']), functionName: 'revertWithReason' })
  } catch (err) {
    const cause = err.walk((e) => e instanceof ContractFunctionRevertedError)
    revert = { name: cause?.name, reason: cause?.reason }
  }
  console.log(JSON.stringify({ blockNumber: String(await client.getBlockNumber()), chainId: await client.getChainId(), revert, networks: Object.keys(server.urls), projectEthereumjsUnchanged: Common.prototype.isActivatedEIP === projectIsActivatedEIP }))
} finally {
  await server.close()
}
