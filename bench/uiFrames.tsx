/**
 * Rendering stays responsive (decision 40): 100 servers connected, a reconcile
 * every 500 ms for 10 s, and the Ink UI must not render more than ~30 frames a second.
 *
 * Runs the real `App` on a real `createMcpLive` (real settings file on disk, real watcher, real
 * pipeline) with an in-memory connector, so only the servers' processes are left out: every
 * pass changes 10 servers' args (10 disconnects + 10 connects, ~40 status changes in a burst),
 * and every frame Ink writes to its (fake, TTY-like) stdout is counted.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { render } from 'ink';
import { filter, firstValueFrom, map, NEVER, of, timer } from 'rxjs';
import { createMcpLive } from '../src/live/createMcpLive.js';
import type { Connection, Connector } from '../src/model/connection.js';
import { App } from '../src/hosts/ui/App.js';

export interface UiFramesResult {
  servers: number;
  passes: number;
  seconds: number;
  frames: number;
  framesPerSecond: number;
  /** The most frames written within any one second. */
  maxFramesInOneSecond: number;
  statusChanges: number;
}

/** A connector that "connects" in 5 ms without a process: the UI load without process noise. */
const inMemoryConnector: Connector = (name) =>
  timer(5).pipe(
    map(
      (): Connection => ({
        pid: undefined,
        lists: { tools: [{ name: 'echo' }, { name: `${name}_tool` }], prompts: [], resources: [] },
        lists$: NEVER,
        callTool: () => Promise.resolve({}),
        stderrTail: () => [],
        close: () => of(undefined),
      }),
    ),
  );

/** A stdout Ink believes is a terminal; it counts each frame written. */
class FrameCounter extends Writable {
  readonly isTTY = true;
  readonly columns = 160;
  readonly rows = 60;
  readonly writes: number[] = [];
  override _write(_chunk: unknown, _enc: BufferEncoding, done: () => void): void {
    this.writes.push(performance.now());
    done();
  }
}

function fakeStdin(): NodeJS.ReadStream {
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream & { setRawMode: (b: boolean) => void };
  Object.assign(stdin, { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  return stdin;
}

export async function runUiFrames(opts: { servers?: number; seconds?: number; everyMs?: number } = {}): Promise<UiFramesResult> {
  const servers = opts.servers ?? 100;
  const seconds = opts.seconds ?? 10;
  const everyMs = opts.everyMs ?? 500;
  const dir = mkdtempSync(join(tmpdir(), 'mcp-live-bench-ui-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(cwd);
  const settings = join(home, '.qwen', 'settings.json');
  const write = (round: number) => {
    const mcpServers: Record<string, unknown> = {};
    for (let i = 0; i < servers; i++) {
      // each round, a different tenth of the servers gets new args
      const touched = i % 10 === round % 10 ? round : 0;
      mcpServers[`s${String(i).padStart(3, '0')}`] = { command: 'in-memory', args: [`v${touched}`] };
    }
    writeFileSync(settings, JSON.stringify({ mcpServers }));
  };
  write(0);

  const live = createMcpLive({ cwd, homeDir: home, connector: inMemoryConnector, debounceMs: 50 });
  let statusChanges = 0;
  const counting = live.events$.subscribe((e) => {
    if (e.type === 'server') statusChanges++;
  });
  let passes = 0;
  const passCount = live.events$.pipe(filter((e) => e.type === 'reconcile')).subscribe(() => passes++);
  const stdout = new FrameCounter();
  const app = render(<App live={live} onExit={() => undefined} />, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: fakeStdin(),
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await live.start();
  await firstValueFrom(live.servers.list$.pipe(filter((list) => list.filter((s) => s.state === 'connected').length === servers)));

  const startPasses = passes;
  const startChanges = statusChanges;
  const from = stdout.writes.length;
  const t0 = performance.now();
  for (let round = 1; performance.now() - t0 < seconds * 1000; round++) {
    write(round);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const elapsed = (performance.now() - t0) / 1000;
  const frames = stdout.writes.slice(from);
  let maxInOneSecond = 0;
  for (let i = 0, j = 0; i < frames.length; i++) {
    while (frames[i]! - frames[j]! > 1000) j++;
    maxInOneSecond = Math.max(maxInOneSecond, i - j + 1);
  }
  app.unmount();
  counting.unsubscribe();
  passCount.unsubscribe();
  await live.dispose();
  rmSync(dir, { recursive: true, force: true });
  return {
    servers,
    passes: passes - startPasses,
    seconds: Math.round(elapsed * 10) / 10,
    frames: frames.length,
    framesPerSecond: Math.round((frames.length / elapsed) * 10) / 10,
    maxFramesInOneSecond: maxInOneSecond,
    statusChanges: statusChanges - startChanges,
  };
}
