import { readFileSync } from 'node:fs'
import { defineMethod } from '../method.ts'

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }

/**
 * The client's name in geth's four-part form (`Geth/v1.16.7-stable-…/linux-amd64/go1.25`), naming
 * this double rather than pretending to be geth: `GatewayDouble/v<version>/<os>-<arch>/node<version>`.
 */
export const CLIENT_VERSION = `GatewayDouble/v${pkg.version}/${process.platform}-${process.arch}/node${process.versions.node}`

export const web3_clientVersion = defineMethod({
  name: 'web3_clientVersion',
  params: [],
  run: () => CLIENT_VERSION,
})
