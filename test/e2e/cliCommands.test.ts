import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import type { PlannedServer } from '../../src/planReport.js';
import { CLI, ROOT, Workspace } from './cliSession.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** Runs the built CLI to completion (in `cwd`, the shell's directory): exit code, stdout, stderr. */
async function run(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { ...process.env, HOME: ws.home },
      timeout: 30_000,
      cwd,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('mcp-live status | plan | approvals (the built CLI)', () => {
  it('plan --json reviews what the repository would run and spawns nothing', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, { mcp: { excluded: ['ex'] }, mcpServers: { u: ws.server('u'), ex: ws.server('ex') } });
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p'), bad: { command: 'x', args: 'oops' } } });
    const { code, stdout } = await run(['plan', '--json', '--cwd', ws.cwd]);
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

  it('plan prints a readable table', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    const { code, stdout } = await run(['plan', '--cwd', ws.cwd]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/SERVER\s+SCOPE\s+TRANSPORT/);
    expect(stdout).toMatch(/u\s+user\s+stdio\s+[0-9a-f]{12}\s+would connect/);
  });

  it('status connects once, prints every state and exits 1 when a server failed — leaving no process', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, { mcpServers: { ok: ws.server('ok'), broken: { command: '/nonexistent/mcp-server' } } });
    const { code, stdout } = await run(['status', '--json', '--cwd', ws.cwd]);
    expect(code).toBe(1);
    const { servers } = JSON.parse(stdout) as { servers: { name: string; state: string; tools: string[]; error?: string }[] };
    expect(servers.find((s) => s.name === 'ok')).toMatchObject({ state: 'connected', tools: expect.arrayContaining(['mcp__ok__echo']) as string[] });
    expect(servers.find((s) => s.name === 'broken')?.error).toContain('/nonexistent/mcp-server');

    ws.write(ws.userSettings, { mcpServers: { ok: ws.server('ok') } });
    expect((await run(['status', '--cwd', ws.cwd])).code).toBe(0);
  });

  it('approvals approve | list | reject | forget, bound to the current config', async () => {
    ws = new Workspace();
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u') } });
    expect((await run(['approvals', 'approve', 'p', '--cwd', ws.cwd])).code).toBe(0);
    let list = JSON.parse((await run(['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: unknown[] };
    expect(list.servers).toEqual([{ name: 'p', scope: 'project', state: 'approved', stored: 'approved' }]);

    // the config changes → the stored approval no longer applies
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p', ['--tools', 'x']) } });
    list = JSON.parse((await run(['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: unknown[] };
    expect(list.servers).toEqual([{ name: 'p', scope: 'project', state: 'pending', stored: 'approved', stale: true }]);
    expect((await run(['approvals', 'list', '--cwd', ws.cwd])).stdout).toMatch(/\np\s+project\s+pending\s+approved, stale \(for an older config\)\n/);

    expect((await run(['approvals', 'reject', 'p', '--cwd', ws.cwd])).code).toBe(0);
    expect((await run(['approvals', 'forget', 'p', '--cwd', ws.cwd])).code).toBe(0);
    list = JSON.parse((await run(['approvals', 'list', '--json', '--cwd', ws.cwd])).stdout) as { servers: unknown[] };
    expect(list.servers).toEqual([{ name: 'p', scope: 'project', state: 'pending', stored: '-' }]);

    const notGated = await run(['approvals', 'approve', 'u', '--cwd', ws.cwd]);
    expect(notGated.code).toBe(2);
    expect(notGated.stderr).toContain('need no approval');
  });

  it('a bad flag exits 2 with a message naming it, and a pointer to --help instead of the whole usage', async () => {
    ws = new Workspace();
    const { code, stderr } = await run(['--frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^mcp-live: .*--frobnicate.*\nRun "mcp-live --help" for usage\.\n$/);
  });

  it('--version prints the version of package.json', async () => {
    ws = new Workspace();
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('approvals forget of nothing stored exits 1; an error that is not a usage error is one line', async () => {
    ws = new Workspace();
    const forget = await run(['approvals', 'forget', 'ghost', '--cwd', ws.cwd]);
    expect(forget.code).toBe(1);
    expect(forget.stderr).toMatch(/^mcp-live: nothing stored for ghost in \/.*\n$/);
    expect(existsSync(ws.approvals)).toBe(false);

    // The approvals file cannot be written (its directory is a file): exit 1, the cause, no usage.
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    const failed = await run(['approvals', 'approve', 'p', '--cwd', ws.cwd, '--approvals-file', join(ws.startLog, 'a.json')]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^mcp-live: [^\n]*starts\.log[^\n]*\n$/);
  });

  it('paths that do not exist are usage errors naming them, resolved against the shell directory', async () => {
    ws = new Workspace();
    const cwd = await run(['status', '--cwd', 'no-such-project'], ws.root);
    expect(cwd.code).toBe(2);
    expect(cwd.stderr).toContain(`--cwd no-such-project (${join(ws.root, 'no-such-project')}): no such directory`);
    const config = await run(['plan', '--mcp-config', 'team.json'], ws.cwd);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain(`--mcp-config team.json (${join(ws.cwd, 'team.json')}): no such file`);

    // It exists in the shell's directory: plan reads it, and warns about the flag's unmatched names.
    ws.write(join(ws.cwd, 'team.json'), { mcpServers: { github: ws.server('github') } });
    const plan = await run(['plan', '--mcp-config', 'team.json', '--allowed-mcp-server-names', 'github,gihtub'], ws.cwd);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('! --allowed-mcp-server-names: "gihtub" matches no configured server\n');
    expect(plan.stdout).toMatch(/github\s+cli\s+stdio/);
  });
});
