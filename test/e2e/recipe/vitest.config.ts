/**
 * The documented vitest recipe, run for real by test/e2e/recipe.test.ts (which spawns
 * `vitest run --config test/e2e/recipe/vitest.config.ts`). Its spec files are named *.spec.ts so
 * that the project's own run (test/**\/*.test.ts) does not pick them up.
 *
 * The package name resolves to the sources here (the alias), so the recipe follows src/ without a
 * build; test/e2e/package.test.ts runs the README's recipe from the packed tarball.
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (path: string) => fileURLToPath(new URL(`../../../src/${path}`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^gateway-double$/, replacement: src('index.ts') },
      { find: /^gateway-double\/testing\/vitest$/, replacement: src('testing/vitest.ts') },
    ],
  },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.spec.ts'],
    // One gateway-double for the whole run (what a user's config lists as
    // 'gateway-double/testing/vitest'; here a local file re-exports it through the package name).
    globalSetup: ['./globalSetup.ts'],
    // Per file: RPC_URL is this worker's own fork of ethereum (or the shared one, said so).
    setupFiles: ['./setup.ts'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
