import { describe, expect, it } from 'vitest';
import { admit, UNTRUSTED_IGNORED_DETAIL } from '../../src/model/admission/admit.js';
import { assemble, type AssembleInput } from '../../src/model/settings/assemble.js';
import { createIncrementalDesired } from '../../src/model/reconcile/incrementalDesired.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import { SCOPE_PRECEDENCE, type McpSettings, type Scope, type SourceSnapshot } from '../../src/model/types.js';

function source(scope: Scope, servers: Record<string, unknown>, extra: Partial<SourceSnapshot> = {}): SourceSnapshot {
  return { scope, file: `/${scope}.json`, servers, ...extra };
}

function input(sources: SourceSnapshot[], extra: Partial<AssembleInput> = {}): AssembleInput {
  return { sources, approvals: {}, sessionApprovals: {}, folderTrusted: false, ...extra };
}

const cfg = (command: string): Record<string, unknown> => ({ command });

describe('assemble: servers', () => {
  it('tags every entry with its scope and source file', () => {
    const desired = assemble(input([source('user', { a: cfg('a') }), source('cli', { b: cfg('b') }, { file: '/x/cli.json' })]));
    expect(desired.servers.a).toEqual({ name: 'a', scope: 'user', source: '/user.json', config: cfg('a') });
    expect(desired.servers.b).toEqual({ name: 'b', scope: 'cli', source: '/x/cli.json', config: cfg('b') });
  });

  const pairs = SCOPE_PRECEDENCE.flatMap((lower, i) => SCOPE_PRECEDENCE.slice(i + 1).map((higher) => [lower, higher] as const));
  it.each(pairs)('%s < %s: the later scope wins the name, given in either order', (lower, higher) => {
    for (const sources of [
      [source(lower, { s: cfg(lower) }), source(higher, { s: cfg(higher) })],
      [source(higher, { s: cfg(higher) }), source(lower, { s: cfg(lower) })],
    ]) {
      const desired = assemble(input(sources));
      expect(desired.servers.s?.scope).toBe(higher);
      expect(desired.servers.s?.config).toEqual(cfg(higher));
    }
  });

  it('replaces whole entries, never field by field', () => {
    const desired = assemble(
      input([source('user', { s: { command: 'a', env: { A: '1' } } }), source('cli', { s: { command: 'b' } })]),
    );
    expect(desired.servers.s?.config).toEqual({ command: 'b' });
  });

  it('applies several sources of one scope in the order given', () => {
    const desired = assemble(
      input([
        source('cli', { s: cfg('first') }, { file: '/1.json' }),
        source('extension', { s: cfg('ext') }),
        source('cli', { s: cfg('second') }, { file: '/2.json' }),
      ]),
    );
    expect(desired.servers.s).toMatchObject({ source: '/2.json', config: cfg('second') });
  });

  it('keeps invalid entries (they only break themselves later)', () => {
    const desired = assemble(input([source('user', { bad: 42, good: cfg('g') })]));
    expect(desired.servers.bad?.config).toBe(42);
    expect(desired.servers.good?.config).toEqual(cfg('g'));
  });

  it('skips a source whose servers are not an object', () => {
    const broken = source('user', ['x'] as unknown as Record<string, unknown>);
    expect(Object.keys(assemble(input([broken, source('cli', { a: cfg('a') })])).servers)).toEqual(['a']);
  });

  it('handles a server named __proto__ and does not expose prototype members', () => {
    const servers = JSON.parse('{"__proto__": {"command": "p"}}') as Record<string, unknown>;
    const desired = assemble(input([source('user', servers)]));
    expect(Object.keys(desired.servers)).toEqual(['__proto__']);
    expect(desired.servers.__proto__).toMatchObject({ name: '__proto__', config: { command: 'p' } });
    expect(desired.servers.toString).toBeUndefined();
  });
});

describe('assemble: folder trust', () => {
  const trustOn = source('user', { u: cfg('u') }, { folderTrustEnabled: true, mcp: { excluded: ['x'] } });
  const workspace = source('workspace', { w: cfg('w') }, { mcp: { excluded: ['w2'], allowed: ['w'] } });
  const project = source('project', { p: cfg('p') });

  it('is trusted when folder trust is disabled, even if the folder is not trusted', () => {
    const desired = assemble(input([source('user', {}), workspace, project], { folderTrusted: false }));
    expect(desired.trusted).toBe(true);
    expect(Object.keys(desired.servers).sort()).toEqual(['p', 'w']);
  });

  it('is trusted when enabled and the folder is trusted', () => {
    const desired = assemble(input([trustOn, workspace, project], { folderTrusted: true }));
    expect(desired.trusted).toBe(true);
    expect(Object.keys(desired.servers).sort()).toEqual(['p', 'u', 'w']);
    expect(desired.gating.allowed).toEqual(['w']);
  });

  it('untrusted: ignores the mcp keys of workspace and project sources; their servers are listed, never pending, never admitted (decision 260)', () => {
    const desired = assemble(input([trustOn, workspace, project, source('cli', { c: cfg('c') })], { folderTrusted: false }));
    expect(desired.trusted).toBe(false);
    expect(Object.keys(desired.servers).sort()).toEqual(['c', 'p', 'u', 'w']);
    expect(desired.gating.excluded).toEqual(['x']);
    expect(desired.gating.allowed).toBeUndefined();
    expect(desired.gating.pending).toEqual([]);
    expect(desired.gating.rejected).toEqual([]);
    for (const name of ['p', 'w']) {
      expect(admit(name, desired.servers[name]!, desired)).toEqual({ admitted: false, reason: 'untrusted_folder', detail: UNTRUSTED_IGNORED_DETAIL });
    }
    expect(admit('u', desired.servers.u!, desired)).toEqual({ admitted: false, reason: 'untrusted_folder' });
  });

  it('untrusted: the incremental assembly lists, orders and gates exactly alike, and a trust flip moves them back', () => {
    const incremental = createIncrementalDesired().assemble;
    const sources = [trustOn, workspace, project, source('workspace', { u: cfg('from-workspace') })];
    for (const folderTrusted of [false, true, false]) {
      const once = assemble(input(sources, { folderTrusted }));
      const step = incremental(input(sources, { folderTrusted }));
      expect(step.servers).toEqual(once.servers);
      expect(step.gating).toEqual(once.gating);
      expect(step.servers.u).toMatchObject({ scope: folderTrusted ? 'workspace' : 'user' });
    }
  });

  it('untrusted: a workspace entry no longer shadows the user one', () => {
    const desired = assemble(
      input([trustOn, source('workspace', { u: cfg('from-workspace') })], { folderTrusted: false }),
    );
    expect(desired.servers.u).toMatchObject({ scope: 'user', config: cfg('u') });
  });

  it('a workspace cannot enable folder trust', () => {
    const desired = assemble(input([source('workspace', {}, { folderTrustEnabled: true })], { folderTrusted: false }));
    expect(desired.trusted).toBe(true);
  });

  it('system settings decide over the user', () => {
    const system = source('system', {}, { folderTrustEnabled: false });
    expect(assemble(input([trustOn, system], { folderTrusted: false })).trusted).toBe(true);
  });
});

describe('assemble: gating', () => {
  const p = cfg('p');
  const w = cfg('w');
  const project = source('project', { p });
  const workspace = source('workspace', { w });

  it('passes the merged allowed and excluded lists, and omits allowed when absent', () => {
    const withLists = assemble(input([source('user', {}, { mcp: { allowed: ['a'], excluded: ['b'] } satisfies McpSettings })]));
    expect(withLists.gating).toEqual({ allowed: ['a'], excluded: ['b'], pending: [], rejected: [] });
    const without = assemble(input([source('user', {})]));
    expect('allowed' in without.gating).toBe(false);
  });

  it('lists gated servers without a decision as pending, sorted', () => {
    const desired = assemble(input([source('project', { z: p, a: p }), workspace, source('user', { u: cfg('u') })]));
    expect(desired.gating.pending).toEqual(['a', 'w', 'z']);
    expect(desired.gating.rejected).toEqual([]);
  });

  it('an approval for the current hash admits; for another hash it does not', () => {
    const approved = assemble(input([project], { approvals: { p: { hash: approvalHash(p), status: 'approved' } } }));
    expect(approved.gating.pending).toEqual([]);
    const stale = assemble(input([project], { approvals: { p: { hash: approvalHash(cfg('old')), status: 'approved' } } }));
    expect(stale.gating.pending).toEqual(['p']);
  });

  it('a rejected server is both pending and rejected; a changed config is only pending', () => {
    const rejected = assemble(input([project], { approvals: { p: { hash: approvalHash(p), status: 'rejected' } } }));
    expect(rejected.gating).toMatchObject({ pending: ['p'], rejected: ['p'] });
    const edited = assemble(
      input([source('project', { p: cfg('edited') })], { approvals: { p: { hash: approvalHash(p), status: 'rejected' } } }),
    );
    expect(edited.gating).toMatchObject({ pending: ['p'], rejected: [] });
  });

  it('a session approval counts only for the same hash', () => {
    expect(assemble(input([project], { sessionApprovals: { p: approvalHash(p) } })).gating.pending).toEqual([]);
    expect(assemble(input([project], { sessionApprovals: { p: 'other' } })).gating.pending).toEqual(['p']);
  });

  it('a session approval after a reject admits (the newer choice)', () => {
    const desired = assemble(
      input([project], {
        approvals: { p: { hash: approvalHash(p), status: 'rejected' } },
        sessionApprovals: { p: approvalHash(p) },
      }),
    );
    expect(desired.gating).toMatchObject({ pending: [], rejected: [] });
  });

  it('the hash ignores description, so editing it keeps the approval', () => {
    const described = source('project', { p: { ...p, description: 'new words' } });
    const desired = assemble(input([described], { approvals: { p: { hash: approvalHash(p), status: 'approved' } } }));
    expect(desired.gating.pending).toEqual([]);
  });

  it('a non-gated winner is not gated, a gated winner is', () => {
    const userWins = assemble(input([source('project', { s: p }), source('cli', { s: cfg('c') })]));
    expect(userWins.gating.pending).toEqual([]);
    const workspaceWins = assemble(input([source('user', { s: cfg('u') }), source('workspace', { s: w })]));
    expect(workspaceWins.gating.pending).toEqual(['s']);
  });

  it('a user-scope approval record does not leak: lookup is by name and hash', () => {
    const same = cfg('same');
    const desired = assemble(
      input([source('user', { s: same }), source('workspace', { s: { ...same, args: ['x'] } })], {
        approvals: { s: { hash: approvalHash(same), status: 'approved' } },
      }),
    );
    expect(desired.gating.pending).toEqual(['s']);
  });

  it('gates a __proto__ server like any other', () => {
    const servers = JSON.parse('{"__proto__": {"command": "p"}}') as Record<string, unknown>;
    const desired = assemble(input([source('project', servers)]));
    expect(desired.gating.pending).toEqual(['__proto__']);
    const approved = assemble(
      input([source('project', servers)], {
        approvals: JSON.parse(`{"__proto__": {"hash": "${approvalHash({ command: 'p' })}", "status": "approved"}}`) as AssembleInput['approvals'],
      }),
    );
    expect(approved.gating.pending).toEqual([]);
  });
});
