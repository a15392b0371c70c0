import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerList } from '../../src/hosts/ui/lists/ServerList.js';
import { countServers } from '../../src/hosts/ui/text/serverSummary.js';
import { UNTRUSTED_IGNORED_DETAIL } from '../../src/model/admission/admit.js';
import { KEY, plain, server, tick, tool, waitFor } from './fakeLive.js';

afterEach(cleanup);

const blocked = (name: string, patch: Parameters<typeof server>[1]) => server(name, { state: 'blocked', ...patch });

describe('ServerList', () => {
  it('shows every reason in words', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[
          blocked('pend', { scope: 'workspace', reason: 'pending_approval' }),
          blocked('rej', { scope: 'project', reason: 'rejected' }),
          blocked('excl', { reason: 'excluded' }),
          blocked('flagged', { reason: 'not_allowed', notAllowedBy: 'flag' }),
          blocked('unlisted', { reason: 'not_allowed', notAllowedBy: 'settings' }),
          blocked('untrusted', { scope: 'workspace', reason: 'untrusted_folder' }),
          server('broken', { state: 'error', error: 'spawn nope ENOENT' }),
        ]}
      />,
    );
    const frame = plain(lastFrame());
    const row = (name: string) => frame.split('\n').find((l) => l.includes(` ${name} `)) ?? '';
    expect(row('pend')).toContain('needs approval');
    expect(row('rej')).toContain('rejected – edit its config to be asked again');
    expect(row('excl')).toContain('excluded by mcp.excluded');
    expect(row('flagged')).toContain('not in --allowed-mcp-server-names');
    expect(row('unlisted')).toContain('not in mcp.allowed');
    expect(row('untrusted')).toContain('untrusted folder');
    expect(row('broken')).toContain('spawn nope ENOENT');
  });

  it('an ignored repository server in an untrusted folder says so, not "removed" (decision 260)', () => {
    const { lastFrame } = render(
      <ServerList servers={[blocked('repo', { scope: 'project', reason: 'untrusted_folder', detail: UNTRUSTED_IGNORED_DETAIL })]} />,
    );
    expect(plain(lastFrame())).toMatch(/ repo\s+project\s+ignored: folder not trusted – run `mcp-live trust` to read its settings/);
  });

  it('a removed server keeps its row for a while, then joins one "removed" line (decision 262)', async () => {
    const removed = (name: string, ts: number) =>
      server(name, { state: 'disconnected', reason: 'removed', history: [{ ts: ts - 5000, state: 'connected' }, { ts, state: 'disconnected' }] });
    const now = Date.now();
    const { lastFrame } = render(
      <ServerList servers={[server('kept'), removed('old1', now - 10_000), removed('old2', now - 9000), removed('fresh', now)]} removedCollapseMs={400} />,
    );
    const rowOf = (name: string) => plain(lastFrame()).split('\n').find((l) => l.includes(` ${name} `));
    expect(plain(lastFrame())).toContain('○ removed from settings: old1, old2');
    expect(rowOf('old1')).toBeUndefined();
    expect(rowOf('fresh')).toContain('removed from settings');
    expect(rowOf('kept')).toContain('0 tools');
    // No render forced by anything else: the list's own timer folds the fresh one when it is due.
    await waitFor(() => expect(plain(lastFrame())).toContain('○ removed from settings: old1, old2, fresh'), { timeout: 10_000 });
    expect(rowOf('fresh')).toBeUndefined();
  });

  it('shows name, scope, icon and counts for a connected server', () => {
    const { lastFrame } = render(
      <ServerList servers={[server('alpha', { tools: [tool('alpha', 'a'), tool('alpha', 'b')], prompts: [{ name: 'p' }] })]} />,
    );
    const frame = plain(lastFrame());
    expect(frame).toMatch(/● alpha\s+user\s+2 tools · 1 prompt/);
  });

  it('lists an idle server with its counts and why it has no process, counted with the connected ones', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[
          server('lazy', { state: 'idle', idle: 'lazy', tools: [tool('lazy', 'a')] }),
          server('pinned', { tools: [tool('pinned', 'a')], withheld: ['b', 'c'] }),
        ]}
      />,
    );
    const frame = plain(lastFrame());
    expect(frame).toMatch(/lazy\s+user\s+1 tool · 0 prompts · lazy — starts on first use/);
    expect(frame).toMatch(/pinned\s+user\s+1 tool · 0 prompts · 2 withheld/);
    expect(frame).toContain('2 connected (1 idle)');
  });

  it('shows a state icon per state, and a spinner while connecting', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[
          server('on'),
          server('wait', { state: 'connecting' }),
          server('bad', { state: 'error', error: 'x' }),
          server('off', { state: 'disconnected' }),
          blocked('gate', { reason: 'pending_approval' }),
        ]}
      />,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain('● on');
    expect(frame).toMatch(/◌ wait\s+user\s+[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] connecting/);
    expect(frame).toContain('✖ bad');
    expect(frame).toContain('○ off');
    expect(frame).toContain('⊘ gate');
  });

  it('does not count approval-skipped or blocked servers as errors, and gives no error hint without one', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[
          server('ok'),
          blocked('pend', { scope: 'workspace', reason: 'pending_approval' }),
          blocked('rej', { scope: 'project', reason: 'rejected' }),
          blocked('excl', { reason: 'excluded' }),
        ]}
      />,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain('1 connected · 1 need approval · 0 errors');
    expect(frame).not.toContain('view error logs');
  });

  it('counts a real error and hints at its logs', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[blocked('pend', { reason: 'pending_approval' }), server('crashy', { state: 'error', error: 'exited with code 1' })]}
      />,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain('0 connected · 1 need approval · 1 error');
    expect(frame).toContain('view error logs with /mcp crashy');
  });

  it('moves the selection with the arrow keys and opens the selected row with Enter', async () => {
    const onOpen = vi.fn();
    const { stdin, lastFrame } = render(<ServerList servers={[server('a'), server('b'), server('c')]} onOpen={onOpen} />);
    await tick();
    expect(plain(lastFrame())).toMatch(/› ● a/);
    stdin.write(KEY.down);
    await waitFor(() => expect(plain(lastFrame())).toMatch(/› ● b/));
    stdin.write(KEY.down);
    stdin.write(KEY.down); // stays on the last row
    await waitFor(() => expect(plain(lastFrame())).toMatch(/› ● c/));
    stdin.write(KEY.up);
    await waitFor(() => expect(plain(lastFrame())).toMatch(/› ● b/));
    stdin.write(KEY.enter);
    await waitFor(() => expect(onOpen).toHaveBeenCalledWith('b'));
  });

  it('ignores keys while inactive', async () => {
    const onOpen = vi.fn();
    const { stdin } = render(<ServerList servers={[server('a')]} onOpen={onOpen} isActive={false} />);
    await tick();
    stdin.write(KEY.enter);
    await tick();
    expect(onOpen).not.toHaveBeenCalled();
  });
});

describe('countServers', () => {
  it('counts connected, promptable and failed servers apart', () => {
    expect(
      countServers([
        server('a'),
        server('b', { state: 'error', error: 'e' }),
        server('c', { state: 'blocked', reason: 'pending_approval' }),
        server('d', { state: 'blocked', reason: 'rejected' }),
        server('e', { state: 'error', error: 'e' }),
      ]),
    ).toEqual({ connected: 1, idle: 0, needApproval: 1, errors: 2, firstError: 'b' });
  });
});
