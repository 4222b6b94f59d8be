import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Test files open their own temporary data directories; two workers match the machine's cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
