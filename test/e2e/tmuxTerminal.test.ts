import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { waitForExit } from '../integration/processes.js';
import { posixOnly } from '../platforms.js';
import { TmuxTerminal } from './tmuxTerminal.js';

/**
 * The terminal kit's tmux server is its own (decision 317): with TMUX_TMPDIR pointing to an empty
 * directory, a whole session — start, type, read, kill — leaves that directory empty (the default
 * server would have made `tmux-<uid>/default` in it), and the kill ends the server and its pane.
 */
posixOnly('tmux').describe('the tmux terminal kit', () => {
  it('runs on a private socket, never on the default server, and kill() ends it and removes its directory', async ({ onTestFinished }) => {
    expect(TmuxTerminal.available(), 'tmux is needed for this test (.ci/run installs it)').toBe(true);
    const defaultDir = mkdtempSync(join(tmpdir(), 'mcp-live-tmux-default-'));
    const before = process.env.TMUX_TMPDIR;
    process.env.TMUX_TMPDIR = defaultDir;
    const terminal = new TmuxTerminal(`kit-check-${process.pid}`);
    onTestFinished(() => {
      terminal.kill();
      if (before === undefined) delete process.env.TMUX_TMPDIR;
      else process.env.TMUX_TMPDIR = before;
      rmSync(defaultDir, { recursive: true, force: true });
    });

    terminal.tmux('new-session', '-d', '-s', terminal.session, '-x', '100', '-y', '10', 'sh');
    const pane = Number(terminal.tmux('display-message', '-p', '-t', terminal.session, '#{pane_pid}').trim());
    terminal.type('echo "answer $((6 * 7)) on $TMUX"');
    const screen = await terminal.waitForScreen((s) => /answer 42 on /.test(s), 'the echo in the pane');
    // The pane's own tmux is the private server.
    expect(screen.replace(/\n/g, '')).toContain(`answer 42 on ${terminal.socket}`);
    expect(existsSync(terminal.socket)).toBe(true);
    // Nothing of the default server: no socket directory where it would be.
    expect(readdirSync(defaultDir)).toEqual([]);
    expect(spawnSync('tmux', ['has-session', '-t', terminal.session], { env: { ...process.env, TMUX: undefined } }).status).not.toBe(0);

    terminal.kill();
    expect(await waitForExit(pane)).toBe(true);
    expect(existsSync(terminal.dir)).toBe(false);
    expect(spawnSync('tmux', ['-S', terminal.socket, 'has-session', '-t', terminal.session]).status).not.toBe(0);
  });
});
