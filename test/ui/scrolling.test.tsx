import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../src/model/report/status.js';
import { KEY, server, tick, tool, waitFor } from './fakeLive.js';
import { appSession } from './appSession.js';

afterEach(cleanup);

/** A server like Playwright's: 25 tools, a few restarts behind it. */
function playwright(): ServerStatus {
  const tools = Array.from({ length: 25 }, (_, i) => tool('playwright', `browser_${String(i + 1).padStart(2, '0')}`, `Browser action ${i + 1}`));
  const history = Array.from({ length: 6 }, (_, i) => ({ ts: Date.now(), state: i % 2 ? ('connected' as const) : ('connecting' as const) }));
  return server('playwright', { transport: 'stdio', tools, pid: 4242, history });
}

/** `/mcp playwright` as a user sees it: its entry and its stderr too. */
function withPlaywrightDetails(s: Awaited<ReturnType<typeof appSession>>) {
  s.steer.configs.playwright = { command: 'npx', args: ['@playwright/mcp@latest', '--headless'] };
  s.steer.stderr.playwright = Array.from({ length: 8 }, (_, i) => `playwright log line ${i + 1}`);
}

function many(n: number): ServerStatus[] {
  return Array.from({ length: n }, (_, i) => server(`srv${String(i + 1).padStart(2, '0')}`));
}

describe('everything long scrolls, and the frame stays shorter than the terminal', () => {
  it('the detail view of a server with 25 tools keeps its header on a 160×50 screen, and scrolls', async () => {
    const s = await appSession([playwright()], { columns: 160, rows: 50 });
    withPlaywrightDetails(s);
    s.type('/mcp playwright');
    await waitFor(() => expect(s.frame()).toContain('Tools (25)'));
    await waitFor(() => expect(s.frame()).toMatch(/↓ \d+ more lines · ↑↓ PgUp\/PgDn scroll/));
    const lines = s.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(49);
    // The session's header and the server's name stay on screen.
    expect(lines[0]).toContain('mcp-live');
    expect(s.frame()).toContain('● playwright connected (pid 4242)');
    expect(s.frame()).toContain('browser_01');
    expect(s.frame()).not.toContain('History');

    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('History'));
    expect(s.frame()).toContain('browser_25');
    expect(s.frame()).not.toContain('browser_01 ');
    expect(s.frame()).toContain('● playwright connected (pid 4242)');
    expect(s.frame()).toMatch(/↑ \d+ lines above · ↑↓ PgUp\/PgDn scroll/);

    s.stdin.write(KEY.home);
    await waitFor(() => expect(s.frame()).toContain('browser_01'));
    s.stdin.write(KEY.down); // a line at a time
    await waitFor(() => expect(s.frame()).toContain('↑ 1 line above'));
    s.stdin.write(KEY.pageDown);
    await waitFor(() => expect(s.frame()).toMatch(/↑ (\d\d) lines above/));
    expect(s.frame().split('\n').length).toBeLessThanOrEqual(49);
  });

  it('the detail view holds at 80×24 too', async () => {
    const s = await appSession([playwright()]);
    withPlaywrightDetails(s);
    s.type('/mcp playwright');
    await waitFor(() => expect(s.frame()).toMatch(/↓ \d+ more lines · ↑↓ PgUp\/PgDn scroll/));
    const lines = s.frame().split('\n');
    expect(lines.length).toBeLessThanOrEqual(23);
    expect(lines[0]).toContain('mcp-live');
    expect(s.frame()).toContain('● playwright connected');
    expect(lines.at(-1)).toContain('Esc back');
    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('History'));
  });

  it('/tools shows every tool: its output scrolls with PgUp/PgDn/Home/End, Esc closes it', async () => {
    const s = await appSession([playwright()]);
    s.type('/tools');
    await waitFor(() => expect(s.frame()).toContain('25 tools:'));
    await waitFor(() => expect(s.frame()).toMatch(/↓ \d+ more lines · PgUp\/PgDn scroll · Esc close/));
    expect(s.frame()).not.toContain('more lines …');
    expect(s.frame()).not.toContain('mcp__playwright__browser_25');
    expect(s.frame().split('\n').length).toBeLessThanOrEqual(23);

    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('mcp__playwright__browser_25  Browser action 25'));
    expect(s.frame()).not.toContain('25 tools:');
    s.stdin.write(KEY.pageUp);
    await waitFor(() => expect(s.frame()).not.toContain('browser_25'));
    s.stdin.write(KEY.home);
    await waitFor(() => expect(s.frame()).toContain('25 tools:'));
    s.stdin.write(KEY.pageDown);
    await waitFor(() => expect(s.frame()).not.toContain('25 tools:'));

    // The arrows still select in the list above.
    s.stdin.write(KEY.escape);
    await waitFor(() => expect(s.frame()).not.toContain('browser_'));
    expect(s.frame()).toContain('› ● playwright');
  });

  it('a new command output starts at its top', async () => {
    const s = await appSession([playwright()]);
    s.type('/tools');
    await waitFor(() => expect(s.frame()).toContain('25 tools:'));
    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).not.toContain('25 tools:'));
    s.type('/tools');
    await waitFor(() => expect(s.frame()).toContain('25 tools:'));
  });

  it('the selected row of a long list is always in view, and PgUp/PgDn/Home/End move it', async () => {
    const s = await appSession(many(40));
    await waitFor(() => expect(s.frame()).toMatch(/↓ \d+ more lines · PgUp\/PgDn scroll/));
    expect(s.frame()).toContain('40 connected · 0 need approval · 0 errors');
    expect(s.frame().split('\n').length).toBeLessThanOrEqual(23);
    for (let i = 0; i < 25; i++) s.stdin.write(KEY.down);
    await waitFor(() => expect(s.frame()).toContain('› ● srv26'));
    expect(s.frame()).not.toContain('srv01');
    // The footer stays.
    expect(s.frame()).toContain('40 connected · 0 need approval · 0 errors');

    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('› ● srv40'));
    s.stdin.write(KEY.home);
    await waitFor(() => expect(s.frame()).toContain('› ● srv01'));
    expect(s.frame()).not.toContain('srv40');
    s.stdin.write(KEY.pageDown);
    await waitFor(() => expect(s.frame()).not.toContain('› ● srv01'));
    const selected = /› ● (srv\d\d)/.exec(s.frame())?.[1];
    expect(Number(selected?.slice(3))).toBeGreaterThan(5);
    s.stdin.write(KEY.enter);
    await waitFor(() => expect(s.frame()).toContain(`● ${selected} connected`));
  });

  it('a long error in a row is cut at the edge, one row a server', async () => {
    const s = await appSession([server('bad', { state: 'error', error: `spawn failed: ${'x'.repeat(200)}` }), ...many(2)]);
    const row = s.frame().split('\n').find((l) => l.includes('bad')) ?? '';
    expect(row.length).toBeLessThanOrEqual(80);
    expect(s.frame()).toMatch(/bad.*\n.*srv01/);
  });

  it('the selection stays in view when the screen gets shorter', async () => {
    const s = await appSession(many(40), { rows: 50 });
    for (let i = 0; i < 30; i++) s.stdin.write(KEY.down);
    await waitFor(() => expect(s.frame()).toContain('› ● srv31'));
    Object.defineProperty(s.stdout, 'rows', { value: 24, configurable: true });
    s.stdout.emit('resize');
    await waitFor(() => expect(s.frame().split('\n').length).toBeLessThanOrEqual(23));
    await tick();
    expect(s.frame()).toContain('› ● srv31');
  });
});
