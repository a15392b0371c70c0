import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../../src/model/types.js';
import { resolveServerConfig } from '../../src/model/validate.js';

const timeoutOf = (config: Record<string, unknown>) => {
  const r = resolveServerConfig(config, {});
  if (!r.ok) throw new Error(r.error);
  return r.resolved.timeout;
};

describe('connect deadline cap (issue 11)', () => {
  it('caps a timeout above 10 minutes, for stdio and remote servers alike', () => {
    expect(MAX_TIMEOUT_MS).toBe(600_000);
    expect(timeoutOf({ command: 'node', timeout: 2_000_000_000 })).toBe(MAX_TIMEOUT_MS);
    expect(timeoutOf({ url: 'http://localhost:1/sse', timeout: 3e9 })).toBe(MAX_TIMEOUT_MS);
    expect(timeoutOf({ httpUrl: 'http://localhost:1/mcp', timeout: 600_001 })).toBe(MAX_TIMEOUT_MS);
  });

  it('keeps a timeout up to the cap, and the default when none is given', () => {
    expect(timeoutOf({ command: 'node', timeout: 600_000 })).toBe(600_000);
    expect(timeoutOf({ command: 'node', timeout: 1_500 })).toBe(1_500);
    expect(timeoutOf({ command: 'node' })).toBe(DEFAULT_TIMEOUT_MS);
  });
});
