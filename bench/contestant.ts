/**
 * A contestant: something that watches a config file of MCP servers and keeps them connected.
 * The scenarios drive every contestant the same way — write the file, watch what a client
 * could use — so their figures stand side by side.
 *
 * Here: mcp-live itself, with `strategy: 'incremental'` (ours) or `'full'` (tear everything
 * down and reconnect all on any change: the behaviour mcp-live replaces). mcp-hub lives in
 * `mcpHub.ts`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import { createMcpLive, type McpLive } from '../src/createMcpLive.js';
import type { ServerState } from '../src/model/types.js';
import { type Availability, Probe } from './probe.js';
import { type ServerMap, writeJson } from './fixtures.js';

export type ContestantId = 'incremental' | 'full' | 'mcp-hub';

export const CONTESTANT_LABELS: Readonly<Record<ContestantId, string>> = {
  incremental: 'mcp-live (incremental)',
  full: 'full restart',
  'mcp-hub': 'mcp-hub --watch',
};

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
  /** Every state change of every server, as it happened: the breakdown of a latency. */
  private readonly transitions: { t: number; name: string; state: ServerState }[] = [];
  private readonly lastState = new Map<string, ServerState>();

  constructor(private readonly options: LiveContestantOptions) {
    this.id = options.strategy;
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
    });
    this.live = live;
    this.subscriptions.push(
      live.servers$.subscribe((list) => {
        const snapshot = new Map<string, Availability>();
        const now = performance.now();
        for (const s of list) {
          if (this.lastState.get(s.name) !== s.state) {
            this.lastState.set(s.name, s.state);
            this.transitions.push({ t: now, name: s.name, state: s.state });
          }
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

  /** The first time at or after `since` that `name` entered `state`. */
  enteredAt(name: string, state: ServerState, since: number): number | undefined {
    return this.transitions.find((x) => x.t >= since && x.name === name && x.state === state)?.t;
  }

  /** Drops the transition log (keeps memory flat over a long run). */
  forgetTransitions(): void {
    this.transitions.length = 0;
  }

  async stop(): Promise<void> {
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions.length = 0;
    await this.live?.dispose();
    this.live = undefined;
  }
}
