/**
 * How the bench starts a gateway-double server as its users run it: `root`'s
 * bench/gatewayServer.ts compiled by esbuild into one ESM file whose import of
 * ../src/http/server.ts is `root`'s build (dist/index.js, what `npx gateway-double` and
 * `import('gateway-double')` load), run by plain node. Under `node --import tsx` the TypeScript
 * loader's thread and its caches were ~45 MiB of the server's resident memory (measured: 41 MiB
 * for bare node, 75 with tsx registered; importing the server 78 MiB from dist, 126 through tsx),
 * which the package never carries. Without a build (dist/index.js), `--import tsx` as before.
 */
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** The node arguments that run `root`'s bench/gatewayServer.ts. */
export async function serverArgs(root: string): Promise<string[]> {
  const source = join(root, 'bench/gatewayServer.ts')
  const built = join(root, 'dist/index.js')
  if (!existsSync(built)) return ['--import', 'tsx', source]
  const { build } = await import('esbuild')
  const outfile = join(mkdtempSync(join(tmpdir(), 'gateway-double-bench-server-')), 'gatewayServer.mjs')
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    plugins: [
      {
        name: 'built-server',
        setup(b) {
          b.onResolve({ filter: /src\/http\/server(\.ts)?$/ }, () => ({ path: pathToFileURL(built).href, external: true }))
          // CommonJS, as the command loads it (bundled into ESM, its require of node:v8 would throw).
          b.onResolve({ filter: /bin\/youngGeneration\.js$/ }, () => ({ path: pathToFileURL(join(root, 'bin/youngGeneration.js')).href, external: true }))
        },
      },
    ],
  })
  return [outfile]
}
