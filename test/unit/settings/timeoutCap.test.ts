import { describe, expect, it } from 'vitest';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../../../src/model/types.js';
import { resolveServerConfig, validateServerConfig } from '../../../src/model/settings/validate.js';

const deadlinesOf = (config: Record<string, unknown>) => {
  const r = resolveServerConfig(config, {});
  if (!r.ok) throw new Error(r.error);
  return { timeout: r.resolved.timeout, connectTimeout: r.resolved.connectTimeout };
};
const timeoutOf = (config: Record<string, unknown>) => deadlinesOf(config).timeout;

describe('deadline cap (decision 17)', () => {
  it('caps a timeout above 10 minutes, for stdio and remote servers alike', () => {
    expect(MAX_TIMEOUT_MS).toBe(600_000);
    expect(timeoutOf({ command: 'node', timeout: 2_000_000_000 })).toBe(MAX_TIMEOUT_MS);
    expect(timeoutOf({ url: 'http://localhost:1/sse', timeout: 3e9 })).toBe(MAX_TIMEOUT_MS);
    expect(timeoutOf({ httpUrl: 'http://localhost:1/mcp', timeout: 600_001 })).toBe(MAX_TIMEOUT_MS);
  });

  it('caps a connectTimeout above 10 minutes too', () => {
    expect(deadlinesOf({ command: 'node', connectTimeout: 2_000_000_000 }).connectTimeout).toBe(MAX_TIMEOUT_MS);
    expect(deadlinesOf({ httpUrl: 'http://localhost:1/mcp', connectTimeout: 600_001 }).connectTimeout).toBe(MAX_TIMEOUT_MS);
  });

  it('keeps a timeout up to the cap', () => {
    expect(timeoutOf({ command: 'node', timeout: 600_000 })).toBe(600_000);
    expect(timeoutOf({ command: 'node', timeout: 1_500 })).toBe(1_500);
  });
});

describe('timeout (requests) and connectTimeout (the connect), decision 24', () => {
  it('defaults: requests 600 000 ms, the connect 30 000 ms', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(600_000);
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBe(30_000);
    expect(deadlinesOf({ command: 'node' })).toEqual({ timeout: 600_000, connectTimeout: 30_000 });
    expect(deadlinesOf({ url: 'http://h/sse' })).toEqual({ timeout: 600_000, connectTimeout: 30_000 });
  });

  it('a timeout above 30 s raises requests only: the connect keeps its 30 s', () => {
    expect(deadlinesOf({ command: 'node', timeout: 120_000 })).toEqual({ timeout: 120_000, connectTimeout: 30_000 });
  });

  it('Gemini CLI / Qwen Code: one timeout bounds the connect too — a shorter timeout shortens the connect', () => {
    // The peers pass `timeout` to connect() and to every call; initialize is a request.
    expect(deadlinesOf({ command: 'node', timeout: 1_500 })).toEqual({ timeout: 1_500, connectTimeout: 1_500 });
  });

  it('connectTimeout, when written, is the connect deadline whatever timeout says', () => {
    expect(deadlinesOf({ command: 'node', timeout: 1_500, connectTimeout: 60_000 })).toEqual({ timeout: 1_500, connectTimeout: 60_000 });
    expect(deadlinesOf({ command: 'node', timeout: 300_000, connectTimeout: 5_000 })).toEqual({ timeout: 300_000, connectTimeout: 5_000 });
  });

  it('connectTimeout is validated like timeout', () => {
    expect(validateServerConfig({ command: 'node', connectTimeout: 0 })).toEqual({
      ok: false,
      error: 'connectTimeout must be a positive number (milliseconds)',
    });
    expect(validateServerConfig({ command: 'node', connectTimeout: '5000' })).toMatchObject({ ok: false });
    expect(validateServerConfig({ command: 'node', connectTimeout: Number.NaN })).toMatchObject({ ok: false });
  });
});
