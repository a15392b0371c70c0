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
});
