/**
 * A contestant: something that watches a config file of MCP servers and keeps them connected.
 * The scenarios drive every contestant the same way — write the file, watch what a client
 * could use — so their figures stand side by side.
 *
 * Here: mcp-live itself, with `strategy: 'incremental'` (ours) or `'full'` (tear everything
 * down and reconnect all on any change: the behaviour mcp-live replaces), and ours again with
 * mcp-hub's floor as its debounce (`equal-floor`), so raw latencies compare without netting the
 * two floors out. mcp-hub lives in `mcpHub.ts`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Subscription, defer, finalize, from, map } from 'rxjs';
import { createMcpLive } from '../src/live/createMcpLive.js';
import { type McpLive } from '../src/live/types.js';
import type { Connection, Connector } from '../src/model/connection.js';
import { createMcpConnector } from '../src/sinks/mcp/connector.js';
import { type Availability, Probe } from './probe.js';
import { type ServerMap, sleep, writeJson } from './fixtures.js';

/** chokidar `awaitWriteFinish.stabilityThreshold` in mcp-hub's config watcher: its floor, and the debounce of the equal-floor contestant. */
export const HUB_STABILITY_MS = 200;

export type ContestantId = 'incremental' | 'full' | 'equal-floor' | 'mcp-hub';

export const CONTESTANT_LABELS: Readonly<Record<ContestantId, string>> = {
  incremental: 'mcp-live (incremental)',
  full: 'full restart',
  'equal-floor': `mcp-live, debounce ${HUB_STABILITY_MS}`,
  'mcp-hub': 'mcp-hub --watch',
};

/**
 * One connect of one server as the connector saw it (performance.now() ms): when the pass asked
 * for it, when the process had listed its lists, when its close began and ended.
 */
export interface Attempt {
  name: string;
  startedAt: number;
  connectedAt?: number;
  closeStartedAt?: number;
  closedAt?: number;
  /** Ended without a connection (failed or given up). */
  failed?: boolean;
}

export interface Contestant {
  readonly id: ContestantId;
  /** The wait a change sits through before anything happens: debounce / write-stability window. */
  readonly floorMs: number;
  /** Where its fixtures log their starts (one line per process start). */
  readonly startLog: string;
  /** What a client of it could use, over time. */
  readonly probe: Probe;
  /** Writes the servers and starts; resolves with ms from start until every server was usable. */
  start(servers: ServerMap): Promise<number>;
  /** Writes the config file in place (the edit under test). */
  write(servers: ServerMap): void;
  /** Passes that finished (mcp-live) / config changes applied (mcp-hub) since `since`. */
  passesEndedSince(since: number): number;
  /** When the last pass ended (0 if none). */
  lastPassEndedAt(): number;
  /** Passes begun but not finished (only mcp-hub can tell; mcp-live reports a pass when it ends). */
  passesInFlight(): number;
  /** Turns observation on for a measurement (mcp-hub polls its API only then). */
  watch?(on: boolean): void;
  /** Ends it and every process it started. */
  stop(): Promise<void>;
}

export interface LiveContestantOptions {
  /** Default: the strategy. */
  id?: ContestantId;
  strategy: 'incremental' | 'full';
  /** The contestant's own folder (temp home + workspace inside). */
  dir: string;
  debounceMs: number;
  concurrency?: number;
}

/** mcp-live through its public facade, with real files and the real watcher. */
export class LiveContestant implements Contestant {
  readonly id: ContestantId;
  readonly floorMs: number;
  readonly startLog: string;
  readonly probe = new Probe();
  private readonly home: string;
  private readonly cwd: string;
  private readonly settingsFile: string;
  private live?: McpLive;
  private readonly subscriptions: Subscription[] = [];
  /** performance.now() of every `reconcile` event. */
  readonly passEnds: number[] = [];
  /** Every connect of every server, in order: the breakdown of a latency. */
  private attempts: Attempt[] = [];

  constructor(private readonly options: LiveContestantOptions) {
    this.id = options.id ?? options.strategy;
    this.floorMs = options.debounceMs;
    this.startLog = join(options.dir, 'starts.log');
    this.home = join(options.dir, 'home');
    this.cwd = join(options.dir, 'project');
    this.settingsFile = join(this.home, '.qwen', 'settings.json');
    mkdirSync(this.cwd, { recursive: true });
  }

  async start(servers: ServerMap): Promise<number> {
    this.write(servers);
    const live = createMcpLive({
      cwd: this.cwd,
      homeDir: this.home,
      debounceMs: this.options.debounceMs,
      strategy: this.options.strategy,
      concurrency: this.options.concurrency,
      // The default stdio connector, timed: fixtures need no OAuth, which is all the default adds.
      connector: this.timed(createMcpConnector()),
    });
    this.live = live;
    this.subscriptions.push(
      live.servers.list$.subscribe((list) => {
        const snapshot = new Map<string, Availability>();
        const now = performance.now();
        for (const s of list) {
          const tools = s.state === 'connected' ? s.tools.map((t) => t.tool) : [];
          snapshot.set(s.name, { up: s.state === 'connected' && tools.length > 0, tools });
        }
        this.probe.observe(now, snapshot);
      }),
      live.events$.subscribe((e) => {
        if (e.type === 'reconcile') this.passEnds.push(performance.now());
      }),
    );
    const t0 = performance.now();
    await live.start();
    const names = Object.keys(servers);
    if (!this.probe.allUp(names)) {
      const down = names.filter((n) => !this.probe.state(n).up);
      throw new Error(`${this.id}: ${down.length} of ${names.length} servers not usable after start (${down.slice(0, 3).join(', ')}…)`);
    }
    return performance.now() - t0;
  }

  write(servers: ServerMap): void {
    writeJson(this.settingsFile, { mcpServers: servers });
  }

  passesEndedSince(since: number): number {
    return this.passEnds.filter((t) => t >= since).length;
  }

  passesInFlight(): number {
    return 0;
  }

  lastPassEndedAt(): number {
    return this.passEnds.at(-1) ?? 0;
  }

  /** The connects of `name`, oldest first. */
  attemptsOf(name: string): Attempt[] {
    return this.attempts.filter((a) => a.name === name);
  }

  /** Resolves when no close is under way (bounded): a replaced process's close comes after the swap. */
  async closesSettled(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.attempts.some((a) => a.closeStartedAt !== undefined && a.closedAt === undefined) && performance.now() < deadline) await sleep(5);
  }

  /** Drops the attempts that are over (keeps memory flat over a long run); open connections stay. */
  forgetAttempts(): void {
    this.attempts = this.attempts.filter((a) => !a.failed && a.closedAt === undefined);
  }

  /**
   * `inner`, with each connect and close stamped into {@link attempts}. The connection is handed
   * on behind a proxy that stamps `close()`; everything else goes to the connection itself.
   */
  private timed(inner: Connector): Connector {
    return (name, config, handlers) =>
      defer(() => {
        const attempt: Attempt = { name, startedAt: performance.now() };
        this.attempts.push(attempt);
        return inner(name, config, handlers).pipe(
          map((conn) => {
            attempt.connectedAt = performance.now();
            return stampClose(conn, attempt);
          }),
          finalize(() => {
            if (attempt.connectedAt === undefined) attempt.failed = true;
          }),
        );
      });
  }

  async stop(): Promise<void> {
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions.length = 0;
    await this.live?.dispose();
    this.live = undefined;
  }
}

function stampClose(conn: Connection, attempt: Attempt): Connection {
  const close = async (): Promise<void> => {
    attempt.closeStartedAt ??= performance.now();
    try {
      await from(conn.close()).forEach(() => undefined);
    } finally {
      attempt.closedAt ??= performance.now();
    }
  };
  return new Proxy(conn, {
    get(target, key) {
      if (key === 'close') return close;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
