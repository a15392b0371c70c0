import { describe, expect, it } from 'vitest';
import { fingerprint, invalidFingerprint, viewFieldsEqual } from '../../../src/model/reconcile/fingerprint.js';
import { approvalHash } from '../../../src/model/settings/approvalHash.js';
import { resolveServerConfig } from '../../../src/model/settings/validate.js';
import type { ResolvedServerConfig } from '../../../src/model/types.js';

const base: ResolvedServerConfig = {
  transport: 'stdio',
  command: 'node',
  args: ['a', 'b'],
  env: { A: '1', B: '2' },
  cwd: '/w',
  headers: {},
  timeout: 600_000,
  connectTimeout: 30_000,
};

function resolvedFp(raw: unknown, env: Record<string, string | undefined> = {}, extensionPath?: string): string {
  const result = resolveServerConfig(raw, env, undefined, extensionPath);
  if (!result.ok) throw new Error(result.error);
  return fingerprint(result.resolved);
}

describe('fingerprint', () => {
  it('is SHA-256 hex', () => {
    expect(fingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores the key order of env and headers', () => {
    expect(fingerprint({ ...base, env: { B: '2', A: '1' } })).toBe(fingerprint(base));
    const remote: ResolvedServerConfig = { transport: 'http', url: 'u', args: [], env: {}, headers: { X: '1', Y: '2' }, timeout: 1 };
    expect(fingerprint({ ...remote, headers: { Y: '2', X: '1' } })).toBe(fingerprint(remote));
  });

  it.each<[string, Partial<ResolvedServerConfig>]>([
    ['transport', { transport: 'sse' }],
    ['command', { command: 'deno' }],
    ['args order', { args: ['b', 'a'] }],
    ['args', { args: ['a'] }],
    ['cwd', { cwd: '/other' }],
    ['env value', { env: { A: '1', B: '3' } }],
    ['env key', { env: { A: '1' } }],
    ['url', { url: 'http://x' }],
    ['headers', { headers: { H: 'v' } }],
    ['timeout', { timeout: 1 }],
    ['connectTimeout', { connectTimeout: 1 }],
  ])('changes with %s', (_field, change) => {
    expect(fingerprint({ ...base, ...change })).not.toBe(fingerprint(base));
  });

  it('is computed after $VAR expansion: a changed secret reconnects', () => {
    const raw = { command: 'srv', env: { TOKEN: '$TOKEN' } };
    expect(resolvedFp(raw, { TOKEN: 'one' })).not.toBe(resolvedFp(raw, { TOKEN: 'two' }));
    expect(resolvedFp(raw, { TOKEN: 'one' })).toBe(resolvedFp(raw, { TOKEN: 'one', OTHER: 'x' }));
  });

  it('is computed after ${extensionPath}: a moved extension reconnects, its approval hash (as written) stays', () => {
    const raw = { command: 'node', args: ['${extensionPath}${/}dist${/}example.js'], cwd: '${extensionPath}' };
    expect(resolvedFp(raw, {}, '/ext/a')).not.toBe(resolvedFp(raw, {}, '/ext/b'));
    expect(resolvedFp(raw, {}, '/ext/a')).toBe(resolvedFp(raw, {}, '/ext/a'));
    expect(approvalHash(raw)).toBe(approvalHash(JSON.parse(JSON.stringify(raw))));
  });

  it('does not change with view fields or unused fields', () => {
    const raw = { command: 'srv' };
    const fp = resolvedFp(raw);
    expect(resolvedFp({ ...raw, includeTools: ['a'], excludeTools: ['b'], trust: true, description: 'd' })).toBe(fp);
    expect(resolvedFp({ ...raw, unknownField: 1, headers: { A: 'b' } })).toBe(fp);
  });

  it('keeps httpUrl and url type:http alike, and SSE apart', () => {
    expect(resolvedFp({ httpUrl: 'http://h' })).toBe(resolvedFp({ url: 'http://h', type: 'http' }));
    expect(resolvedFp({ url: 'http://h' })).not.toBe(resolvedFp({ httpUrl: 'http://h' }));
  });
});

describe('invalidFingerprint', () => {
  it('is invalid: + the approval hash of the entry as written', () => {
    expect(invalidFingerprint({ args: 1 })).toBe(`invalid:${approvalHash({ args: 1 })}`);
    expect(invalidFingerprint({ args: 1 })).not.toBe(invalidFingerprint({ args: 2 }));
  });
});

describe('viewFieldsEqual', () => {
  it('compares tool lists as sets', () => {
    expect(viewFieldsEqual({ includeTools: ['a', 'b'] }, { includeTools: ['b', 'a'] })).toBe(true);
    expect(viewFieldsEqual({ includeTools: ['a'] }, { includeTools: ['a', 'b'] })).toBe(false);
    expect(viewFieldsEqual({ excludeTools: ['a', 'b'] }, { excludeTools: ['b', 'a'] })).toBe(true);
    expect(viewFieldsEqual({ excludeTools: ['a'] }, { excludeTools: ['b'] })).toBe(false);
    expect(viewFieldsEqual({}, { excludeTools: ['a'] })).toBe(false);
  });

  it('excludeTools absent ≡ []; includeTools absent ≠ []', () => {
    expect(viewFieldsEqual({}, { excludeTools: [] })).toBe(true);
    expect(viewFieldsEqual({}, { includeTools: [] })).toBe(false);
    expect(viewFieldsEqual({ includeTools: [] }, {})).toBe(false);
  });

  it('trust absent ≡ false; description exactly', () => {
    expect(viewFieldsEqual({}, { trust: false })).toBe(true);
    expect(viewFieldsEqual({}, { trust: true })).toBe(false);
    expect(viewFieldsEqual({ description: 'a' }, { description: 'a' })).toBe(true);
    expect(viewFieldsEqual({ description: 'a' }, { description: 'b' })).toBe(false);
    expect(viewFieldsEqual({}, { description: '' })).toBe(false);
  });
});
