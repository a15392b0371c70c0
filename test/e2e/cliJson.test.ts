import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import { afterAll, describe, expect, it } from 'vitest';
import { descendants, isAlive, MCP_TEST_SERVERS } from '../integration/processes.js';
import { CliSession, runCli, settleFor, waitUntil, Workspace, type Ev } from './cliSession.js';

afterAll(() => {
  expect(descendants().filter((p) => MCP_TEST_SERVERS.test(p.command))).toEqual([]);
});

// Side by side: every test has a workspace and HOME of its own, disposed of when it ends.
describe.concurrent('mcp-live --json (end to end, real files, real servers)', () => {
  it('follows user settings: add, edit args, remove — unrelated servers keep their pid', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { a: ws.server('a'), b: ws.server('b') } });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready', { what: 'ready' });
    const a = cli.servers().get('a')!;
    const b = cli.servers().get('b')!;
    expect(a).toMatchObject({ state: 'connected', scope: 'user' });
    expect(a.tools).toContain('mcp__a__echo');
    expect(a.prompts).toContain('greet');

    // add c
    let mark = cli.events.length;
    ws.write(ws.userSettings, { mcpServers: { a: ws.server('a'), b: ws.server('b'), c: ws.server('c') } });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark, what: 'reconcile after add' });
    expect(cli.reconciles(mark)[0]).toMatchObject({ added: ['c'], unchanged: 2 });
    expect(cli.servers().get('c')?.state).toBe('connected');

    // edit b's args: only b's pid changes
    mark = cli.events.length;
    ws.write(ws.userSettings, {
      mcpServers: { a: ws.server('a'), b: ws.server('b', ['--tools', 'extra']), c: ws.server('c') },
    });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark, what: 'reconcile after edit' });
    expect(cli.reconciles(mark)[0]).toMatchObject({ reconnected: ['b'], unchanged: 2 });
    const b2 = cli.servers().get('b')!;
    expect(b2.pid).not.toBe(b.pid);
    expect(b2.tools).toContain('mcp__b__extra');
    // Make-before-break (decision 101): the old process is closed after the swap, off the pass's path.
    for (let i = 0; i < 100 && isAlive(b.pid as number); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(b.pid as number)).toBe(false);
    expect(cli.servers().get('a')?.pid).toBe(a.pid);
    // a was never touched: no server event for a since it connected
    expect(cli.events.slice(mark).filter((e) => e.type === 'server' && e.name === 'a')).toEqual([]);

    // remove c: its process is gone
    const cPid = cli.servers().get('c')!.pid as number;
    mark = cli.events.length;
    ws.write(ws.userSettings, { mcpServers: { a: ws.server('a'), b: ws.server('b', ['--tools', 'extra']) } });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark, what: 'reconcile after remove' });
    expect(cli.reconciles(mark)[0]).toMatchObject({ removed: ['c'] });
    expect(cli.servers().get('c')).toMatchObject({ state: 'disconnected', reason: 'removed' });
    await waitUntil(() => !isAlive(cPid), 'c exits', 15_000);
    expect(cli.servers().get('a')?.pid).toBe(a.pid);
    expect(ws.starts().filter((s) => s === 'a')).toHaveLength(1);
  });

  it('an atomic save, a delete-and-recreate of .qwen/ and 20 saves in a burst each make one reconcile', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { u: ws.server('u', ['--tools', 't0']) } });
    // The burst is 20 synchronous writes, a few ms; a loaded machine may still pause this process
    // in the middle of it for longer than the usual 100 ms, which would rightly make two passes.
    // So a debounce no such pause reaches, and quiet periods that outlast it.
    const debounceMs = 600;
    const quietMs = debounceMs + 400;
    const cli = CliSession.start(ws, ['--debounce', String(debounceMs)]);
    await cli.waitFor((e) => e.type === 'ready');
    const userSettings = (n: number) => ({ mcpServers: { u: ws.server('u', ['--tools', `t${n}`]) } });

    let mark = cli.events.length;
    ws.atomicWrite(ws.userSettings, userSettings(1));
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    await settleFor(quietMs);
    expect(cli.reconciles(mark)).toHaveLength(1);
    expect(cli.servers().get('u')?.tools).toContain('mcp__u__t1');

    // delete the whole .qwen directory and re-create it
    mark = cli.events.length;
    rmSync(dirname(ws.userSettings), { recursive: true, force: true });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark, what: 'removal seen' });
    expect(cli.reconciles(mark)[0]).toMatchObject({ removed: ['u'] });
    mark = cli.events.length;
    ws.write(ws.userSettings, userSettings(2));
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark, what: 're-created dir seen' });
    await settleFor(quietMs);
    expect(cli.reconciles(mark)).toHaveLength(1);
    expect(cli.servers().get('u')).toMatchObject({ state: 'connected' });

    // 20 saves in a burst
    mark = cli.events.length;
    for (let i = 3; i < 23; i++) ws.write(ws.userSettings, userSettings(i));
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    await settleFor(quietMs);
    expect(cli.reconciles(mark)).toHaveLength(1);
    expect(cli.servers().get('u')?.tools).toContain('mcp__u__t22');
  });

  it('invalid JSON raises settings-error with line and column and disconnects nothing; fixing it resumes', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { a: ws.server('a') } });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');
    const pid = cli.servers().get('a')!.pid as number;

    let mark = cli.events.length;
    ws.write(ws.userSettings, '{\n  "mcpServers": {\n    "a": { "command": \n');
    // The write truncates first: the file may be read empty ("the file is empty", no position)
    // before the broken text is there. Wait for the syntax error itself.
    const err = await cli.waitFor((e) => e.type === 'settings-error' && !String(e.error).includes('the file is empty'), {
      from: mark,
      what: 'the syntax error',
    });
    expect(err.file).toBe(ws.userSettings);
    expect(err.line).toBeGreaterThan(0);
    expect(err.column).toBeGreaterThan(0);
    expect(err.error).toMatch(/settings\.json:\d+:\d+/);
    await settleFor(400);
    expect(cli.reconciles(mark)).toEqual([]);
    expect(isAlive(pid)).toBe(true);
    expect(cli.servers().get('a')?.state).toBe('connected');

    mark = cli.events.length;
    ws.write(ws.userSettings, { mcpServers: { a: ws.server('a'), b: ws.server('b') } });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    expect(cli.reconciles(mark)[0]).toMatchObject({ added: ['b'], unchanged: 1 });
  });

  it('a .mcp.json server asks for approval and is never spawned until approved; reject, edit, approve from another process', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    const cli = CliSession.start(ws);
    const ask = await cli.waitFor((e) => e.type === 'approval-required');
    expect(ask.servers).toEqual([
      { name: 'p', scope: 'project', source: ws.mcpJson, hash: approvalHash(ws.server('p')), config: ws.server('p'), readsEnv: [] },
    ]);
    await cli.waitFor((e) => e.type === 'ready');
    expect(cli.servers().get('p')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });
    await settleFor(300);
    expect(ws.starts()).toEqual([]);

    // reject → stays down with reason rejected
    let mark = cli.events.length;
    cli.send({ cmd: 'reject', server: 'p', id: 1 });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 1, { from: mark })).toMatchObject({ ok: true });
    await cli.waitFor((e) => e.type === 'server' && e.name === 'p' && e.reason === 'rejected', { from: mark });
    expect(ws.starts()).toEqual([]);

    // edit its config → asked again
    mark = cli.events.length;
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p', ['--tools', 'x']) } });
    await cli.waitFor((e) => e.type === 'approval-required', { from: mark, what: 'asked again' });
    expect(ws.starts()).toEqual([]);

    // approve from a second process → the running session connects it
    mark = cli.events.length;
    expect(await runCli(ws, ['approvals', 'approve', 'p', '--cwd', ws.cwd])).toMatchObject({ code: 0 });
    await cli.waitForState('p', 'connected', mark);
    expect(ws.starts()).toEqual(['p']);
  });

  it('approve through the protocol connects at once', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');
    const mark = cli.events.length;
    cli.send({ cmd: 'approve', server: 'p', persist: false, id: 'x' });
    await cli.waitForState('p', 'connected', mark);
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 'x')).toMatchObject({ ok: true });
  });

  it('the allow flag is an upper bound that mcp.allowed narrows; [] denies all; mcp.excluded toggles', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const servers = { a: ws.server('a'), b: ws.server('b'), c: ws.server('c') };
    ws.write(ws.userSettings, { mcp: { allowed: ['a', 'b', 'c'] }, mcpServers: servers });
    const cli = CliSession.start(ws, ['--allowed-mcp-server-names', 'a,b']);
    await cli.waitFor((e) => e.type === 'ready');
    expect(cli.servers().get('c')).toMatchObject({ state: 'blocked', reason: 'not_allowed' });
    expect(cli.servers().get('a')?.state).toBe('connected');
    expect(cli.servers().get('b')?.state).toBe('connected');
    expect(ws.starts()).not.toContain('c');

    let mark = cli.events.length;
    ws.write(ws.userSettings, { mcp: { allowed: ['a'] }, mcpServers: servers });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    expect(cli.servers().get('b')).toMatchObject({ state: 'blocked', reason: 'not_allowed' });
    expect(cli.servers().get('a')?.state).toBe('connected');

    mark = cli.events.length;
    ws.write(ws.userSettings, { mcp: { allowed: [] }, mcpServers: servers });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    for (const n of ['a', 'b', 'c']) expect(cli.servers().get(n)).toMatchObject({ state: 'blocked', reason: 'not_allowed' });

    mark = cli.events.length;
    ws.write(ws.userSettings, { mcpServers: servers });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    expect(cli.servers().get('a')?.state).toBe('connected');
    expect(cli.servers().get('c')).toMatchObject({ state: 'blocked', reason: 'not_allowed' });

    mark = cli.events.length;
    ws.write(ws.userSettings, { mcp: { excluded: ['a'] }, mcpServers: servers });
    await cli.waitFor((e) => e.type === 'reconcile', { from: mark });
    expect(cli.servers().get('a')).toMatchObject({ state: 'blocked', reason: 'excluded' });

    mark = cli.events.length;
    ws.write(ws.userSettings, { mcpServers: servers });
    await cli.waitForState('a', 'connected', mark);
    expect(ws.starts().filter((s) => s === 'c')).toEqual([]);
  });

  it('an untrusted folder connects nothing', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { security: { folderTrust: { enabled: true } }, mcpServers: { u: ws.server('u') } });
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');
    expect(cli.servers().get('u')).toMatchObject({ state: 'blocked', reason: 'untrusted_folder' });
    // Listed as ignored (decision 260), never started, never asked about.
    expect(cli.servers().get('p')).toMatchObject({ state: 'blocked', reason: 'untrusted_folder' });
    expect(cli.servers().get('p')?.detail).toContain('ignored: folder not trusted');
    expect(cli.events.some((e) => e.type === 'approval-required')).toBe(false);
    expect(ws.starts()).toEqual([]);

    const mark = cli.events.length;
    ws.write(ws.trustedFolders, { [ws.cwd]: 'TRUST_FOLDER' });
    await cli.waitForState('u', 'connected', mark);
    await cli.waitFor((e) => e.type === 'approval-required', { from: mark });
  });

  it('a theme-only edit makes no reconcile; an mcp.serverCommand edit is restart-required', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { ui: { theme: 'dark' }, mcpServers: { a: ws.server('a') } });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');

    let mark = cli.events.length;
    ws.write(ws.userSettings, { ui: { theme: 'light' }, mcpServers: { a: ws.server('a') } });
    await settleFor(600);
    expect(cli.reconciles(mark)).toEqual([]);

    mark = cli.events.length;
    ws.write(ws.userSettings, { ui: { theme: 'light' }, mcp: { serverCommand: 'x' }, mcpServers: { a: ws.server('a') } });
    const rr = await cli.waitFor((e) => e.type === 'restart-required', { from: mark });
    expect(rr).toMatchObject({ file: ws.userSettings, keys: ['mcp.serverCommand'] });
    await settleFor(400);
    expect(cli.reconciles(mark)).toEqual([]);
  });

  it('commands: malformed lines get ok:false, status and call answer, EOF does not stop, SIGTERM ends every server', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const secret = 'sk-test-SECRET-value-123456';
    ws.write(ws.userSettings, {
      mcpServers: {
        a: ws.server('a', [], { env: { API_TOKEN: secret } }),
        r: { httpUrl: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${secret}` }, timeout: 2000 },
      },
    });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready');

    cli.send('this is not json');
    const bad = await cli.waitFor((e) => e.type === 'result' && e.ok === false);
    expect(bad.error).toMatch(/malformed/);
    cli.send({ cmd: 'nope', id: 7 });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 7)).toMatchObject({ ok: false });
    cli.send({ cmd: 'call', tool: 'mcp__a__echo', args: { text: 'hi' }, id: 8 });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 8)).toMatchObject({ ok: true, data: { content: [{ text: 'hi' }] } });
    cli.send({ cmd: 'call', tool: 'mcp__zz__echo', id: 9 });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 9)).toMatchObject({ ok: false });
    cli.send({ cmd: 'status', id: 10 });
    const status = await cli.waitFor((e) => e.type === 'result' && e.id === 10);
    expect((status.data as { servers: Ev[] }).servers.map((s) => s.name as string)).toEqual(['a', 'r']);
    expect(cli.servers().get('r')?.state).toBe('error');

    const pid = cli.servers().get('a')!.pid as number;
    cli.proc.stdin.end(); // EOF
    await settleFor(300);
    expect(cli.proc.exitCode).toBeNull();
    expect(isAlive(pid)).toBe(true);

    expect(await cli.stop('SIGTERM')).toBe(0);
    expect(isAlive(pid)).toBe(false);
    const out = JSON.stringify(cli.events) + cli.stderr;
    expect(out).not.toContain(secret);
    expect(out).not.toContain('SECRET');
  });
});
