import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Database suites create their own PostgreSQL database and SQLite file, so files may run in parallel.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits on what a browser or a background job will show; on a loaded machine
    // (CI runs every suite at once) that takes longer than the default second.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});
