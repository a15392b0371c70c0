import { render, cleanup } from 'ink-testing-library';
import { Profiler } from 'react';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpLiveEvent, ReconcileEvent } from '../../src/model/report/events.js';
import { eventLogText, formatReconcile, nextLogLines, type LogLine } from '../../src/hosts/ui/text/eventLogLine.js';
import { ReconcileLog } from '../../src/hosts/ui/lists/ReconcileLog.js';
import { plain, tick, waitFor } from './fakeLive.js';

afterEach(cleanup);

const TS = new Date(2026, 0, 2, 14, 3, 9).getTime();

function pass(patch: Partial<ReconcileEvent> = {}): ReconcileEvent {
  return {
    type: 'reconcile',
    ts: TS,
    generation: 1,
    trigger: 'watch',
    added: [],
    removed: [],
    reconnected: [],
    updated: [],
    unchanged: 0,
    // Every unchanged name running, unless the test says otherwise.
    kept: patch.unchanged ?? 0,
    blocked: [],
    ms: 0,
    ...patch,
  };
}

describe('formatReconcile', () => {
  it('uses the compact form: +added ~reconnected/updated -removed, kept N, ms, trigger', () => {
    expect(formatReconcile(pass({ added: ['c'], reconnected: ['b'], removed: ['d'], unchanged: 5, kept: 5, ms: 312 }))).toBe(
      '+c ~b -d  kept 5  312 ms  (watch)',
    );
  });

  it('joins names of a kind, folds updates into ~, shows newly blocked servers and rounds ms', () => {
    expect(
      formatReconcile(
        pass({ added: ['a1', 'a2'], reconnected: ['r'], updated: ['u'], blocked: ['x'], unchanged: 0, ms: 12.6, trigger: 'reload' }),
      ),
    ).toBe('+a1,a2 ~r,u ⊘x  kept 0  13 ms  (reload)');
  });

  it('says "no changes" for an idle pass', () => {
    expect(formatReconcile(pass({ unchanged: 3, kept: 3, ms: 1 }))).toBe('no changes  kept 3  1 ms  (watch)');
  });

  it('counts only the servers kept running, not the names left blocked (decision 329)', () => {
    // clock restarted; notes, forecast, a language server run on; one excluded, one pending approval.
    expect(formatReconcile(pass({ reconnected: ['clock'], unchanged: 5, kept: 3, ms: 1094 }))).toBe('~clock  kept 3  1094 ms  (watch)');
  });
});

describe('eventLogText', () => {
  it('colours settings errors red, restart-required and warnings yellow, and names the keys', () => {
    expect(eventLogText({ type: 'settings-error', ts: TS, file: '/w/s.json', error: '/w/s.json:3:7: bad comma' })).toEqual({
      ts: TS,
      text: 'settings error: /w/s.json:3:7: bad comma (last good content kept)',
      color: 'red',
      file: '/w/s.json',
    });
    expect(eventLogText({ type: 'restart-required', ts: TS, file: '/u/s.json', keys: ['mcp.serverCommand'] })).toEqual({
      ts: TS,
      text: 'restart required for mcp.serverCommand (/u/s.json)',
      color: 'yellow',
    });
    expect(eventLogText({ type: 'log', ts: TS, level: 'warn', message: 'corrupt approvals' })?.color).toBe('yellow');
    expect(eventLogText({ type: 'log', ts: TS, level: 'error', message: 'boom' })?.color).toBe('red');
    expect(
      eventLogText({ type: 'approval-required', ts: TS, servers: [{ name: 'x', scope: 'project', source: '/w/.mcp.json', hash: 'h', config: {}, readsEnv: [] }] })?.text,
    ).toBe('approval required: x');
  });

  it('leaves out server changes, results, debug/info logs and lifecycle events', () => {
    const quiet: McpLiveEvent[] = [
      { type: 'server', kind: 'mcp', ts: TS, name: 'a', scope: 'user', source: '', state: 'connected' },
      { type: 'result', ts: TS, ok: true },
      { type: 'log', ts: TS, level: 'info', message: 'hi' },
      { type: 'ready', ts: TS },
      { type: 'started', ts: TS, cwd: '/', profile: 'qwen', watching: [] },
    ];
    for (const e of quiet) expect(eventLogText(e)).toBeUndefined();
  });
});

describe('nextLogLines', () => {
  const error = (file: string): McpLiveEvent => ({ type: 'settings-error', ts: TS, file, error: `${file}: oops` });

  it("settings-ok takes away that file's error lines, and only those, and says it is fixed", () => {
    let lines: readonly LogLine[] = [];
    const events: McpLiveEvent[] = [error('/a.json'), pass(), error('/b.json'), error('/a.json')];
    events.forEach((e, i) => (lines = nextLogLines(lines, e, i, 8)));
    expect(lines.map((l) => l.id)).toEqual([0, 1, 2, 3]);
    lines = nextLogLines(lines, { type: 'settings-ok', ts: TS, file: '/a.json' }, 4, 8);
    expect(lines.map((l) => l.id)).toEqual([1, 2, 4]);
    expect(lines[1]!.text).toContain('/b.json');
    expect(lines[2]).toMatchObject({ text: 'settings ok: /a.json reads cleanly again', color: 'gray' });
    expect(lines[2]!.file).toBeUndefined();
  });

  it('returns the same lines when nothing changes', () => {
    const lines = nextLogLines([], pass(), 0, 8);
    expect(nextLogLines(lines, { type: 'ready', ts: TS }, 2, 8)).toBe(lines);
  });
});

describe('ReconcileLog', () => {
  it("clears a file's error line when settings-ok says it reads cleanly again", async () => {
    const events = new Subject<McpLiveEvent>();
    const { lastFrame } = render(<ReconcileLog events$={events} />);
    await tick();
    events.next({ type: 'settings-error', ts: TS, file: '/w/s.json', error: '/w/s.json:3:7: bad comma' });
    events.next(pass({ unchanged: 1 }));
    await waitFor(() => expect(plain(lastFrame())).toContain('settings error: /w/s.json:3:7'));
    events.next({ type: 'settings-ok', ts: TS, file: '/w/s.json' });
    await waitFor(() => expect(plain(lastFrame())).not.toContain('settings error'));
    expect(plain(lastFrame())).toContain('kept 1');
    expect(plain(lastFrame())).toContain('settings ok: /w/s.json reads cleanly again');
  });

  it('prints HH:MM:SS lines for the events after mount and keeps the last ones', async () => {
    const events = new Subject<McpLiveEvent>();
    const { lastFrame } = render(<ReconcileLog events$={events} max={3} />);
    await tick();
    events.next(pass({ added: ['c'], reconnected: ['b'], removed: ['d'], unchanged: 5, kept: 5, ms: 312 }));
    await waitFor(() => expect(plain(lastFrame())).toContain('14:03:09  +c ~b -d  kept 5  312 ms  (watch)'));
    events.next({ type: 'settings-error', ts: TS, file: 'f', error: 'f: oops' });
    events.next({ type: 'server', kind: 'mcp', ts: TS, name: 'a', scope: 'user', source: '', state: 'connected' });
    for (let i = 1; i <= 3; i++) events.next(pass({ generation: 1 + i, unchanged: i }));
    await waitFor(() => expect(plain(lastFrame())).toContain('kept 3'));
    const lines = plain(lastFrame()).split('\n');
    expect(lines).toEqual([
      '14:03:09  no changes  kept 1  0 ms  (watch)',
      '14:03:09  no changes  kept 2  0 ms  (watch)',
      '14:03:09  no changes  kept 3  0 ms  (watch)',
    ]);
  });

  it('renders at most about once a frame under a storm of events', async () => {
    const events = new Subject<McpLiveEvent>();
    let commits = 0;
    const { lastFrame } = render(
      <Profiler id="log" onRender={() => (commits += 1)}>
        <ReconcileLog events$={events} />
      </Profiler>,
    );
    await tick();
    commits = 0;
    // One event per macrotask, as they come from child processes (a synchronous burst would be
    // batched by React anyway).
    const started = performance.now();
    for (let i = 0; i < 200; i++) {
      events.next(pass({ generation: i, unchanged: i }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor(() => expect(plain(lastFrame())).toContain('kept 199'));
    // At most one render per 33 ms frame (plus the leading and trailing ones), however slow the machine.
    expect(commits).toBeLessThanOrEqual(Math.ceil((performance.now() - started) / 33) + 2);
    expect(commits).toBeLessThan(100);
  });
});
