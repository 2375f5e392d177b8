// A dApp's CommonJS script (require of the ES module package, Node >= 20.19), run by
// test/e2e/package.test.ts from the installed tarball. Prints what it saw as JSON.
const { startServer } = require('gateway-double')
const { localhostFetch } = require('gateway-double/client')

async function main() {
  const server = await startServer({ port: 0, control: true })
  try {
    const res = await localhostFetch(server.urls.polygon, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    const snapshot = await server.control.snapshot()
    console.log(JSON.stringify({ status: res.status, body: await res.json(), snapshotNetworks: snapshot.networks }))
  } finally {
    await server.close()
  }
}
main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
