#!/usr/bin/env node
// The package's command. The sources are TypeScript: tsx (a runtime dependency) registers its
// ESM loader in this process, then the CLI module is imported as is.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli.ts')
process.exitCode = await main(process.argv.slice(2))
