#!/usr/bin/env node
// The package's command. Installed from the registry (or a tarball), the package has no src/ and
// the compiled CLI in dist/ runs: no TypeScript loader. In a clone, dist/ runs when it holds a
// build newer than every source file (`npm run build`, which `npm ci` and `npm install` run
// through `prepare`); otherwise (no build, a failed one, or a source edited since) tsx, a
// devDependency, registers its ESM loader in this process and the sources run as they are.
// `--version` alone is answered here, from package.json, before anything else is read or loaded.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The newest modification time under `dir`, in ms (0 when there is nothing). */
function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const t = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs
    if (t > latest) latest = t
  }
  return latest
}

function freshBuild() {
  try {
    // dist/.built is written after a successful build, so it is newer than every file the build read.
    return statSync(join(root, 'dist/.built')).mtimeMs >= newest(join(root, 'src'))
  } catch {
    return false
  }
}

const args = process.argv.slice(2)
let cli
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`)
} else if (!existsSync(join(root, 'src')) || freshBuild()) {
  cli = await import('../dist/cli.js')
} else {
  let register
  try {
    ;({ register } = await import('tsx/esm/api'))
  } catch {
    process.stderr.write("gateway-double: src/ has no fresh build in dist/ and tsx is not installed: run 'npm run build'\n")
    process.exit(1)
  }
  register()
  cli = await import('../src/cli.ts')
}
if (cli !== undefined) process.exitCode = await cli.main(args)
