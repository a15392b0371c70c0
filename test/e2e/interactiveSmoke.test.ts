import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CLI, processesMentioning, ROOT } from './cliSession.js';
import { TmuxTerminal } from './tmuxTerminal.js';
import { linuxOnly } from '../platforms.js';
import { deadline } from '../deadlines.js';

/**
 * The real CLI in a real terminal: tmux runs `mcp-live --demo` (on a copy of the demo, inside the
 * package so the demo servers resolve its node_modules), we type and read the screen.
 */
const SESSION = `mcp-live-smoke-${process.pid}`;
const COPY = join(ROOT, '.tmp-test', `demo-${process.pid}`);

const terminal = new TmuxTerminal(SESSION);
const tmux = (...args: string[]): string => terminal.tmux(...args);
const waitForScreen = (pred: (s: string) => boolean, what: string): Promise<string> => terminal.waitForScreen(pred, what);

/** Processes whose command line mentions the demo copy: the demo's MCP servers. */
function demoServers(): string[] {
  return processesMentioning(COPY)
    .filter((p) => p.command.includes('/servers/'))
    .map((p) => `${p.pid} ${p.command}`);
}

afterAll(() => {
  terminal.kill();
  rmSync(COPY, { recursive: true, force: true });
});

linuxOnly('tmux, /proc').describe('interactive session in a terminal (tmux)', () => {
  it('starts the demo, approves through the dialog, follows an edit, and /quit leaves no process behind', async () => {
    expect(TmuxTerminal.available(), 'tmux is needed for this test (.ci/run installs it)').toBe(true);
    mkdirSync(join(ROOT, '.tmp-test'), { recursive: true });
    cpSync(join(ROOT, 'examples/demo'), COPY, { recursive: true });
    rmSync(join(COPY, 'home/.qwen/mcpApprovals.json'), { force: true });

    tmux(
      'new-session', '-d', '-s', SESSION, '-x', '150', '-y', '45',
      `MCP_LIVE_DEMO_ROOT=${COPY} ${process.execPath} ${CLI} --demo --debounce 100; echo "EXITED $?"; sleep 600`,
    );

    // The servers come up, the gated one asks.
    let s = await waitForScreen(
      (x) => /● notes/.test(x) && /● clock/.test(x) && /● forecast/.test(x) && /● words/.test(x) && /Approve MCP server/.test(x),
      'servers up and the dialog',
    );
    expect(s).toMatch(/⊘ legacy\s+user\s+excluded by mcp\.excluded/);
    expect(s).toMatch(/⊘ repo-helper\s+project\s+needs approval/);
    expect(s).toContain(join(COPY, 'workspace/.mcp.json'));
    expect(s).toMatch(/4 connected · 1 need approval · 0 errors/);
    // The demo's language server, in a section of its own (decision 157).
    expect(s).toMatch(/Language servers[\s\S]*● words\s+user\s+markdown, plaintext · \d+ capabilities · pid \d+/);

    // Approve with a keystroke: Enter chooses the highlighted option, "approve" (decision 73).
    expect(s).toMatch(/› 1\. Approve \(remembered\)/);
    tmux('send-keys', '-t', SESSION, 'Enter');
    s = await waitForScreen((x) => /● repo-helper/.test(x) && /\+repo-helper/.test(x), 'repo-helper connected and its pass logged');
    expect(s).not.toMatch(/Approve MCP server/);

    // Edit a settings file: only clock restarts.
    const settings = join(COPY, 'home/.qwen/settings.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('Europe/Berlin', 'Asia/Tokyo'));
    // `kept 4`: notes, forecast, words and repo-helper ran on; the excluded legacy is not counted (decision 329).
    await waitForScreen((x) => /~clock\s+kept 4/.test(x), 'the reconcile line of the edit');
    // The language server's settings: applied to it in place, nothing else touched.
    const wordsPid = /● words .* pid (\d+)/.exec(await waitForScreen((x) => /● words/.test(x), 'words listed'))![1];
    writeFileSync(settings, readFileSync(settings, 'utf8').replace('"flag": ["TODO"]', '"flag": ["TODO", "FIXME"]'));
    s = await waitForScreen((x) => /~lsp:words\s+kept 4/.test(x), 'the language server updated in place');
    expect(s).toContain(`pid ${wordsPid}`);
    // The agent's lsp__ tools, through the same command line as MCP tools.
    tmux('send-keys', '-t', SESSION, '/call lsp__diagnostics {"file": "notes.md"}', 'Enter');
    s = await waitForScreen((x) => /notes\.md:10:1 warning \[words\] "FIXME" left in the text/.test(x), 'the diagnostics with the new settings');
    expect(s).toMatch(/notes\.md:9:1 warning \[words\] "TODO" left in the text/);

    // A command: call a tool.
    tmux('send-keys', '-t', SESSION, '/call mcp__clock__now {}', 'Enter');
    await waitForScreen((x) => /GMT\+9/.test(x), 'the tool result');

    // A screen shorter than the session: the frame shrinks to fit below its height (decision 74),
    // the header stays on top, the command line at the bottom.
    tmux('resize-window', '-t', SESSION, '-y', '14');
    s = await waitForScreen((x) => /↓ \d+ more lines · PgUp\/PgDn scroll/.test(x), 'the list scrolled to fit 14 rows');
    expect(s.split('\n')[0]).toMatch(/^mcp-live {2}/);
    expect(s).toContain('type / for commands');

    tmux('send-keys', '-t', SESSION, '/quit', 'Enter');
    s = await waitForScreen((x) => /EXITED 0/.test(x), 'a clean exit');
    // The shell goes on below the UI, on a line of its own: not after the key hint on its last
    // line (Ink writes a frame as tall as the terminal without its final line break).
    const rows = s.split('\n');
    const exited = rows.findIndex((row) => row.includes('EXITED 0'));
    expect(rows[exited]).toBe('EXITED 0');
    expect(rows[exited - 1]).toContain('Ctrl-C quit');
    // Exits are asynchronous: give them the patience the other process checks give (3 s).
    const giveUpAt = Date.now() + deadline(3_000);
    while (demoServers().length > 0 && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 50));
    expect(demoServers()).toEqual([]);
    // What the run wrote for itself went to its temp directory, not beside the demo's settings (decision 328).
    expect(readdirSync(join(COPY, 'home/.qwen')).sort()).toEqual(['settings.json']);
  });
});
