import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/sinks/ui/App.js';
import { fakeLive, KEY, pendingApproval, plain, tick } from './fakeLive.js';

afterEach(cleanup);

/** The App with a fake session; the dialog is tested where it lives (visibility is the App's). */
function session(init: Parameters<typeof fakeLive>[0] = {}) {
  const fake = fakeLive(init);
  const ui = render(<App live={fake.live} onExit={() => undefined} />);
  const frame = () => plain(ui.lastFrame());
  return { ...fake, ...ui, frame };
}

describe('ApprovalDialog', () => {
  it('appears when a server becomes pending mid-session and disappears when the set empties', async () => {
    const s = session();
    await tick();
    expect(s.frame()).not.toContain('Approve MCP server');

    s.pending.next([pendingApproval('gamma', { target: 'npx -y gamma-mcp', source: '/w/.mcp.json', scope: 'project' })]);
    await vi.waitFor(() => expect(s.frame()).toContain('Approve MCP server “gamma”?'));
    const frame = s.frame();
    expect(frame).toContain('(1 of 1)');
    expect(frame).toMatch(/scope\s+project/);
    expect(frame).toMatch(/source\s+\/w\/\.mcp\.json/);
    expect(frame).toMatch(/command\s+npx -y gamma-mcp/);

    s.pending.next([]);
    await vi.waitFor(() => expect(s.frame()).not.toContain('Approve MCP server'));
  });

  it('shows a URL target as url and counts the pending set', async () => {
    const s = session({
      pending: [pendingApproval('remote', { target: 'https://mcp.example.com/mcp' }), pendingApproval('other')],
    });
    await vi.waitFor(() => expect(s.frame()).toContain('(1 of 2)'));
    expect(s.frame()).toMatch(/url\s+https:\/\/mcp\.example\.com\/mcp/);
  });

  it.each([
    ['a', 'approve', ['x', { persist: true }]],
    ['s', 'approve', ['x', { persist: false }]],
    ['A', 'approveAllPending', []],
    ['r', 'reject', ['x']],
  ] as const)('key %s calls %s', async (key, method, args) => {
    const s = session({ pending: [pendingApproval('x'), pendingApproval('y')] });
    await vi.waitFor(() => expect(s.frame()).toContain('“x”'));
    s.stdin.write(key);
    await vi.waitFor(() => expect(s.callsOf(method)).toEqual([args]));
    // No other decision was taken.
    expect(s.calls.filter((c) => ['approve', 'approveAllPending', 'reject'].includes(c.method))).toHaveLength(1);
  });

  it('moves on to the next server once the rejected one leaves the pending set', async () => {
    const s = session({ pending: [pendingApproval('x'), pendingApproval('y')] });
    await vi.waitFor(() => expect(s.frame()).toContain('“x”'));
    s.stdin.write('r');
    await vi.waitFor(() => expect(s.callsOf('reject')).toEqual([['x']]));
    s.pending.next([pendingApproval('y')]);
    await vi.waitFor(() => expect(s.frame()).toContain('“y”'));
    expect(s.frame()).toContain('(1 of 1)');
    expect(s.frame()).not.toContain('“x”');
  });

  it('Esc hides the dialog until the set changes', async () => {
    const s = session({ pending: [pendingApproval('x')] });
    await vi.waitFor(() => expect(s.frame()).toContain('“x”'));
    s.stdin.write(KEY.escape);
    await vi.waitFor(() => expect(s.frame()).not.toContain('Approve MCP server'));
    expect(s.frame()).toContain('x waits for approval: /approve NAME or /reject NAME');
    s.pending.next([pendingApproval('x')]); // same set again: stays hidden
    await tick(100);
    expect(s.frame()).not.toContain('Approve MCP server');
    s.pending.next([pendingApproval('x'), pendingApproval('z')]);
    await vi.waitFor(() => expect(s.frame()).toContain('(1 of 2)'));
  });

  it('answers a question once: until the set changes, further keys write nothing', async () => {
    const s = session({ pending: [pendingApproval('x')] });
    await vi.waitFor(() => expect(s.frame()).toContain('“x”'));
    s.stdin.write('a');
    s.stdin.write('a'); // same chunk of input, before any render
    await vi.waitFor(() => expect(s.frame()).toContain('waiting for the reconcile pass'));
    s.stdin.write('r');
    await tick();
    expect(s.calls.filter((c) => c.method === 'approve' || c.method === 'reject')).toEqual([
      { method: 'approve', args: ['x', { persist: true }] },
    ]);
    s.pending.next([pendingApproval('x', { hash: 'edited' })]); // its config changed: asked again
    await vi.waitFor(() => expect(s.frame()).toContain('r reject'));
  });

  it('shows a failed decision inline', async () => {
    const s = session({ pending: [pendingApproval('x')] });
    s.steer.approveError = new Error('approvals file is locked');
    await vi.waitFor(() => expect(s.frame()).toContain('“x”'));
    s.stdin.write('a');
    await vi.waitFor(() => expect(s.frame()).toContain('✖ approvals file is locked'));
    expect(s.frame()).toContain('Approve MCP server “x”?');
  });

  it('keeps typed keys away from the command line while it shows', async () => {
    const s = session({ pending: [pendingApproval('x')] });
    await vi.waitFor(() => expect(s.frame()).toContain('“x”'));
    s.stdin.write('/');
    s.stdin.write('q');
    await tick();
    expect(s.frame()).not.toContain('› /q');
  });
});
