import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Native sessions use their own thread pools; forks keep each test file in its own process.
    pool: 'forks',
    reporters: ['default', './test/reporters/plain-summary.ts'],
  },
});
