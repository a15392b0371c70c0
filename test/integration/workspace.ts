import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, map, timeout } from 'rxjs';
import { afterAll, expect, it as base } from 'vitest';
import { createMcpLive, type McpLive, type McpLiveOptions } from '../../src/index.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import type { ServerStatus } from '../../src/model/report/status.js';
import { MCP_TEST_SERVERS, waitForNoLeftovers } from './processes.js';
import { deadline } from '../deadlines.js';

/**
 * What the integration tests set up again and again: a temp workspace (a home, a project, a
 * runtime directory) and the sessions started on it, ended and removed when the test finishes.
 *
 * `it` hands each test its own `scope`: what the test opens through it is closed when that test
 * finishes, whatever it asserted — so tests may run side by side (`describe.concurrent`) without
 * closing each other's sessions. {@link noLeftoversAfterAll} then checks that the file left no
 * server process behind.
 */

export interface TempWorkspace {
  /** The temp directory everything below lives in. */
  dir: string;
  /** `dir/home` (`~`). */
  homeDir: string;
  /** `dir/project`, the workspace. */
  cwd: string;
  /** `dir/run`, for the session's process-group records. */
  runtimeDir: string;
  /** `~/.qwen/settings.json` (not written). */
  userSettings: string;
  /** Writes `value` as JSON to `file`. */
  write(file: string, value: unknown): void;
}

export interface WorkspaceLayout {
  /** Create `~/.qwen` too (default true). */
  qwen?: boolean;
  /** Directories to create below `dir` besides `home` and `project`. */
  extra?: string[];
}

/** Creates a temp workspace; the caller removes `dir` (a {@link TestScope} does). */
export function tempWorkspace(prefix = 'mcp-live-', { qwen = true, extra = [] }: WorkspaceLayout = {}): TempWorkspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const homeDir = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(qwen ? join(homeDir, '.qwen') : homeDir, { recursive: true });
  mkdirSync(cwd);
  for (const path of extra) mkdirSync(join(dir, path), { recursive: true });
  return {
    dir,
    homeDir,
    cwd,
    runtimeDir: join(dir, 'run'),
    userSettings: join(homeDir, '.qwen', 'settings.json'),
    write: (file, value) => writeFileSync(file, JSON.stringify(value, null, 2)),
  };
}

interface Disposable {
  dispose(): Promise<void>;
}

/** What one test opened: closed at its end, sessions and connections first, then the test's own steps, then its directories. */
export class TestScope {
  private readonly sessions: Disposable[] = [];
  private readonly steps: (() => unknown)[] = [];
  private readonly dirs: string[] = [];
  private scratch: string | undefined;

  /** A temp workspace removed when the test finishes. */
  workspace(prefix?: string, layout?: WorkspaceLayout): TempWorkspace {
    const ws = tempWorkspace(prefix, layout);
    this.dirs.push(ws.dir);
    return ws;
  }

  /** A session (anything with `dispose()`) disposed when the test finishes; returns it. */
  track<T extends Disposable>(session: T): T {
    this.sessions.push(session);
    return session;
  }

  /** A connection (anything with `close()`) closed when the test finishes, before the end steps; returns it. */
  closes<T extends { close(): unknown }>(connection: T): T {
    this.sessions.push({ dispose: async () => void (await connection.close()) });
    return connection;
  }

  /** A path `name` in a temp directory of this test's own (removed when it finishes). */
  path(name: string): string {
    this.scratch ??= this.workspace('mcp-live-scratch-', { qwen: false }).dir;
    return join(this.scratch, name);
  }

  /** Runs `step` when the test finishes, after the sessions are disposed (the last added first). */
  atEnd(step: () => unknown): void {
    this.steps.push(step);
  }

  async end(): Promise<void> {
    try {
      await Promise.all(this.sessions.splice(0).map((s) => s.dispose()));
      for (const step of this.steps.splice(0).reverse()) await step();
    } finally {
      for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** One test's workspace and the sessions it opens on it (disposed when the test finishes). */
export interface SessionWorld {
  dir: string;
  home: string;
  project: string;
  /** Writes `~/.qwen/settings.json`. */
  userSettings(settings: Record<string, unknown>): void;
  /** A session on the workspace (debounce 50 ms, not started yet) and every event it emits. */
  open(options?: Partial<McpLiveOptions>): { live: McpLive; events: McpLiveEvent[] };
}

/** A {@link SessionWorld} in a workspace of `scope` named from `prefix`. */
export function sessionWorld(scope: TestScope, prefix: string): SessionWorld {
  const ws = scope.workspace(prefix);
  return {
    dir: ws.dir,
    home: ws.homeDir,
    project: ws.cwd,
    userSettings: (settings) => writeFileSync(ws.userSettings, JSON.stringify(settings)),
    open: (options = {}) => {
      const live = scope.track(createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 50, ...options }));
      const events: McpLiveEvent[] = [];
      live.events$.subscribe((e) => events.push(e));
      return { live, events };
    },
  };
}

export const it = base.extend<{ scope: TestScope }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  scope: async ({}, use) => {
    const scope = new TestScope();
    await use(scope);
    await scope.end();
  },
});

/** After the file's tests: no process matching `pattern` (default: the MCP test servers) is left. */
export function noLeftoversAfterAll(pattern: RegExp = MCP_TEST_SERVERS): void {
  afterAll(async () => {
    expect(await waitForNoLeftovers(pattern)).toEqual([]);
  });
}

/** The status of `name` once `test` accepts it; fails after `ms`. */
export function until(live: McpLive, name: string, test: (s: ServerStatus) => boolean, ms = 15_000): Promise<ServerStatus> {
  return firstValueFrom(
    live.servers.list$.pipe(
      map((all) => all.find((s) => s.name === name)),
      filter((s): s is ServerStatus => s !== undefined && test(s)),
      timeout(deadline(ms)),
    ),
  );
}
