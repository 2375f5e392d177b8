/**
 * Per-network ports. On the shared port the Host picks the network (`<network>-mainnet.<host>`),
 * which clients that resolve names through the system (cast and forge, web3.py, Go, Rust) cannot
 * reach where the resolver does not map `*.localhost`. So each network can also be served on a
 * port of its own, where `POST /v3/<key>` is that network whatever the Host (the listener tells
 * the core which network its port serves; the core's host rule decides), every other rule
 * unchanged. The host-routed URLs stay the default.
 */

/**
 * `networkPorts` of `startServer`: a number gives the networks consecutive ports from it, in the
 * order they are served (0: each a free port); an object gives ports by network name.
 */
export type NetworkPortsOption = number | Readonly<Record<string, number>>

function checkPort(port: unknown, where: string): number {
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`${where}: expected a port number 0-65535, got ${JSON.stringify(port)}`)
  }
  return port
}

/**
 * Which network listens on which port of its own (0: a free one): `option` when given, else the
 * config's `port`s (`configured`). Throws a TypeError for a network not served, a port out of
 * range, or two networks on one port.
 */
export function assignNetworkPorts(
  names: readonly string[],
  option: NetworkPortsOption | undefined,
  configured: Readonly<Record<string, number | undefined>> = {},
): Map<string, number> {
  const ports = new Map<string, number>()
  if (typeof option === 'number') {
    const first = checkPort(option, 'networkPorts')
    if (first !== 0 && first + names.length - 1 > 65535) {
      throw new TypeError(`networkPorts: ${names.length} networks from port ${first} go past 65535`)
    }
    names.forEach((name, i) => ports.set(name, first === 0 ? 0 : first + i))
    return ports
  }
  const given = option ?? configured
  for (const [name, port] of Object.entries(given)) {
    if (port === undefined) continue
    if (!names.includes(name)) throw new TypeError(`networkPorts: no network ${JSON.stringify(name)} is served (served: ${names.join(', ')})`)
    ports.set(name, checkPort(port, `networkPorts.${name}`))
  }
  const taken = new Map<number, string>()
  for (const [name, port] of ports) {
    const other = taken.get(port)
    if (port !== 0 && other !== undefined) throw new TypeError(`networkPorts: ${other} and ${name} both on port ${port}`)
    taken.set(port, name)
  }
  return ports
}
