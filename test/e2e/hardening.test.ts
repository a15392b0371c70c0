import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import type { PlanReport } from '../../src/live/planReport.js';
import { CliSession, FIXTURES, resultOf, runCli, Workspace, type Ev } from './cliSession.js';

/**
 * A hostile repository against the built CLI: fail closed on broken user settings (decision 51),
 * approvals bound to what was shown (decision 52), paths against the shell's directory, `--cwd ~`
 * (decision 63).
 */

// The tests run side by side (describe.concurrent): each has a workspace and HOME of its own,
// disposed of (its sessions stopped) when it ends.
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** User settings with folder trust on and `ext` excluded — one comma dropped. */
const BROKEN_USER_SETTINGS = '{"security":{"folderTrust":{"enabled":true}} "mcp":{"excluded":["ext"]}}';

function installExtension(ws: Workspace, name: string, servers: Record<string, unknown>): void {
  ws.write(join(ws.home, '.qwen', 'extensions', name, 'qwen-extension.json'), { name, version: '1.0.0', mcpServers: servers });
}

describe.concurrent('a user settings file that never parsed blocks every server (fail closed)', () => {
  it('status exits 1, prints the error with its position, and starts nothing', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, BROKEN_USER_SETTINGS);
    ws.write(ws.trustedFolders, { [ws.cwd]: 'DO_NOT_TRUST' });
    installExtension(ws, 'ext-one', { ext: ws.server('ext') });
    ws.write(ws.mcpJson, { mcpServers: { proj: ws.server('proj') } });

    const text = await runCli(ws, ['status', '--cwd', ws.cwd]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`user settings do not parse: ${ws.userSettings}:1:`);
    expect(text.stdout).toContain('fix it to connect servers');
    expect(text.stdout).toMatch(/ext\s+extension\s+blocked/);

    const json = await runCli(ws, ['status', '--json', '--cwd', ws.cwd]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { settingsError: string; servers: { name: string; state: string; reason?: string }[] };
    expect(report.settingsError).toContain(ws.userSettings);
    // Folder trust is unknown while the file does not parse: the project server is listed, blocked.
    expect(report.servers.map((s) => [s.name, s.state, s.reason])).toEqual([
      ['ext', 'blocked', 'settings_error'],
      ['proj', 'blocked', 'settings_error'],
    ]);

    const plan = JSON.parse((await runCli(ws, ['plan', '--json', '--cwd', ws.cwd])).stdout) as PlanReport;
    expect(plan.settingsError).toContain('user settings do not parse');
    expect(plan.servers.map((s) => [s.name, s.admitted, s.reason])).toEqual([
      ['ext', false, 'settings_error'],
      ['proj', false, 'settings_error'],
    ]);
    expect(ws.starts()).toEqual([]);
  });

  it('--json: every server blocked with the reason; fixing the file admits them in the next pass', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, BROKEN_USER_SETTINGS.replace('"excluded":["ext"]', '"excluded":["nothing"]'));
    installExtension(ws, 'ext-one', { ext: ws.server('ext') });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');
    const blocked = cli.servers().get('ext')!;
    expect(blocked).toMatchObject({ state: 'blocked', reason: 'settings_error' });
    expect(blocked.detail).toContain(`${ws.userSettings}:1:`);
    expect(cli.events.some((e) => e.type === 'settings-error' && e.file === ws.userSettings)).toBe(true);

    cli.send({ id: 1, cmd: 'call', tool: 'mcp__ext__echo', args: { text: 'hi' } });
    const refused = await cli.waitFor((e) => e.type === 'result' && e.id === 1);
    expect(refused.ok).toBe(false);
    expect(refused.error).toContain('user settings do not parse');

    const from = cli.events.length;
    ws.atomicWrite(ws.userSettings, { security: { folderTrust: { enabled: false } } });
    await cli.waitForState('ext', 'connected', from);
    expect(ws.starts()).toEqual(['ext']);
  });
});

describe.concurrent('an approval applies to the entry that was shown', () => {
  const benign = (ws: Workspace) => ws.server('benign');
  const malicious = (ws: Workspace) => ws.server('malicious');

  async function shownRequest(ws: Workspace, args: string[] = []): Promise<{ cli: CliSession; request: Ev }> {
    const cli = CliSession.start(ws, args);
    const request = await cli.waitFor((e) => e.type === 'approval-required');
    await cli.waitFor((e) => e.type === 'ready');
    return { cli, request };
  }

  it('carries name, scope, source, hash and the entry as written', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, {
      mcpServers: { x: { ...benign(ws), env: { NODE_OPTIONS: '--require ./evil.cjs', API_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, headers: {} } },
    });
    const { request } = await shownRequest(ws);
    const [x] = request.servers as Ev[];
    expect(x).toMatchObject({ name: 'x', scope: 'project', source: ws.mcpJson });
    expect(x!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((x!.config as { env: Record<string, string> }).env.NODE_OPTIONS).toBe('--require ./evil.cjs');
    // A repository's literal is the repository's, shown as written (decision 166): masking it
    // could hide a payload. A copy of one of the user's own secrets would still be masked (167).
    expect((x!.config as { env: Record<string, string> }).env.API_TOKEN).toBe('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('an entry rewritten after it was shown is not approved, with or without the hash; the user is asked again', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { x: benign(ws) } });
    const { cli, request } = await shownRequest(ws);
    const shownHash = (request.servers as Ev[])[0]!.hash as string;

    const from = cli.events.length;
    ws.atomicWrite(ws.mcpJson, { mcpServers: { x: malicious(ws) } });
    // Once the rewritten entry has been read (the pass after it asks about it), the hash shown
    // before is refused. A decision sent before the read is in, inside the debounce, is the next test's.
    const again = await cli.waitFor((e) => e.type === 'approval-required', { from, what: 'the rewritten x asked about' });
    const newHash = (again.servers as Ev[])[0]!.hash as string;
    expect(newHash).not.toBe(shownHash);
    const refusedFrom = cli.events.length;
    cli.send({ id: 'a', cmd: 'approve', server: 'x', hash: shownHash });
    const refused = await cli.waitFor((e) => e.type === 'result' && e.id === 'a');
    expect(refused).toMatchObject({ ok: false, error: 'x changed since it was shown; review it again' });
    // The refusal asks again: the user sees the entry as it is now.
    const askedAgain = await cli.waitFor((e) => e.type === 'approval-required', { from: refusedFrom, what: 'x asked about again after the refusal' });
    expect((askedAgain.servers as Ev[])[0]!.hash).toBe(newHash);

    // Approving the new entry by its own hash works.
    cli.send({ id: 'b', cmd: 'approve', server: 'x', hash: newHash });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 'b')).toMatchObject({ ok: true });
    await cli.waitForState('x', 'connected', from);
    expect(ws.starts()).toEqual(['malicious']);
  });

  it('approve without a hash binds to the entry as the last pass showed it, never a newer read', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { x: benign(ws), y: ws.server('y') } });
    // A debounce of 4 s: the watcher's read of the rewrite (within the 600 ms below) and the
    // commands after it surely come inside it, on a loaded machine too.
    const { cli, request } = await shownRequest(ws, ['--debounce', '4000']);
    const shownHash = (request.servers as Ev[]).find((s) => s.name === 'x')!.hash as string;
    const from = cli.events.length;
    ws.atomicWrite(ws.mcpJson, { mcpServers: { x: malicious(ws), y: ws.server('y') } });
    cli.send({ id: 1, cmd: 'approve', server: 'x' });
    // Whether the watcher has read the rewrite by now (it reads at once; the debounce holds only
    // the pass) is the machine's timing: read, the approval is refused as changed since shown;
    // not yet, it binds to the entry the last pass showed. Never to the newer read.
    const first = await cli.waitFor(resultOf(1));
    if (first.ok !== true) expect(first).toMatchObject({ ok: false, error: 'x changed since it was shown; review it again' });
    cli.send({ id: 2, cmd: 'approve-all', servers: [{ name: 'x', hash: 'f'.repeat(64) }] });
    expect(await cli.waitFor(resultOf(2))).toMatchObject({ ok: false });
    // The pass then reads the rewritten entry and asks about it: nothing was started meanwhile.
    const asked = await cli.waitFor((e) => e.type === 'approval-required' && (e.servers as Ev[]).some((s) => s.name === 'x' && s.hash !== shownHash), {
      from,
      what: 'the rewritten x asked about',
    });
    const rewrittenHash = (asked.servers as Ev[]).find((s) => s.name === 'x')!.hash as string;
    expect(ws.starts()).toEqual([]);
    const stored = readFileOrEmpty(ws.approvals);
    expect(stored).not.toContain(rewrittenHash);
    if (first.ok === true) expect(stored).toContain(shownHash);
    else expect(stored).not.toContain('approved');
  });

  it('a hung server of the user does not hold back the approval prompt', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, {
      mcpServers: { hang: { command: process.execPath, args: [join(FIXTURES, 'hang-server.mjs')], timeout: 2_000_000_000, connectTimeout: 2_000_000_000 } },
    });
    ws.write(ws.mcpJson, { mcpServers: { x: benign(ws) } });
    const cli = CliSession.start(ws);
    const request = await cli.waitFor((e) => e.type === 'approval-required', { timeoutMs: 15_000 });
    expect((request.servers as Ev[]).map((s) => s.name as string)).toEqual(['x']);
    // The prompt goes out once the blocks are applied; the hung connect may start just before or after it (planned()).
    expect(cli.servers().get('hang')?.state ?? 'not started').toMatch(/^(connecting|not started)$/);
    await cli.waitForState('hang', 'connecting');
    cli.send({ id: 1, cmd: 'approve', server: 'x', hash: (request.servers as Ev[])[0]!.hash as string });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 1)).toMatchObject({ ok: true });
    await cli.waitForState('x', 'connected');
    expect(cli.servers().get('hang')?.state).toBe('connecting');
  });

  it('approve-all approves exactly the shown set, in one write', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { a: ws.server('a'), b: ws.server('b') } });
    const { cli, request } = await shownRequest(ws);
    const shown = (request.servers as Ev[]).map((s) => ({ name: s.name as string, hash: s.hash as string }));
    expect(shown.map((s) => s.name)).toEqual(['a', 'b']);
    const from = cli.events.length;
    cli.send({ id: 1, cmd: 'approve-all', servers: shown });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 1)).toMatchObject({ ok: true, data: { approved: ['a', 'b'] } });
    await cli.waitForState('a', 'connected', from);
    await cli.waitForState('b', 'connected', from);
  });

  it('mcp-live approvals approve prints what it approved; --hash refuses a changed entry', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { x: { ...benign(ws), env: { NODE_OPTIONS: '--inspect' } } } });
    // plan shows what the one-line target hides.
    const plan = await runCli(ws, ['plan', '--cwd', ws.cwd]);
    expect(plan.stdout).toContain(`x (project, ${ws.mcpJson})\n  command `);
    expect(plan.stdout).toContain('  env     NODE_OPTIONS=--inspect');
    const first = await runCli(ws, ['approvals', 'approve', 'x', '--json', '--cwd', ws.cwd]);
    expect(first.code).toBe(0);
    const approved = JSON.parse(first.stdout) as { hash: string; config: { env: Record<string, string> } };
    expect(approved.config.env.NODE_OPTIONS).toBe('--inspect');
    const text = await runCli(ws, ['approvals', 'approve', 'x', '--cwd', ws.cwd]);
    expect(text.stdout).toContain('env     NODE_OPTIONS=--inspect');
    expect(text.stdout).toContain(`hash    ${approved.hash}`);

    ws.write(ws.mcpJson, { mcpServers: { x: malicious(ws) } });
    const refused = await runCli(ws, ['approvals', 'approve', 'x', '--hash', approved.hash, '--cwd', ws.cwd]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('x changed since it was shown');
    const list = JSON.parse((await runCli(ws, ['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: { state: string }[] };
    expect(list.servers[0]!.state).toBe('pending');
  });
});

describe.concurrent('special files never freeze the session', () => {
  it('plan with .mcp.json → /dev/zero finishes at once with an error of that file only', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    symlinkSync('/dev/zero', ws.mcpJson);
    const plan = await runCli(ws, ['plan', '--json', '--cwd', ws.cwd]);
    expect(plan.code).toBe(0);
    const report = JSON.parse(plan.stdout) as PlanReport;
    expect(report.servers.map((s) => [s.name, s.admitted])).toEqual([['u', true]]);
    expect(report.notices).toContainEqual(
      expect.objectContaining({ type: 'settings-error', file: ws.mcpJson, error: expect.stringContaining('character device') as string }),
    );
  });

  it('--json with .mcp.json → /dev/stdin: ready comes, the user server starts, commands are read, quit ends it', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    symlinkSync('/dev/stdin', ws.mcpJson);
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');
    await cli.waitForState('u', 'connected');
    expect(cli.events.find((e) => e.type === 'settings-error')?.error).toMatch(/not a regular file/);
    cli.send({ id: 1, cmd: 'status' });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 1)).toMatchObject({ ok: true });
    expect(await cli.stop()).toBe(0);
  });
});

describe.concurrent('paths', () => {
  it('file options resolve against the shell directory; stdio servers start in the workspace', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const other = join(ws.root, 'other');
    mkdirSync(other);
    // `node server.mjs` in the workspace's .mcp.json: the workspace's server.mjs, wherever mcp-live runs.
    const launcher = (name: string) =>
      `process.argv.push('--start-log', ${JSON.stringify(ws.startLog)}, '--log-name', ${JSON.stringify(name)});\n` +
      `await import(${JSON.stringify(join(FIXTURES, 'echo-server.mjs'))});\n`;
    writeFileSync(join(ws.cwd, 'server.mjs'), launcher('workspace'));
    writeFileSync(join(other, 'server.mjs'), launcher('wrong-directory'));
    ws.write(ws.mcpJson, { mcpServers: { rel: { command: process.execPath, args: ['server.mjs'] } } });
    // A repository file named like the --mcp-config argument must not load as scope cli.
    ws.write(join(ws.cwd, 'team.json'), { mcpServers: { team: ws.server('team-from-repo') } });
    ws.write(join(other, 'team.json'), { mcpServers: { team: ws.server('team') } });

    expect((await runCli(ws, ['approvals', 'approve', 'rel', '--cwd', ws.cwd], { cwd: other })).code).toBe(0);
    const status = await runCli(ws, ['status', '--json', '--cwd', ws.cwd, '--mcp-config', 'team.json'], { cwd: other });
    expect(status.code).toBe(0);
    const servers = (JSON.parse(status.stdout) as { servers: { name: string; state: string }[] }).servers;
    expect(servers.map((s) => [s.name, s.state])).toEqual([
      ['rel', 'connected'],
      ['team', 'connected'],
    ]);
    expect(ws.starts().sort()).toEqual(['team', 'workspace']);
  });

  it('--cwd equal to the home directory reads the user settings once, as user settings', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    const status = await runCli(ws, ['status', '--json', '--cwd', ws.home]);
    const servers = (JSON.parse(status.stdout) as { servers: { name: string; scope: string; state: string }[] }).servers;
    expect(servers).toMatchObject([{ name: 'u', scope: 'user', state: 'connected' }]);
  });
});

function readFileOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
