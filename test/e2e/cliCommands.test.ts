import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import type { PlannedServer } from '../../src/live/planReport.js';
import { ROOT, runCli, Workspace } from './cliSession.js';

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

// Side by side: every test has a workspace and HOME of its own.
describe.concurrent('mcp-live status | plan | approvals (the built CLI)', () => {
  it('plan --json reviews what the repository would run and spawns nothing', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcp: { excluded: ['ex'] }, mcpServers: { u: ws.server('u'), ex: ws.server('ex') } });
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p'), bad: { command: 'x', args: 'oops' } } });
    const { code, stdout } = await runCli(ws, ['plan', '--json', '--cwd', ws.cwd]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { servers: PlannedServer[] };
    const byName: Record<string, PlannedServer> = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(byName.u).toMatchObject({ scope: 'user', admitted: true, transport: 'stdio' });
    expect(byName.u!.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(byName.ex).toMatchObject({ admitted: false, reason: 'excluded', message: 'excluded by mcp.excluded' });
    expect(byName.p).toMatchObject({ scope: 'project', source: ws.mcpJson, admitted: false, reason: 'pending_approval', approval: 'pending' });
    expect(byName.p!.target).toContain('echo-server.mjs');
    expect(byName.bad).toMatchObject({ reason: 'pending_approval' });
    expect(readFileSync(ws.startLog, 'utf8')).toBe('');
  });

  it('plan prints a readable table', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    const { code, stdout } = await runCli(ws, ['plan', '--cwd', ws.cwd]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/SERVER\s+SCOPE\s+TRANSPORT/);
    expect(stdout).toMatch(/u\s+user\s+stdio\s+[0-9a-f]{12}\s+would connect/);
  });

  it('plan: a pending server says how it is reached, its fingerprint and the command that approves it (decision 321)', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p'), "it's": ws.server('q'), bad: { command: 'x', args: 'oops' } } });
    const { code, stdout } = await runCli(ws, ['plan', '--cwd', ws.cwd]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\np\s+project\s+stdio\s+[0-9a-f]{12}\s+needs approval – approve it with mcp-live approvals approve p\s/);
    expect(stdout).toMatch(/\nit's\s+project\s+stdio\s+[0-9a-f]{12}\s+needs approval – approve it with mcp-live approvals approve 'it'\\''s'\s/);
    // An entry that does not resolve has neither.
    expect(stdout).toMatch(/\nbad\s+project\s+-\s+-\s+needs approval/);
    // status says it alike.
    const status = await runCli(ws, ['status', '--cwd', ws.cwd]);
    expect(status.stdout).toMatch(/\np\s+project\s+\S+\s+needs approval – approve it with mcp-live approvals approve p\n/);
    // The fingerprint is the one the server gets once approved.
    expect((await runCli(ws, ['approvals', 'approve', 'p', '--cwd', ws.cwd])).code).toBe(0);
    const pending = /\np\s+project\s+stdio\s+([0-9a-f]{12})\s/.exec(stdout)![1];
    const approved = /\np\s+project\s+stdio\s+([0-9a-f]{12})\s+would connect/.exec((await runCli(ws, ['plan', '--cwd', ws.cwd])).stdout)![1];
    expect(approved).toBe(pending);
  });

  it('status connects once, prints every state and exits 1 when a server failed — leaving no process', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { ok: ws.server('ok'), broken: { command: '/nonexistent/mcp-server' } } });
    const { code, stdout } = await runCli(ws, ['status', '--json', '--cwd', ws.cwd]);
    expect(code).toBe(1);
    const { servers } = JSON.parse(stdout) as { servers: { name: string; state: string; tools: string[]; error?: string }[] };
    expect(servers.find((s) => s.name === 'ok')).toMatchObject({ state: 'connected', tools: expect.arrayContaining(['mcp__ok__echo']) as string[] });
    expect(servers.find((s) => s.name === 'broken')?.error).toContain('/nonexistent/mcp-server');

    ws.write(ws.userSettings, { mcpServers: { ok: ws.server('ok') } });
    expect((await runCli(ws, ['status', '--cwd', ws.cwd])).code).toBe(0);
  });

  it('approvals approve | list | reject | forget, bound to the current config', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    expect((await runCli(ws, ['approvals', 'approve', 'p', '--cwd', ws.cwd])).code).toBe(0);
    let list = JSON.parse((await runCli(ws, ['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: unknown[] };
    expect(list.servers).toEqual([{ name: 'p', scope: 'project', state: 'approved', stored: 'approved' }]);

    // the config changes → the stored approval no longer applies
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p', ['--tools', 'x']) } });
    list = JSON.parse((await runCli(ws, ['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: unknown[] };
    expect(list.servers).toEqual([{ name: 'p', scope: 'project', state: 'pending', stored: 'approved', stale: true }]);
    expect((await runCli(ws, ['approvals', 'list', '--cwd', ws.cwd])).stdout).toMatch(/\np\s+project\s+pending\s+approved, stale \(for an older config\)\n/);

    expect((await runCli(ws, ['approvals', 'reject', 'p', '--cwd', ws.cwd])).code).toBe(0);
    expect((await runCli(ws, ['approvals', 'forget', 'p', '--cwd', ws.cwd])).code).toBe(0);
    list = JSON.parse((await runCli(ws, ['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: unknown[] };
    expect(list.servers).toEqual([{ name: 'p', scope: 'project', state: 'pending', stored: '-' }]);

    const notGated = await runCli(ws, ['approvals', 'approve', 'u', '--cwd', ws.cwd]);
    expect(notGated.code).toBe(2);
    expect(notGated.stderr).toContain('need no approval');
  });

  it('a bad flag exits 2 with a message naming it, and a pointer to --help instead of the whole usage', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const { code, stderr } = await runCli(ws, ['--frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^mcp-live: .*--frobnicate.*\nRun "mcp-live --help" for usage\.\n$/);
    // A misspelt flag: mcp-live's words, the closest flag of that command (decision 324).
    const misspelt = await runCli(ws, ['status', '--debouce', '100', '--cwd', ws.cwd]);
    expect(misspelt).toEqual({ code: 2, stdout: '', stderr: 'mcp-live: unknown option --debouce; did you mean --debounce?\nRun "mcp-live --help" for usage.\n' });
  });

  it('--version prints the version of package.json', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(ws, ['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('approvals forget of nothing stored exits 1; an error that is not a usage error is one line', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const forget = await runCli(ws, ['approvals', 'forget', 'ghost', '--cwd', ws.cwd]);
    expect(forget.code).toBe(1);
    expect(forget.stderr).toMatch(/^mcp-live: nothing stored for ghost in \/.*\n$/);
    expect(existsSync(ws.approvals)).toBe(false);

    // The approvals file cannot be written (its directory is a file): exit 1, the cause, no usage.
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    const failed = await runCli(ws, ['approvals', 'approve', 'p', '--cwd', ws.cwd, '--approvals-file', join(ws.startLog, 'a.json')]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^mcp-live: [^\n]*starts\.log[^\n]*\n$/);
  });

  it('paths that do not exist are usage errors naming them, resolved against the shell directory', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const cwd = await runCli(ws, ['status', '--cwd', 'no-such-project'], { cwd: ws.root });
    expect(cwd.code).toBe(2);
    expect(cwd.stderr).toContain(`--cwd no-such-project (${join(ws.root, 'no-such-project')}): no such directory`);
    const config = await runCli(ws, ['plan', '--mcp-config', 'team.json'], { cwd: ws.cwd });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain(`--mcp-config team.json (${join(ws.cwd, 'team.json')}): no such file`);

    // It exists in the shell's directory: plan reads it, and warns about the flag's unmatched names.
    ws.write(join(ws.cwd, 'team.json'), { mcpServers: { github: ws.server('github') } });
    const plan = await runCli(ws, ['plan', '--mcp-config', 'team.json', '--allowed-mcp-server-names', 'github,gihtub'], { cwd: ws.cwd });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('! --allowed-mcp-server-names: "gihtub" matches no configured server\n');
    expect(plan.stdout).toMatch(/github\s+cli\s+stdio/);
  });
});
