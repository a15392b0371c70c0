import { describe, expect, it } from 'vitest';
import { MASK, maskConfig } from '../../src/sinks/ui/maskConfig.js';

describe('maskConfig', () => {
  it('replaces every env and header value, keeping the keys', () => {
    const config = {
      command: 'node',
      args: ['server.js'],
      env: { API_KEY: 'sk-secret-123', DEBUG: '1' },
      headers: { Authorization: 'Bearer tok-456' },
    };
    expect(maskConfig(config)).toEqual({
      command: 'node',
      args: ['server.js'],
      env: { API_KEY: MASK, DEBUG: MASK },
      headers: { Authorization: MASK },
    });
    expect(JSON.stringify(maskConfig(config))).not.toMatch(/secret|tok-456/);
  });

  it('masks at any depth, e.g. a whole mcpServers map', () => {
    const masked = maskConfig({ mcpServers: { a: { env: { T: 'x' } }, b: { httpUrl: 'https://h', headers: { K: 'v' } } } });
    expect(masked).toEqual({ mcpServers: { a: { env: { T: MASK } }, b: { httpUrl: 'https://h', headers: { K: MASK } } } });
  });

  it('masks the password of a URL with credentials', () => {
    const masked = maskConfig({ url: 'https://me:hunter2@example.com/sse' }) as { url: string };
    expect(masked.url).not.toContain('hunter2');
    expect(masked.url).toContain('me:');
    expect(masked.url).toContain('@example.com/sse');
  });

  it('does not modify its input and keeps odd keys as data', () => {
    const config = JSON.parse('{"env":{"__proto__":"p"},"__proto__":{"env":{"A":"b"}}}') as unknown;
    const before = JSON.stringify(config);
    const masked = maskConfig(config) as Record<string, unknown>;
    expect(JSON.stringify(config)).toBe(before);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe('{"env":{"__proto__":"***"},"__proto__":{"env":{"A":"***"}}}');
  });

  it('leaves non-objects and env written as something other than an object alone', () => {
    expect(maskConfig('x')).toBe('x');
    expect(maskConfig(null)).toBe(null);
    expect(maskConfig({ env: 'nope' })).toEqual({ env: 'nope' });
  });
});
