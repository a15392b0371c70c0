import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { deadline, SLOWDOWN } from './test/deadlines.js';

/**
 * Kinds whose files test pure functions and operators: no process, no watcher, no timer or
 * singleton of a module outlives a file.
 */
const PURE = ['test/unit/**/*.test.ts', 'test/marbles/**/*.test.ts'];
/** Kinds whose files start watchers, renders and real server processes, and end them. */
const SHARED = ['test/streams/**/*.test.ts', 'test/ui/**/*.test.{ts,tsx}', 'test/integration/**/*.test.ts'];
/** Files of those kinds that assert on process-wide state, which a file before them could leave. */
const OWN_PROCESS = ['test/ui/runInteractive.test.tsx'];

export default defineConfig({
  test: {
    exclude: ['test/slow/**', 'node_modules/**', 'dist/**'],
    // Hang guards scale with the machine: one factor for the run, in every worker (decision 316).
    testTimeout: deadline(30_000),
    hookTimeout: deadline(30_000),
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine. Most
    // files wait on processes, files and debounces rather than compute, so one more than the
    // cores run side by side: three on 2 cores, 99 s against 115 s with two (decision 293; the
    // suite's waits are written for a loaded machine: docs/reliability.md).
    maxWorkers: availableParallelism() + 1,
    // CI runs with CI=true, which makes Ink render only its last frame; the UI tests (and the
    // CLI they start in a terminal) test the interactive rendering a user sees.
    // XDG_RUNTIME_DIR empty: sessions under test keep their process-group records in the test's
    // own HOME (~/.qwen/run), never in the machine's runtime directory (decision 61).
    env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false', XDG_RUNTIME_DIR: '', MCP_LIVE_TEST_SLOWDOWN: String(SLOWDOWN) },
    projects: [
      {
        extends: true,
        // Not isolated (decision 292): a worker imports the SDK, RxJS and Ink once for all its
        // files instead of once per file, which was two thirds of these files' time.
        test: { name: 'pure', include: PURE, isolate: false },
      },
      {
        extends: true,
        // Watchers, renders and real servers in this process, not isolated either (decision 293):
        // every file ends what it starts (its servers, watchers, renders), so a file after it in
        // the same worker meets nothing of it, and a worker loads the SDK, chokidar and Ink once.
        test: { name: 'shared', include: SHARED, exclude: [...OWN_PROCESS, 'test/slow/**'], isolate: false },
      },
      {
        extends: true,
        // Each file in a process of its own: the end-to-end tests, which spawn the built CLI
        // (dist/) as a user would — the build is test/global-setup.ts — and the files that assert
        // on the state of the whole process (its signal listeners).
        test: { name: 'isolated', include: ['test/e2e/**/*.test.ts', ...OWN_PROCESS], globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
