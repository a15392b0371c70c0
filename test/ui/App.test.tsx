import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/hosts/ui/App.js';
import { fakeLive, KEY, pendingApproval, plain, server, tick, tool, waitFor } from './fakeLive.js';

afterEach(cleanup);

function session(servers = [server('alpha', { tools: [tool('alpha', 'echo', 'Echoes')] }), server('beta', { scope: 'workspace', state: 'blocked', reason: 'pending_approval' })]) {
  const fake = fakeLive({ servers });
  const onExit = vi.fn();
  fake.steer.stderr.alpha = ['alpha says hi'];
  const ui = render(<App live={fake.live} onExit={onExit} />);
  const frame = () => plain(ui.lastFrame());
  const type = async (...keys: string[]) => {
    for (const k of keys) {
      ui.stdin.write(k);
      await tick(5);
    }
  };
  return { ...fake, ...ui, onExit, frame, type };
}

describe('App', () => {
  it('shows the servers and follows servers$', async () => {
    const s = session();
    await waitFor(() => expect(s.frame()).toMatch(/● alpha\s+user\s+1 tool/));
    expect(s.frame()).toContain('1 connected · 1 need approval · 0 errors');
    s.setServers([server('alpha', { state: 'error', error: 'exited with code 2' })]);
    await waitFor(() => expect(s.frame()).toContain('✖ alpha'));
    expect(s.frame()).toContain('view error logs with /mcp alpha');
  });

  it('says it is reading settings until the first pass, then that none are configured', async () => {
    const s = session([]);
    await waitFor(() => expect(s.frame()).toContain('reading settings…'));
    s.events.next({ type: 'ready', ts: Date.now() });
    await waitFor(() => expect(s.frame()).toContain('No MCP servers configured.'));
  });

  it('/call of a missing tool shows the reason and the fix', async () => {
    const s = session();
    await tick();
    await s.type('/call mcp__beta__search {}', KEY.enter);
    await waitFor(() =>
      expect(s.frame()).toContain('Tool "mcp__beta__search" is not available: MCP server "beta" needs approval – approve it with /mcp.'),
    );
    expect(s.callsOf('tools.call')).toEqual([]);
  });

  it('/call of an available tool shows its result', async () => {
    const s = session();
    await tick();
    await s.type('/call mcp__alpha__echo {"text":"ping"}', KEY.enter);
    await waitFor(() => expect(s.frame()).toMatch(/^pong$/m));
    expect(s.callsOf('tools.call')).toEqual([['mcp__alpha__echo', { text: 'ping' }]]);
  });

  it('opens the selected server with Enter, goes back with Esc', async () => {
    const s = session();
    await waitFor(() => expect(s.frame()).toContain('› ● alpha'));
    await s.type(KEY.down, KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('Tools (0)'));
    expect(s.frame()).toMatch(/reason\s+needs approval/);
    await s.type(KEY.escape);
    await waitFor(() => expect(s.frame()).toContain('1 connected · 1 need approval'));
  });

  it('/mcp NAME shows the detail with its stderr tail; /mcp the list again', async () => {
    const s = session();
    await tick();
    await s.type('/mcp alpha', KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('echo mcp__alpha__echo — Echoes'));
    expect(s.frame()).toContain('alpha says hi');
    await s.type('/mcp', KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('1 connected · 1 need approval'));
  });

  it('the detail view shows the entry as written, with env and header values masked', async () => {
    const s = session();
    s.steer.configs.alpha = { command: 'node', args: ['srv.mjs'], env: { API_TOKEN: 'sk-live-123456' }, headers: { Authorization: 'Bearer abcdef123' } };
    await tick();
    await s.type('/mcp alpha', KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('API_TOKEN'));
    expect(s.frame()).toContain('srv.mjs');
    expect(s.frame()).not.toContain('sk-live-123456');
    expect(s.frame()).not.toContain('abcdef123');
  });

  it('arrows browse the history while a line is typed, and select rows while it is empty', async () => {
    const s = session();
    await tick();
    await s.type('/reload', KEY.enter);
    await waitFor(() => expect(s.callsOf('reload')).toHaveLength(1));
    await s.type(KEY.down);
    await waitFor(() => expect(s.frame()).toContain('› ⊘ beta'));
    await s.type('/', KEY.up);
    await waitFor(() => expect(s.frame()).toContain('› /reload'));
    expect(s.frame()).toContain('› ⊘ beta'); // the list kept its selection
  });

  it('gives each key to one place, even several keys in one chunk', async () => {
    const s = session();
    await tick();
    // Enter submits the line (typed before any render); it must not also open the selected server.
    s.stdin.write('/reload');
    s.stdin.write(KEY.enter);
    await waitFor(() => expect(s.callsOf('reload')).toHaveLength(1));
    await tick();
    expect(s.frame()).toContain('1 connected · 1 need approval');
    // ↓ then ⏎ before any render: the second row opens.
    s.stdin.write(`${KEY.down}${KEY.enter}`);
    await waitFor(() => expect(s.frame()).toMatch(/reason\s+needs approval/));
  });

  it('shows the reconcile log', async () => {
    const s = session();
    await tick();
    s.events.next({
      type: 'reconcile',
      ts: Date.now(),
      generation: 2,
      trigger: 'watch',
      added: ['c'],
      removed: ['d'],
      reconnected: ['b'],
      updated: [],
      unchanged: 5,
      kept: 5,
      blocked: [],
      ms: 312,
    });
    await waitFor(() => expect(s.frame()).toMatch(/\d\d:\d\d:\d\d {2}\+c ~b -d {2}kept 5 {2}312 ms {2}\(watch\)/));
  });

  it('an unknown command gets a clear message', async () => {
    const s = session();
    await tick();
    await s.type('/frob', KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('Unknown command "/frob" — type /help for the list.'));
  });

  it('Ctrl-C and /quit call onExit', async () => {
    const a = session();
    await tick();
    await a.type(KEY.ctrlC);
    expect(a.onExit).toHaveBeenCalledTimes(1);
    const b = session();
    await tick();
    await b.type('/quit', KEY.enter);
    await waitFor(() => expect(b.onExit).toHaveBeenCalledTimes(1));
  });

  describe('the approval dialog put off with Esc (decision 330)', () => {
    const CTRL_O = '\u000F';
    const withPending = () => {
      const s = session([
        server('alpha', { tools: [tool('alpha', 'echo', 'Echoes')] }),
        server('beta', { scope: 'workspace', state: 'blocked', reason: 'pending_approval' }),
        server('gamma', { scope: 'workspace', state: 'blocked', reason: 'pending_approval' }),
      ]);
      // gamma first in the set: `a` in beta's detail must ask about beta.
      s.pending.next([pendingApproval('gamma'), pendingApproval('beta')]);
      return s;
    };

    it('comes back with Ctrl-O, which the footer names while something waits', async () => {
      const s = withPending();
      await waitFor(() => expect(s.frame()).toContain('Approve MCP server “gamma”?'));
      await s.type(KEY.escape);
      await waitFor(() => expect(s.frame()).not.toContain('Approve MCP server'));
      expect(s.frame()).toContain('gamma, beta wait for approval: Ctrl-O to review');
      await s.type(CTRL_O);
      await waitFor(() => expect(s.frame()).toContain('Approve MCP server “gamma”?'));
      expect(s.frame()).toContain('Esc later, Ctrl-O back');
      // Put off again, it stays off until asked for.
      await s.type(KEY.escape);
      await waitFor(() => expect(s.frame()).not.toContain('Approve MCP server'));
      await tick();
      expect(s.frame()).not.toContain('Approve MCP server');
      expect(s.callsOf('approvals.approve')).toEqual([]);
    });

    /** The dialog put off, then beta's row (second), Enter: the detail of a server that waits. */
    async function pendingDetail() {
      const s = withPending();
      await waitFor(() => expect(s.frame()).toContain('Approve MCP server “gamma”?'));
      await s.type(KEY.escape);
      await waitFor(() => expect(s.frame()).not.toContain('Approve MCP server'));
      await s.type(KEY.down, KEY.enter);
      await waitFor(() => expect(s.frame()).toMatch(/reason\s+needs approval/));
      return s;
    }

    it("`a` in a pending server's detail opens the dialog on that server, and approves the hash it shows", async () => {
      const s = await pendingDetail();
      // Its footer says what `a` does.
      expect(s.frame()).toContain('a approve… · Esc back');
      await s.type('a');
      await waitFor(() => expect(s.frame()).toContain('Approve MCP server “beta”?'));
      expect(s.frame()).toContain('node beta-server.mjs');
      await s.type('a');
      await waitFor(() => expect(s.callsOf('approvals.approve')).toEqual([['beta', { persist: true, hash: 'hash-beta' }]]));
    });

    it('a typed line keeps its letters: `a` is a key of the detail view only on an empty line', async () => {
      const s = await pendingDetail();
      await s.type('/a', 'a');
      await waitFor(() => expect(s.frame()).toContain('/aa'));
      expect(s.frame()).not.toContain('Approve MCP server');
      // The detail of a server that does not wait leaves `a` to the line.
      await s.type('\u0015', KEY.escape, KEY.up, KEY.enter);
      await waitFor(() => expect(s.frame()).toContain('Tools (1)'));
      await s.type('a');
      await waitFor(() => expect(s.frame()).toMatch(/^› a/m));
      expect(s.frame()).not.toContain('Approve MCP server');
    });
  });
});

