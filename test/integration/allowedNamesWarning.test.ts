import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BehaviorSubject, asyncScheduler, filter, firstValueFrom, type Observable } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpLive, type McpLive } from '../../src/index.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import { planReport } from '../../src/live/planReport.js';
import { runStatus } from '../../src/cli/statusCommand.js';
import { fakeConnector } from '../marbles/fakeConnector.js';

/** Decision 78: `--allowed-mcp-server-names` entries that match no configured server are warned about. */

const fake = () => ({ command: 'fake', args: [] });
const ALLOWED = ['github', 'gihtub', 'nope*'];

const dirs: string[] = [];
let dir: string;
let live: McpLive | undefined;

function tempDirs(): { home: string; cwd: string } {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-allowed-'));
  dirs.push(dir);
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(cwd);
  return { home, cwd };
}

function session(servers$: Observable<Record<string, unknown>>): McpLive {
  const { home, cwd } = tempDirs();
  live = createMcpLive({
    homeDir: home,
    cwd,
    runtimeDir: join(dir, 'run'),
    debounceMs: 20,
    allowedMcpServerNames: ALLOWED,
    connector: fakeConnector(asyncScheduler).connector,
    extraSources: [{ scope: 'user', source: 'stream', servers$ }],
  });
  return live;
}

const warnings = (events: readonly McpLiveEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('--allowed-mcp-server-names entries that match no configured server', () => {
  it('a session logs a warning at start, and again only when the unmatched names change', async () => {
    const servers$ = new BehaviorSubject<Record<string, unknown>>({ github: fake(), gitlab: fake() });
    const l = session(servers$);
    const events: McpLiveEvent[] = [];
    const sub = l.events$.subscribe((e) => events.push(e));
    await l.start();
    expect(warnings(events)).toEqual(['--allowed-mcp-server-names: "gihtub", "nope*" match no configured server']);

    // The same servers again (a save without a change): no second warning.
    servers$.next({ github: fake(), gitlab: fake() });
    // A server that matches one of them arrives: the warning names what is still unmatched.
    const next = firstValueFrom(l.events$.pipe(filter((e) => e.type === 'log' && e.level === 'warn')));
    servers$.next({ github: fake(), gitlab: fake(), 'nope-x': fake() });
    await next;
    expect(warnings(events)).toEqual([
      '--allowed-mcp-server-names: "gihtub", "nope*" match no configured server',
      '--allowed-mcp-server-names: "gihtub" matches no configured server',
    ]);
    sub.unsubscribe();
  });

  it('status prints it, and plan lists it with the notices', async () => {
    const l = session(new BehaviorSubject<Record<string, unknown>>({ github: fake() }));
    live = undefined; // runStatus disposes it
    let out = '';
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => ((out += chunk.toString()), done()) });
    expect(await runStatus(l, false, sink)).toBe(0);
    expect(out).toContain('! --allowed-mcp-server-names: "gihtub", "nope*" match no configured server\n');

    const { home, cwd } = tempDirs();
    writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { github: fake() } }));
    const report = await planReport({ homeDir: home, cwd, allowedMcpServerNames: ALLOWED });
    expect(report.notices).toContainEqual({ type: 'log', level: 'warn', message: '--allowed-mcp-server-names: "gihtub", "nope*" match no configured server' });
  });
});
