/**
 * The control clock on a real chain: blocks mined after `setClock` take their timestamps from the
 * gateway's clock (a chain loaded without its own clock follows it); a chain given its own keeps it.
 */
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { loadFixture } from '../../src/chain/loading/loadFixture.ts'
import { createApp } from '../../src/http/app.ts'
import { account, signed1559 } from '../chain/txSigning.ts'

const FIXTURE = new URL('../../fixtures/ethereum', import.meta.url).pathname
const KEY = '0123456789abcdef0123456789abcdef'

async function appOn(chainClock?: { now(): number }) {
  const chain = await loadFixture(FIXTURE, { name: 'ethereum', ...(chainClock ? { clock: chainClock } : {}) })
  // A frozen base clock: the gateway's time is exactly what the control sets.
  const frozen = { now: () => Date.parse('2030-01-01T00:00:00Z') }
  const app = createApp({ networks: { ethereum: chain }, keys: [{ key: KEY, networks: ['ethereum'] }], clock: frozen, control: true })
  const rpc = async (method: string, params: unknown[]) => {
    const res = await request(app).post(`/v3/${KEY}`).set('Host', 'ethereum-mainnet.localhost').send({ jsonrpc: '2.0', id: 1, method, params })
    expect(res.status).toBe(200)
    return res.body as { result?: any; error?: { code: number; message: string } }
  }
  const sendTransfer = async () => {
    const nonce = BigInt((await rpc('eth_getTransactionCount', [account('alice').address, 'latest'])).result)
    const raw = signed1559(chain, 'alice', { nonce, to: account('bob').address, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n })
    const sent = await rpc('eth_sendRawTransaction', [raw])
    expect(sent.error).toBeUndefined()
    return (await rpc('eth_getBlockByNumber', ['latest', false])).result as { timestamp: string }
  }
  return { app, chain, sendTransfer }
}

describe('the control clock times mined blocks', () => {
  it('a send after POST /_double/clock is mined at the clock’s second', async () => {
    const { app, sendTransfer } = await appOn()
    const set = await request(app).post('/_double/clock').send({ time: '2031-05-06T07:08:09Z' })
    expect(set.status).toBe(200)
    const block = await sendTransfer()
    expect(BigInt(block.timestamp)).toBe(BigInt(Date.parse('2031-05-06T07:08:09Z') / 1000))
  })

  it('a chain loaded with its own clock keeps it', async () => {
    const own = Date.parse('2040-01-01T00:00:00Z')
    const { app, sendTransfer } = await appOn({ now: () => own })
    await request(app).post('/_double/clock').send({ time: '2031-05-06T07:08:09Z' })
    const block = await sendTransfer()
    expect(BigInt(block.timestamp)).toBe(BigInt(own / 1000))
  })
})
