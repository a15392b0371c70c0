import { BehaviorSubject, filter, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalHash } from '../../../src/model/settings/approvalHash.js';
import type { AssembleInput } from '../../../src/model/settings/assemble.js';
import type { LogEvent } from '../../../src/model/report/events.js';
import { sha256Hex } from '../../../src/model/sha256Hex.js';
import { createReconciler, type Reconciler } from '../../../src/live/reconciler.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { fixture, reconcilePass, textOf } from '../mcpServers.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * Decision 57 with real processes: a user server `my_srv` and an approved project server `my.srv`
 * both list `echo`. Before the fix both exposed `mcp__my_srv__echo` and a call went to whichever
 * came first; now each has a name of its own and the old name is refused.
 */

// tiny-server answers a call with `<tool>:<its pid>`, so a result says which process ran it.
const tiny = { command: process.execPath, args: [fixture('tiny-server.mjs')] };
const project = { ...tiny, args: [...tiny.args, '--project'] };
const suffixed = (name: string) => `mcp__my_srv_${sha256Hex(name).slice(0, 4)}__echo`;

function input(withProject: boolean, approved: boolean): AssembleInput {
  return {
    sources: [
      { scope: 'user', file: '/home/u/.qwen/settings.json', servers: { my_srv: tiny } },
      ...(withProject ? [{ scope: 'project' as const, file: '/repo/.mcp.json', servers: { 'my.srv': project } }] : []),
    ],
    approvals: approved ? { 'my.srv': { hash: approvalHash(project), status: 'approved' } } : {},
    sessionApprovals: {},
    folderTrusted: true,
  };
}

let r: Reconciler | undefined;
afterEach(async () => {
  await r?.dispose();
  r = undefined;
});
noLeftoversAfterAll();

const pass = reconcilePass;

describe('qualified tool names are unique across servers (real processes)', () => {
  it('my_srv (user) and my.srv (project, approved) each get a name of their own; the unsuffixed name is refused', async () => {
    const inputs = new BehaviorSubject(input(false, false));
    r = createReconciler(inputs, { connector: connectMcp, debounceMs: 20 });
    const warnings: string[] = [];
    r.events$.pipe(filter((e): e is LogEvent => e.type === 'log' && e.level === 'warn')).subscribe((e) => warnings.push(e.message));
    const first = pass(r, 1);
    r.start();
    await first;
    const userPid = r.board.status('my_srv')!.pid!;
    expect(textOf(await r.requests.callTool('mcp__my_srv__echo', {}))).toBe(`echo:${userPid}`);

    // The repository's entry, still pending: the names already move apart (stable across its approval).
    const second = pass(r, 2);
    inputs.next(input(true, false));
    await second;
    expect(r.board.status('my.srv')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });
    expect(r.board.status('my_srv')?.tools.map((t) => t.name)).toEqual([suffixed('my_srv')]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"my.srv" and "my_srv"');

    const third = pass(r, 3);
    inputs.next(input(true, true));
    await third;
    const tools = await firstValueFrom(r.board.tools$.pipe(filter((t) => t.length === 2)));
    expect(tools.map((t) => t.name).sort()).toEqual([suffixed('my.srv'), suffixed('my_srv')].sort());
    const projectPid = r.board.status('my.srv')!.pid!;
    expect(projectPid).not.toBe(userPid);
    expect(r.board.status('my_srv')?.pid).toBe(userPid);
    expect(textOf(await r.requests.callTool(suffixed('my_srv'), {}))).toBe(`echo:${userPid}`);
    expect(textOf(await r.requests.callTool(suffixed('my.srv'), {}))).toBe(`echo:${projectPid}`);
    await expect(r.requests.callTool('mcp__my_srv__echo', {})).rejects.toThrow(
      new RegExp(`"mcp__my_srv__echo" is not available: .*"my.srv" and "my_srv" are now named ${suffixed('my.srv').slice(0, -4)}`),
    );
    // One warning per collision, not one per pass.
    expect(warnings).toHaveLength(1);
  });
});
