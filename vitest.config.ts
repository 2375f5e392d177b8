import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Loading a fixture chain replays it through the VM: seconds, not milliseconds.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
