import { defineConfig } from 'vitest/config';

/**
 * Kinds whose files test pure functions and operators: no process, no watcher, no timer or
 * singleton of a module outlives a file. The UI and stream tests are not among them: they render
 * and watch through modules that keep one timer or one watcher registry per process.
 */
const PURE = ['test/unit/**/*.test.ts', 'test/marbles/**/*.test.ts'];

export default defineConfig({
  test: {
    exclude: ['test/slow/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on this 2-core machine. Most
    // files wait on processes, files and debounces rather than compute, so two run side by side
    // (the suite's waits are written for a loaded machine: docs/reliability.md).
    maxWorkers: 2,
    // CI runs with CI=true, which makes Ink render only its last frame; the UI tests (and the
    // CLI they start in a terminal) test the interactive rendering a user sees.
    // XDG_RUNTIME_DIR empty: sessions under test keep their process-group records in the test's
    // own HOME (~/.qwen/run), never in the machine's runtime directory (decision 61).
    env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false', XDG_RUNTIME_DIR: '' },
    projects: [
      {
        extends: true,
        // Not isolated (decision 292): a worker imports the SDK, RxJS and Ink once for all its
        // files instead of once per file, which was two thirds of these files' time.
        test: { name: 'pure', include: PURE, isolate: false },
      },
      {
        extends: true,
        // Watchers, renders, real servers, real CLIs, real terminals: each file in a process of
        // its own. The build (test/global-setup.ts) is for the end-to-end tests, which spawn
        // dist/ as a user would.
        test: {
          name: 'isolated',
          include: ['test/streams/**/*.test.ts', 'test/ui/**/*.test.{ts,tsx}', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
