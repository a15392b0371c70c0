import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redactSecrets.js';

describe('redactSecrets', () => {
  it('masks env values and header values, and the words of a header value', () => {
    const redact = redactSecrets({
      env: { API_KEY: 'sk-live-123456' },
      headers: { Authorization: 'Bearer tok-abcdef-999' },
    });
    expect(redact('key sk-live-123456 sent')).toBe('key *** sent');
    expect(redact('got "Bearer tok-abcdef-999"')).toBe('got "***"');
    expect(redact('token tok-abcdef-999 rejected')).toBe('token *** rejected');
    expect(redact('Bearer auth failed')).toBe('Bearer auth failed');
  });

  it('leaves short values alone', () => {
    const redact = redactSecrets({ env: { DEBUG: '1', LEVEL: 'info' }, headers: {} });
    expect(redact('level info, debug 1')).toBe('level info, debug 1');
  });

  it('is the identity without secrets', () => {
    expect(redactSecrets({ env: {}, headers: {} })('anything')).toBe('anything');
  });

  it('masks what a URL may carry: user name, password, query values, long path segments (found by test/slow)', () => {
    const redact = redactSecrets({
      env: {},
      headers: {},
      url: 'https://bot:pa%24%24word-1@mcp.example.com/api/s/k3y-0123456789abcdef/mcp?api_key=sk-url-123456&mode=stream',
    });
    expect(redact('GET /api/s/k3y-0123456789abcdef/mcp?api_key=sk-url-123456&mode=stream')).toBe('GET /api/s/***/mcp?api_key=***&mode=***');
    expect(redact('from https://bot:pa%24%24word-1@mcp.example.com and pa$$word-1')).toBe('from https://bot:***@mcp.example.com and ***');
    // Short ordinary words of the URL stay readable.
    expect(redact('api mcp bot')).toBe('api mcp bot');
  });

  it('ignores a URL that does not parse', () => {
    expect(redactSecrets({ env: {}, headers: {}, url: 'not a url ${TOKEN}' })('not a url')).toBe('not a url');
  });
});
