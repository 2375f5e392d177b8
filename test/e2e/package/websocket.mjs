// A dApp's ES module script, run by test/e2e/package.test.ts in a fresh project where the packed
// tarball is installed: viem's webSocket() transport on the host-routed URL, through the package's
// LocalhostWebSocket (as docs/websocket.md sets it up), watchBlockNumber, a block mined through the
// control API over HTTP, and the socket's calls read back from the request log. Prints JSON.
import { LocalhostWebSocket, startServer } from 'gateway-double'
import { createPublicClient, webSocket } from 'viem'
import { mainnet } from 'viem/chains'

globalThis.WebSocket = LocalhostWebSocket

const server = await startServer({ port: 0, control: true })
// Never hang: a script that waits for a notification that does not come fails.
const deadline = setTimeout(() => {
  console.error('no notification within 30 s')
  process.exit(2)
}, 30_000)
const control = async (path, init) => {
  const res = await fetch(`${server.controlUrl}${path}`, init)
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return res.json()
}
const socketCalls = async () =>
  (await control('/log')).entries.filter((e) => e.transport === 'ws').flatMap((e) => (e.socket.stage === 'upgrade' ? [`upgrade ${e.status}`] : e.calls.map((c) => c.method)))
const until = async (check) => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20))
}
try {
  const client = createPublicClient({ chain: mainnet, transport: webSocket(server.wsUrls.ethereum, { keepAlive: false, reconnect: false }) })
  const numbers = []
  const errors = []
  const unwatch = client.watchBlockNumber({ onBlockNumber: (n) => numbers.push(String(n)), onError: (e) => errors.push(e.message) })
  await until(async () => (await socketCalls()).includes('eth_subscribe'))
  const mined = await control('/networks/ethereum/mine', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  await until(() => numbers.length > 0 || errors.length > 0)
  unwatch()
  await until(async () => (await socketCalls()).includes('eth_unsubscribe'))
  ;(await client.transport.getRpcClient()).close()
  console.log(JSON.stringify({ mined: mined.number, numbers, errors, calls: await socketCalls() }))
} finally {
  clearTimeout(deadline)
  await server.close()
}
