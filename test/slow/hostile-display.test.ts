import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, expect, it } from 'vitest';
import { CLI, Workspace } from '../e2e/cliSession.js';
import { TmuxTerminal } from '../e2e/tmuxTerminal.js';
import { isAlive, waitForExit, waitForNoLeftovers } from '../integration/processes.js';
import { linuxOnly } from '../platforms.js';
import { MB, fixturePath, mb, report, waitUntil } from './kit.js';
import { deadline } from '../deadlines.js';

/**
 * Hostile display and hostile servers at once (decisions 161–194): a repository plants entries
 * whose every value tries to redraw the approval dialog (CR overwrite, SGR 8 conceal, cursor-up
 * and erase-line, OSC 8/52/0, the 8-bit CSI, RLO), a user server is hostile in every text it
 * sends (name, version, instructions, tool description, stderr), an HTTP server answers
 * `tools/list` with one endless SSE event, another with an endless JSON body, and a stdio server
 * writes one endless line. The interactive session runs in a real terminal (tmux) whose every
 * byte is logged (`pipe-pane`). Asserted: none of the planted sequences reaches the terminal raw
 * (nor the pane's title), the dialog shows the overwritten part, the CLI's peak memory stays
 * under 500 MB, the session keeps answering, and a kill switch (`mcp.excluded`) ends a healthy
 * server within debounce + a few hundred ms.
 */

const ESC = '\x1b';
const BEL = '\x07';
const DEBOUNCE_MS = 100;
const SESSION = `mcp-live-hostile-display-${process.pid}`;
const TITLE = 'mcp-live-hostile-title';
const SELF_TEST = 'raw-log-self-test';

/** Sequences the repository and the servers plant; the terminal must never receive any of them. */
const PLANTED = {
  'OSC 52 (clipboard)': `${ESC}]52;`,
  'OSC 0 (title)': `${ESC}]0;`,
  'OSC 8 (hyperlink)': `${ESC}]8;`,
  'SGR 8 (conceal)': `${ESC}[8m`,
  '8-bit CSI': '\u009b',
  RLO: '\u202e',
  'CR overwrite': '3000\r',
};
const CR_OVERWRITE = `server.js --port 3000\r${ESC}[8mnode -e evil`;
const ATTACKS = `${ESC}[1A${ESC}[2K ${ESC}]8;;https://evil.example${BEL}x${ESC}]8;;${BEL} ${ESC}]52;c;ZXZpbA==${BEL} ${ESC}]0;pwned${BEL} \u009b2J \u202eevil`;

const terminal = new TmuxTerminal(SESSION, ['-J', '-S', '-200']);
const tmux = (...args: string[]): string => terminal.tmux(...args);
const waitForScreen = (pred: (s: string) => boolean, what: string): Promise<string> => terminal.waitForScreen(pred, what, 60_000);

/** The peak resident memory of a process so far (Linux `VmHWM`), in bytes. */
function peakRss(pid: number): number {
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
}

const hostileHttp: ChildProcess[] = [];
async function startHostileHttp(mode: string): Promise<string> {
  const child = spawn(process.execPath, [fixturePath('hostile-http-server.mjs'), '--mode', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  hostileHttp.push(child);
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return `http://127.0.0.1:${/^listening (\d+)$/.exec(line)![1]}/mcp`;
}

let ws: Workspace | undefined;
afterEach(async () => {
  terminal.kill();
  await Promise.all(
    hostileHttp.splice(0).map((child) => {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
      child.kill('SIGKILL');
      return exited;
    }),
  );
  ws?.cleanup();
  ws = undefined;
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

linuxOnly('tmux, /proc memory figures').describe('hostile display and hostile servers', () => {
  it('nothing raw reaches the terminal, memory stays bounded, the session lives, kill switches apply', async () => {
    expect(TmuxTerminal.available(), 'tmux is needed for this test (.ci/run installs it)').toBe(true);
    ws = new Workspace();
    const w = ws;
    const [sse, json] = await Promise.all([startHostileHttp('sse'), startHostileHttp('json')]);
    const goodLog = join(w.root, 'good.log');
    writeFileSync(goodLog, '');
    const userSettings = {
      mcpServers: {
        good: { command: process.execPath, args: [fixturePath('tiny-server.mjs'), '--start-log', goodLog] },
        hostile: { command: process.execPath, args: [fixturePath('hostile-text-server.mjs')] },
        dying: { command: process.execPath, args: [fixturePath('hostile-text-server.mjs'), '--fail'] },
        sse: { httpUrl: sse },
        json: { httpUrl: json },
        line: { command: process.execPath, args: [fixturePath('hostile-stdio-server.mjs')] },
      },
    };
    w.write(w.userSettings, userSettings);
    w.write(w.mcpJson, {
      mcpServers: {
        overwrite: { command: 'node', args: [CR_OVERWRITE], env: { SAFE: `1\r${ESC}[2K` } },
        attacks: { command: `node${ESC}[2K`, args: [ATTACKS], env: { NODE_OPTIONS: `--require ./x.cjs\r${ESC}[8m` }, cwd: `.\u202e` },
      },
    });

    const rawLog = join(w.root, 'terminal.raw');
    writeFileSync(rawLog, '');
    tmux('new-session', '-d', '-s', SESSION, '-x', '160', '-y', '50', 'sleep 600');
    // A CLI that dies keeps its last screen for the failure message.
    tmux('set-option', '-t', SESSION, 'remain-on-exit', 'on');
    tmux('pipe-pane', '-o', '-t', SESSION, `cat >> ${rawLog}`);
    tmux('select-pane', '-t', SESSION, '-T', TITLE);
    // The log's self-test: an escape sequence printed before the CLI starts must be in it raw.
    // `exec`: the pane's process is the CLI itself, so its pid is the pane's.
    tmux('respawn-pane', '-k', '-t', SESSION, `printf '\\033[7m${SELF_TEST}\\033[0m\\n'; exec env HOME=${w.home} ${process.execPath} ${CLI} --cwd ${w.cwd} --debounce ${DEBOUNCE_MS}`);
    const cliPid = Number(tmux('display-message', '-p', '-t', SESSION, '#{pane_pid}').trim());

    // The dialog shows the overwritten part, escaped and marked.
    await waitForScreen((x) => /Approve MCP server “(overwrite|attacks)”/.test(x), 'the approval dialog');
    const started = Date.now();
    const s = await waitForScreen(
      (x) => ['sse', 'json', 'line'].every((name) => new RegExp(`✖ ${name}\\s+user\\s+message too large`).test(x)) && /● good/.test(x) && /● hostile/.test(x),
      'the hostile servers failed alone and the good ones connected',
    );
    const settledMs = Date.now() - started;
    expect(s).toMatch(/contains control characters, shown escaped/);
    expect(s).toMatch(/\\r\\x1b\[/);

    // The session lives: a call to the good server is answered (the fixture answers `echo:<its pid>`).
    const goodPid = Number(readFileSync(goodLog, 'utf8').split(' ')[0]);
    terminal.press('Escape');
    await waitForScreen((x) => !/Approve MCP server/.test(x), 'the dialog put off');
    terminal.type('/call mcp__good__echo {}');
    await waitForScreen((x) => x.includes(`echo:${goodPid}`), 'the answer of the good server');

    // The hostile server's detail: instructions, version, stderr tail — all escaped.
    terminal.type('/mcp hostile');
    await waitForScreen((x) => /hostile instructions/.test(x) && /\\x1b\]52;c;/.test(x), 'the hostile server in detail');
    terminal.press('Escape');

    // A kill switch: excluding the healthy server ends its process within debounce + a few ms.
    expect(isAlive(goodPid)).toBe(true);
    const excludedAt = Date.now();
    w.atomicWrite(w.userSettings, { ...userSettings, mcp: { excluded: ['good'] } });
    expect(await waitForExit(goodPid, 10_000)).toBe(true);
    const killSwitchMs = Date.now() - excludedAt;
    await waitForScreen((x) => /⊘ good\s+user\s+excluded by mcp\.excluded/.test(x), 'good excluded');

    const peak = peakRss(cliPid);
    terminal.type('/quit');
    await waitUntil('the CLI exits', () => !isAlive(cliPid), 15_000);

    // Nothing planted reached the terminal raw: not in the byte log, not in the pane's title.
    const raw = readFileSync(rawLog, 'utf8');
    expect(raw).toContain(`${ESC}[7m${SELF_TEST}`);
    for (const [what, sequence] of Object.entries(PLANTED)) expect(raw.includes(sequence), what).toBe(false);
    expect(tmux('display-message', '-p', '-t', SESSION, '#{pane_title}').trim()).toBe(TITLE);

    expect(peak).toBeLessThan(500 * MB);
    expect(killSwitchMs).toBeLessThan(DEBOUNCE_MS + 2_000);
    report('hostile display and servers', { settledMs, killSwitchMs, peakRss: mb(peak), terminalBytes: raw.length });
  }, deadline(180_000));
});
