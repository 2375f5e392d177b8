/**
 * The browser page of test/browser/viem.browser.test.ts, bundled by esbuild: viem as a dApp runs it,
 * from another origin than the double's. It reads over http() (each POST a cross-origin request
 * after a CORS preflight) and watches over http() (the filter path) and webSocket(); what it sees
 * goes into `window.seen`, for the test to read.
 */
import { createPublicClient, erc20Abi, http, webSocket } from 'viem'
import type { Address, PublicClient } from 'viem'
import { mainnet } from 'viem/chains'

interface Seen {
  blockNumbers: string[]
  httpLogs: { blockHash: string | null; transactionHash: string | null; from: string; to: string; value: string; removed: boolean }[]
  wsLogs: Seen['httpLogs']
  errors: string[]
}

const seen: Seen = { blockNumbers: [], httpLogs: [], wsLogs: [], errors: [] }
const stops: (() => void)[] = []
let wsClient: PublicClient | undefined

function logOf(log: { blockHash: string | null; transactionHash: string | null; removed: boolean; args: { from?: string; to?: string; value?: bigint } }): Seen['httpLogs'][number] {
  return { blockHash: log.blockHash, transactionHash: log.transactionHash, from: String(log.args.from), to: String(log.args.to), value: String(log.args.value), removed: log.removed }
}
const onError = (where: string) => (error: Error) => void seen.errors.push(`${where}: ${error.name}: ${error.message.split('\n')[0]}`)

const page = {
  seen,
  /** Reads over http(): the chain id, the head and a token balance. */
  async read(url: string, token: Address, holder: Address) {
    const client = createPublicClient({ chain: mainnet, transport: http(url) })
    const [chainId, blockNumber, balance] = await Promise.all([
      client.getChainId(),
      client.getBlockNumber(),
      client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] }),
    ])
    return { chainId, blockNumber: String(blockNumber), balance: String(balance) }
  },
  /**
   * One read over http() and one WebSocket opened by the browser itself (the page's Origin sent
   * with each): what each got.
   */
  async probe(url: string, wsUrl: string) {
    let http_: string
    try {
      http_ = `block ${await createPublicClient({ chain: mainnet, transport: http(url, { retryCount: 0 }) }).getBlockNumber()}`
    } catch (error) {
      const e = error as { name: string; status?: number; details?: string }
      http_ = `${e.name}${e.status === undefined ? '' : ` ${e.status}`}: ${e.details ?? ''}`
    }
    const ws = await new Promise<string>((resolve) => {
      const socket = new WebSocket(wsUrl)
      socket.onopen = () => {
        socket.close(1000)
        resolve('open')
      }
      socket.onclose = (e) => resolve(`closed ${e.code}`)
    })
    return { http: http_, ws }
  },
  /** Starts the watchers: Transfer events over http() (polling a filter), new blocks and Transfer events over webSocket(). */
  watch(url: string, wsUrl: string, token: Address) {
    const httpClient = createPublicClient({ chain: mainnet, transport: http(url), pollingInterval: 100 })
    stops.push(httpClient.watchContractEvent({ address: token, abi: erc20Abi, eventName: 'Transfer', onLogs: (logs) => void seen.httpLogs.push(...logs.map(logOf)), onError: onError('http') }))
    wsClient = createPublicClient({ chain: mainnet, transport: webSocket(wsUrl, { keepAlive: false, reconnect: false }) })
    stops.push(wsClient.watchBlockNumber({ onBlockNumber: (n) => void seen.blockNumbers.push(String(n)), onError: onError('ws blocks') }))
    stops.push(wsClient.watchContractEvent({ address: token, abi: erc20Abi, eventName: 'Transfer', onLogs: (logs) => void seen.wsLogs.push(...logs.map(logOf)), onError: onError('ws logs') }))
  },
  /** Stops the watchers: viem uninstalls the filter and unsubscribes. */
  unwatch() {
    for (const stop of stops.splice(0)) stop()
  },
  /** Closes viem's socket (once the test has seen the unsubscriptions answered). */
  async close() {
    if (wsClient !== undefined) (await (wsClient.transport as unknown as { getRpcClient(): Promise<{ close(): void }> }).getRpcClient()).close()
  },
}

// No DOM types in this repository's TypeScript lib: the page is reached through globalThis.
;(globalThis as unknown as { gd: typeof page }).gd = page
