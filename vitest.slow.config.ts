import { defineConfig } from 'vitest/config';
import { deadline, SLOWDOWN } from './test/deadlines.js';

export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    // Hang guards scale with the machine: one factor for the run, in every worker (decision 316).
    testTimeout: deadline(600_000),
    hookTimeout: deadline(120_000),
    pool: 'forks',
    // One file at a time: the soak measures memory, descriptors and processes, and the timing
    // scenarios must not compete with each other for two cores.
    fileParallelism: false,
    globalSetup: ['test/global-setup.ts'],
    // Sessions under test keep their process-group records in the test's own HOME (decision 61).
    env: { XDG_RUNTIME_DIR: '', MCP_LIVE_TEST_SLOWDOWN: String(SLOWDOWN) },
  },
});
