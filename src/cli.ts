/**
 * The command line: `gateway-double [--port N] [--network-ports FIRST] [--host ADDR] [--config FILE] [--fixture NAME=DIR]...`.
 * Starts the gateway on the default networks (config/default.json) or a config file's, plus any
 * `--fixture` networks, and prints for each network its URL, chain id and head block, the dev key
 * and a curl command. Usage errors exit 2 with a one-line message (no stack).
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { ConfigError, DEFAULT_CONFIG_PATH, loadConfigFile, parseDuration, withFixtures, withForks } from './gateway/config.ts'
import { CONTROL_TOKEN_ENV } from './gateway/controlAccess.ts'
import type { Logger } from './gateway/gateway.ts'
import { DEFAULT_BIND_HOST, DEFAULT_PORT, startServer } from './http/server.ts'
import type { RunningServer } from './http/server.ts'

export const EXIT_USAGE = 2
export const EXIT_FAILURE = 1

export const USAGE = `Usage: gateway-double [options]
       gateway-double build <source.json> <outDir>
       gateway-double capture --rpc <url> (--tx <hash> | --call <json> [--block <n|tag>]) --out <dir|file.json>
       gateway-double export --url <server> --network <name> --out <dir>
       gateway-double fork freeze (--from <folder> | --url <url> [--block <n>]) --out <dir>

An offline test double of a hosted Ethereum JSON-RPC gateway (Infura-style):
POST http://<network>-mainnet.localhost:<port>/v3/<API_KEY>

Options:
  --port <n>               port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host <address>         address to bind (default ${DEFAULT_BIND_HOST})
  --network-ports <first>  also serve each network on a port of its own, consecutive from
                           <first> (0: free ones), where any Host reaches it: for clients that
                           cannot resolve *.localhost (cast, forge...)
  --config <file>          JSON config: serviceHost, networks, keys (default: config/default.json)
  --fixture <name>=<dir>   also serve a fixture folder (genesis.json + chain.rlp), or a source
                           file (.json, built at start), as network <name>, enabled for the
                           first key of the config; repeatable
  --fork <name>=<url>[@<block>]
                           also serve a fork of a JSON-RPC node as network <name>: its state
                           at <block> (default: its head, pinned) read as needed and kept in
                           the cache, its history read there; repeatable (docs/forking.md)
  --offline                serve every fork from its cache alone (no upstream)
  --control                serve the control endpoint for tests under /_double/
                           (snapshots, clock, keys, mining, request log, faults, export,
                           and the test JSON-RPC endpoint /_double/rpc/<network>); on an
                           address that is not loopback it needs a token:
                           GATEWAY_DOUBLE_CONTROL_TOKEN or the config's controlAccess.token
  --evm-timeout <duration> time limit of an eth_call's or eth_estimateGas's executions, as
                           geth's --rpc.evmtimeout (default 5s; 0: none), e.g. 500ms, 30s
  -h, --help               print this help and exit
  -v, --version            print the version and exit
`

export class UsageError extends Error {
  override readonly name = 'UsageError'
}

export interface CliOptions {
  port: number
  host: string
  config: string | undefined
  fixtures: Record<string, string>
  /** `--fork` specs, as given (`<network>=<url>[@<block>]`). */
  forks: string[]
  /** `--offline`: every fork from its cache alone. */
  offline: boolean
  /** `--control`: serve the control endpoint (absent when not given). */
  control?: true
  /** `--evm-timeout`, in ms (absent when not given). */
  evmTimeoutMs?: number
  /** `--network-ports <first>`: each network also on its own port, consecutive from it (absent when not given). */
  networkPorts?: number
  help: boolean
  version: boolean
}

/** Parses argv (without node and script), or throws a `UsageError`. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  let values
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        'network-ports': { type: 'string' },
        host: { type: 'string' },
        config: { type: 'string' },
        fixture: { type: 'string', multiple: true },
        fork: { type: 'string', multiple: true },
        offline: { type: 'boolean' },
        control: { type: 'boolean' },
        'evm-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }))
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const portFlag = (flag: string, value: string) => {
    if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`${flag}: expected a port number 0-65535, got ${JSON.stringify(value)}`)
    return Number(value)
  }
  const port = values.port === undefined ? DEFAULT_PORT : portFlag('--port', values.port)
  const networkPorts = values['network-ports'] === undefined ? undefined : portFlag('--network-ports', values['network-ports'])
  if (values.host !== undefined && values.host.trim() === '') throw new UsageError('--host: expected an address')
  const fixtures: Record<string, string> = {}
  for (const spec of values.fixture ?? []) {
    const eq = spec.indexOf('=')
    if (eq <= 0 || eq === spec.length - 1) {
      throw new UsageError(`--fixture: expected <network>=<folder>, got ${JSON.stringify(spec)}`)
    }
    const name = spec.slice(0, eq)
    if (name in fixtures) throw new UsageError(`--fixture: network ${JSON.stringify(name)} given twice`)
    fixtures[name] = spec.slice(eq + 1)
  }
  let evmTimeoutMs: number | undefined
  if (values['evm-timeout'] !== undefined) {
    try {
      evmTimeoutMs = parseDuration(values['evm-timeout'], '--evm-timeout')
    } catch (err) {
      throw new UsageError((err as Error).message)
    }
  }
  return {
    port,
    host: values.host ?? DEFAULT_BIND_HOST,
    config: values.config,
    fixtures,
    forks: values.fork ?? [],
    offline: values.offline ?? false,
    ...(values.control === true ? { control: true as const } : {}),
    ...(evmTimeoutMs !== undefined ? { evmTimeoutMs } : {}),
    ...(networkPorts === undefined ? {} : { networkPorts }),
    help: values.help ?? false,
    version: values.version ?? false,
  }
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

const RPC_EXAMPLE = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'

/**
 * What the CLI prints once the server listens: first the plain URL (any client, as is), then each
 * network by its host, its own ports, its contracts, its accounts with their public test keys (as
 * Anvil prints its own), and commands to try.
 */
export function startBanner(server: RunningServer): string {
  const rows = server.networks.map((n) => [n.name, n.chainId.toString(), `${n.headNumber} (0x${n.headNumber.toString(16)})`, n.url ?? `${n.baseUrl}/v3/<key>  (no key has this network)`])
  const header = ['network', 'chain id', 'head block', 'URL by host (as the hosted service routes)']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!) : c)).join('   ')}`
  const out = [`gateway-double ${packageVersion()} listening on ${server.origin}`, '']
  const main = server.networks.find((n) => n.name === server.defaultNetwork)
  if (server.url !== undefined && main !== undefined) {
    out.push(`RPC URL (${main.name}, chain id ${main.chainId}; any client, no Host needed):`, `  ${server.url}`, '')
  }
  out.push(line(header), ...rows.map(line), '')
  const own = server.networks.filter((n) => n.port !== undefined)
  if (own.length > 0) {
    const width = Math.max(...own.map((n) => n.name.length))
    out.push(
      'Each also on a port of its own, any Host:',
      ...own.map((n) => `  ${n.name.padEnd(width)}   ${n.portUrl ?? `port ${n.port} (no key has this network)`}`),
      '',
    )
  }
  const named = server.networks.filter((n) => Object.keys(n.contracts).length > 0)
  if (named.length > 0) {
    const width = Math.max(...named.map((n) => n.name.length))
    const nameWidth = Math.max(...named.flatMap((n) => Object.keys(n.contracts).map((c) => c.length)))
    out.push('Contracts (from accounts.json):')
    for (const n of named) {
      Object.entries(n.contracts).forEach(([contract, address], i) => {
        out.push(`  ${(i === 0 ? n.name : '').padEnd(width)}   ${contract.padEnd(nameWidth)}   ${address}`)
      })
    }
    out.push('')
  }
  if (main !== undefined && main.accounts.length > 0) {
    const width = Math.max(...main.accounts.map((a) => a.name.length))
    out.push(
      `Accounts (${main.name}; their keys also in gateway-double/fixtures):`,
      ...main.accounts.map((a) => `  ${a.name.padEnd(width)}   ${a.address}   ${a.privateKey}`),
      'These private keys are public test keys: never use them, or send value to their addresses, on a real network.',
      '',
    )
  }
  if (server.devKey !== undefined) out.push(`Dev key: ${server.devKey}`, '')
  const first = server.networks.find((n) => n.key !== undefined)
  if (first) {
    out.push('Try it:')
    if (server.url !== undefined) {
      out.push(`  curl -s ${server.url} -H 'Content-Type: application/json' -d '${RPC_EXAMPLE}'`, `  cast block-number --rpc-url ${server.url}`)
    }
    out.push(`  curl -s ${server.origin}/v3/${first.key} -H 'Host: ${first.host}' -H 'Content-Type: application/json' -d '${RPC_EXAMPLE}'`, '')
  }
  const ws = server.wsUrl ?? first?.wsUrl
  if (ws !== undefined) out.push(`WebSocket: ${ws} (each network's URL with /ws/v3/; see docs/websocket.md)`, '')
  if (server.controlUrl !== undefined) {
    out.push(`Control endpoint: ${server.controlUrl}/ (see docs/controls-and-faults.md)`)
    if (server.controlTokenRequired) out.push(`  it needs the control token: authorization: Bearer <token>; the dashboard: ${server.controlUrl}/#token=<token>`)
    out.push('')
  }
  out.push('Press Ctrl+C to stop.')
  return `${out.join('\n')}\n`
}

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

const processIo: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
}

/**
 * Runs the CLI. Resolves with the exit code: at once for --help, --version and errors; when the
 * server has been stopped (SIGINT/SIGTERM) otherwise. `listening` is called once the server
 * listens and its banner is printed (bin/gateway-double.js saves its code cache after it).
 */
export async function main(argv: readonly string[], io: CliIo = processIo, env: NodeJS.ProcessEnv = process.env, listening?: () => void): Promise<number> {
  // The subcommands and the fixture builder (solc, the scenario planner) are imported only when
  // used: a plain start does not pay for them (about 0.25 s of module loading).
  if (argv[0] === 'build') return (await import('./builder/buildCommand.ts')).buildCommand(argv.slice(1), io)
  if (argv[0] === 'capture') return (await import('./capture/captureCommand.ts')).captureCommand(argv.slice(1), io)
  if (argv[0] === 'fork') return (await import('./capture/forkCommand.ts')).forkCommand(argv.slice(1), io)
  if (argv[0] === 'export') return (await import('./http/exportCommand.ts')).exportCommand(argv.slice(1), io)
  let opts: CliOptions
  try {
    opts = parseCliArgs(argv)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.stderr(`gateway-double: ${err.message}\nTry 'gateway-double --help'.\n`)
    return EXIT_USAGE
  }
  if (opts.help) {
    io.stdout(USAGE)
    return 0
  }
  if (opts.version) {
    io.stdout(`${packageVersion()}\n`)
    return 0
  }
  const logger: Logger = {
    error: (message, err) => io.stderr(`gateway-double: ${message}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
    // Contracts' console.log lines, as Anvil prints them.
    console: (line) => io.stdout(`${line}\n`),
  }
  let server: RunningServer
  try {
    const config = withForks(withFixtures(loadConfigFile(opts.config ?? DEFAULT_CONFIG_PATH), opts.fixtures), opts.forks, opts.offline)
    const token = env[CONTROL_TOKEN_ENV]
    server = await startServer({
      ...(token ? { controlAccess: { ...config.controlAccess, token } } : {}),
      config,
      port: opts.port,
      host: opts.host,
      logger,
      control: opts.control === true,
      ...(opts.evmTimeoutMs !== undefined ? { evmTimeoutMs: opts.evmTimeoutMs } : {}),
      ...(opts.networkPorts === undefined ? {} : { networkPorts: opts.networkPorts }),
    })
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    io.stderr(`gateway-double: ${message}\n`)
    return err instanceof ConfigError ? EXIT_USAGE : EXIT_FAILURE
  }
  io.stdout(startBanner(server))
  listening?.()
  return new Promise<number>((resolve) => {
    // The first signal stops gracefully: requests in flight are answered (for at most 5 s). A
    // second one stops at once.
    let stopping = false
    const stop = () => {
      if (stopping) {
        void server.close()
        return
      }
      stopping = true
      server.shutdown().then(
        () => {
          process.off('SIGINT', stop)
          process.off('SIGTERM', stop)
          resolve(0)
        },
        () => resolve(EXIT_FAILURE),
      )
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
