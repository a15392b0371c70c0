import { describe, expect, it } from 'vitest';
import { admitAll } from '../../src/model/admission/admit.js';
import { assemble, type AssembleInput } from '../../src/model/settings/assemble.js';
import { desiredStateEqual } from '../../src/model/reconcile/equality.js';
import { reasonText, toolNotFoundMessage } from '../../src/model/report/messages.js';
import { desiredServers, plan } from '../../src/model/reconcile/plan.js';
import type { Scope, SourceSnapshot } from '../../src/model/types.js';

/** Decision 51: a user or system settings file that never parsed blocks every server. */

const BROKEN = '/home/u/.qwen/settings.json:3:14: expected "," between entries (CommaExpected)';

function source(scope: Scope, servers: Record<string, unknown>, extra: Partial<SourceSnapshot> = {}): SourceSnapshot {
  return { scope, file: `/${scope}.json`, servers, ...extra };
}

function input(sources: SourceSnapshot[], extra: Partial<AssembleInput> = {}): AssembleInput {
  return { sources, approvals: {}, sessionApprovals: {}, folderTrusted: true, ...extra };
}

const servers = [
  source('extension', { ext: { command: 'e' } }),
  source('cli', { c: { command: 'c' } }),
  source('session', { s: { command: 's' } }),
];

describe('settings_error: fail closed', () => {
  it.each(['user', 'system'] as const)('a broken %s settings file blocks every server, first of all reasons', (scope) => {
    const desired = assemble(input([...servers, source(scope, {}, { broken: BROKEN })]));
    expect(desired.settingsError).toBe(`${scope} settings do not parse: ${BROKEN} — fix it to connect servers`);
    const admissions = admitAll(desired, ['nothing-matches']);
    for (const name of ['ext', 'c', 's']) {
      expect(admissions[name]).toEqual({ admitted: false, reason: 'settings_error', detail: desired.settingsError });
    }
  });

  it.each(['workspace', 'project', 'cli', 'extension'] as const)('a broken %s file does not (it can only narrow, or is gated)', (scope) => {
    const desired = assemble(input([...servers, source(scope, {}, { broken: BROKEN })]));
    expect(desired.settingsError).toBeUndefined();
    expect(admitAll(desired).ext).toEqual({ admitted: true });
  });

  it('the gate sees the file start to parse, even when nothing else changed', () => {
    const broken = assemble(input([...servers, source('user', {}, { broken: BROKEN })]));
    const fixed = assemble(input([...servers, source('user', {})]));
    expect(desiredStateEqual(broken, fixed)).toBe(false);
    expect(desiredStateEqual(broken, assemble(input([...servers, source('user', {}, { broken: BROKEN })])))).toBe(true);
  });

  it('plans a block with the words, and a new position re-blocks with the new words', () => {
    const desired = assemble(input([...servers, source('user', {}, { broken: BROKEN })]));
    const { wanted, blocked } = desiredServers(desired, undefined, {});
    expect(Object.keys(wanted)).toEqual([]);
    const steps = plan(wanted, blocked, new Map([['c', { state: 'connected' as const, fingerprint: 'f' }]]));
    expect(steps.find((s) => s.name === 'c')).toEqual({
      name: 'c',
      change: 'blocked',
      actions: [{ type: 'disconnect' }, { type: 'block', reason: 'settings_error', detail: desired.settingsError }],
    });
    const same = plan(wanted, blocked, new Map([['c', { state: 'blocked' as const, reason: 'settings_error' as const, detail: desired.settingsError }]]));
    expect(same.find((s) => s.name === 'c')?.change).toBe('unchanged');
    const moved = plan(wanted, blocked, new Map([['c', { state: 'blocked' as const, reason: 'settings_error' as const, detail: 'elsewhere' }]]));
    expect(moved.find((s) => s.name === 'c')?.change).toBe('blocked');
  });

  it('says which file and what to do, in the list and in tool-not-found', () => {
    const detail = `user settings do not parse: ${BROKEN} — fix it to connect servers`;
    expect(reasonText('settings_error', undefined, detail)).toBe(detail);
    expect(toolNotFoundMessage('mcp__c__echo', 'c', { reason: 'settings_error', detail })).toBe(
      `Tool "mcp__c__echo" is not available: MCP server "c" is blocked – ${detail}.`,
    );
  });
});
