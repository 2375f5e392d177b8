// A dApp's TypeScript file, type-checked by test/e2e/package.test.ts against the installed
// tarball's declaration files (`tsc --noEmit --strict`, the tsconfig.json `tsc --init` writes).
// It is never run; it only has to type-check, so it uses the public API broadly.
import {
  createApp,
  createGateway,
  GatewayError,
  loadFixture,
  localhostFetch,
  startServer,
  type Chain,
  type FaultInput,
  type GatewayControl,
  type RunningServer,
  type ServedNetwork,
} from 'gateway-double'
import { localhostAgent } from 'gateway-double/client'
import { ethereumAccounts, ethereumContracts, tokenAbi } from 'gateway-double/fixtures'
import { createPublicClient, http } from 'viem'
import { createGlobalSetup, gatewayDouble, useIsolatedNetwork, type GatewayDoubleContext } from 'gateway-double/testing/vitest'

export async function run(): Promise<string> {
  const server: RunningServer = await startServer({ port: 0, control: true })
  const first: ServedNetwork | undefined = server.networks[0]
  const head: bigint | undefined = first?.headNumber
  const control: GatewayControl = server.control
  const fault: FaultInput = { kind: 'rateLimit', times: 1, network: 'ethereum' }
  control.addFault(fault)
  const res: Response = await localhostFetch(server.urlFor('ethereum'), { method: 'POST', body: '{}' })
  const chain: Chain = await loadFixture('node_modules/gateway-double/fixtures/base', { name: 'base' })
  const app = createApp({ networks: { base: chain }, keys: [{ key: 'k1', networks: ['base'] }] })
  const credits: number | undefined = app.gateway.balance('k1')
  const gateway = createGateway({ networks: { base: chain }, keys: [{ key: 'k1', networks: ['base'] }] })
  const answer = await gateway.handle({ method: 'POST', host: 'base-mainnet.localhost', path: '/v3/k1', headers: {}, body: '[]' })
  await server.close()
  return `${head} ${res.status} ${credits} ${answer.status} ${GatewayError.name} ${localhostAgent.maxSockets}`
}

export const setup = createGlobalSetup({ isolate: ['ethereum'] })
export function inATest(): string {
  const context: GatewayDoubleContext = gatewayDouble()
  return `${context.origin} ${useIsolatedNetwork('ethereum', { ifUnavailable: 'share' }).url}`
}

// The ABIs are `as const`: viem infers balanceOf's argument and its bigint result from them.
export async function tokenBalance(url: string): Promise<bigint> {
  const client = createPublicClient({ transport: http(url) })
  return client.readContract({ address: ethereumContracts.token.address, abi: tokenAbi, functionName: 'balanceOf', args: [ethereumAccounts.bob.address] })
}
