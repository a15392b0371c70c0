import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['test/slow/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on this 2-core machine. Most
    // files wait on processes, files and debounces rather than compute, so two run side by side
    // (the suite's waits are written for a loaded machine: docs/reliability.md).
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    // CI runs with CI=true, which makes Ink render only its last frame; the UI tests (and the
    // CLI they start in a terminal) test the interactive rendering a user sees.
    // XDG_RUNTIME_DIR empty: sessions under test keep their process-group records in the test's
    // own HOME (~/.qwen/run), never in the machine's runtime directory (decision 61).
    env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false', XDG_RUNTIME_DIR: '' },
  },
});
