import { describe, expect, it } from 'vitest';
import {
  NO_TRANSPORT_ERROR,
  expandVars,
  resolveServerConfig,
  transportKind,
  validateServerConfig,
} from '../../../src/model/settings/validate.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../../../src/model/types.js';

describe('validateServerConfig', () => {
  it('accepts a full valid entry and returns it unchanged, unknown fields kept', () => {
    const raw = {
      command: 'node',
      args: ['a'],
      env: { A: '1' },
      cwd: '/tmp',
      url: 'http://x',
      httpUrl: 'http://y',
      type: 'http',
      headers: { H: 'v' },
      timeout: 5,
      trust: true,
      description: 'd',
      includeTools: ['t'],
      excludeTools: [],
      disabled: false,
      somethingElse: { nested: 1 },
    };
    const result = validateServerConfig(raw);
    expect(result).toEqual({ ok: true, config: raw });
    expect(result.ok && result.config.somethingElse).toEqual({ nested: 1 });
  });

  it('accepts an empty object (the transport is checked by resolveServerConfig)', () => {
    expect(validateServerConfig({}).ok).toBe(true);
  });

  it.each([
    [null, 'server config must be an object'],
    ['node', 'server config must be an object'],
    [['node'], 'server config must be an object'],
    [42, 'server config must be an object'],
  ])('rejects a non-object entry %j', (raw, error) => {
    expect(validateServerConfig(raw)).toEqual({ ok: false, error });
  });

  it.each([
    [{ command: 1 }, 'command must be a non-empty string'],
    [{ command: '' }, 'command must be a non-empty string'],
    [{ args: 'a b' }, 'args must be an array of strings'],
    [{ args: ['a', 1] }, 'args must be an array of strings'],
    [{ env: ['A=1'] }, 'env must be an object of strings'],
    [{ env: { A: 1 } }, 'env must be an object of strings'],
    [{ env: null }, 'env must be an object of strings'],
    [{ cwd: 1 }, 'cwd must be a string'],
    [{ url: '' }, 'url must be a non-empty string'],
    [{ httpUrl: 5 }, 'httpUrl must be a non-empty string'],
    [{ type: 1 }, 'type must be a string'],
    [{ headers: { A: true } }, 'headers must be an object of strings'],
    [{ timeout: 0 }, 'timeout must be a positive number (milliseconds)'],
    [{ timeout: -1 }, 'timeout must be a positive number (milliseconds)'],
    [{ timeout: Number.POSITIVE_INFINITY }, 'timeout must be a positive number (milliseconds)'],
    [{ timeout: '100' }, 'timeout must be a positive number (milliseconds)'],
    [{ trust: 'yes' }, 'trust must be a boolean'],
    [{ description: 1 }, 'description must be a string'],
    [{ includeTools: 'a' }, 'includeTools must be an array of strings'],
    [{ excludeTools: [null] }, 'excludeTools must be an array of strings'],
    [{ disabled: 1 }, 'disabled must be a boolean'],
  ])('names the field and what was expected: %j', (raw, error) => {
    expect(validateServerConfig({ command: 'x', ...raw })).toEqual({ ok: false, error });
  });

  it('lists every bad field', () => {
    expect(validateServerConfig({ command: 'x', args: 1, trust: 1 })).toEqual({
      ok: false,
      error: 'args must be an array of strings; trust must be a boolean',
    });
  });

  it('treats an undefined field as absent and ignores inherited fields', () => {
    expect(validateServerConfig({ command: 'x', args: undefined }).ok).toBe(true);
    const inherited = Object.create({ args: 'not an array' }) as Record<string, unknown>;
    inherited.command = 'x';
    expect(validateServerConfig(inherited).ok).toBe(true);
  });
});

describe('transportKind', () => {
  it('httpUrl → http, before url and command', () => {
    expect(transportKind({ httpUrl: 'h', url: 'u', command: 'c' })).toBe('http');
  });

  it('url → sse, unless type is http or streamable-http', () => {
    expect(transportKind({ url: 'u', command: 'c' })).toBe('sse');
    expect(transportKind({ url: 'u', type: 'sse' })).toBe('sse');
    expect(transportKind({ url: 'u', type: 'http' })).toBe('http');
    expect(transportKind({ url: 'u', type: 'streamable-http' })).toBe('http');
  });

  it('command → stdio; nothing → undefined', () => {
    expect(transportKind({ command: 'c' })).toBe('stdio');
    expect(transportKind({ type: 'http' })).toBeUndefined();
    expect(transportKind({})).toBeUndefined();
  });
});

describe('expandVars', () => {
  const env = { HOME: '/home/me', TOKEN: 'secret', EMPTY: '', UNDEF: undefined };

  it('expands $VAR and ${VAR}', () => {
    expect(expandVars('$HOME/bin', env)).toBe('/home/me/bin');
    expect(expandVars('${HOME}bin', env)).toBe('/home/mebin');
    expect(expandVars('Bearer $TOKEN and ${TOKEN}', env)).toBe('Bearer secret and secret');
  });

  it('takes the longest name after a bare $', () => {
    expect(expandVars('$HOMEDIR', env)).toBe('');
    expect(expandVars('$HOME-dir', env)).toBe('/home/me-dir');
  });

  it('expands an unset variable to the empty string', () => {
    expect(expandVars('a$MISSING.b', env)).toBe('a.b');
    expect(expandVars('a${MISSING}b', env)).toBe('ab');
    expect(expandVars('$UNDEF', env)).toBe('');
    expect(expandVars('$EMPTY', env)).toBe('');
  });

  it('leaves a $ that does not start a name as written', () => {
    expect(expandVars('cost $5', env)).toBe('cost $5');
    expect(expandVars('a $ b', env)).toBe('a $ b');
    expect(expandVars('${HOME', env)).toBe('${HOME');
    expect(expandVars('${1X}', env)).toBe('${1X}');
  });

  it('does not read Object.prototype members', () => {
    expect(expandVars('$__proto__$toString${constructor}', env)).toBe('');
  });

  it('does not expand recursively', () => {
    expect(expandVars('$A', { A: '$B', B: 'no' })).toBe('$B');
  });
});

describe('resolveServerConfig', () => {
  const env = { HOME: '/home/me', TOKEN: 's3cret', PORT: '8080' };

  it('resolves a stdio entry with expansion everywhere and the default timeout', () => {
    const result = resolveServerConfig(
      {
        command: '$HOME/bin/srv',
        args: ['--port', '${PORT}', '$MISSING'],
        env: { KEY: '$TOKEN', PLAIN: 'p' },
        cwd: '${HOME}/work',
        includeTools: ['a'],
        description: 'd',
      },
      env,
    );
    expect(result).toEqual({
      ok: true,
      resolved: {
        transport: 'stdio',
        command: '/home/me/bin/srv',
        args: ['--port', '8080', ''],
        env: { KEY: 's3cret', PLAIN: 'p' },
        cwd: '/home/me/work',
        headers: {},
        timeout: DEFAULT_TIMEOUT_MS,
        connectTimeout: DEFAULT_CONNECT_TIMEOUT_MS,
      },
      view: { includeTools: ['a'], description: 'd' },
      unsetVariables: ['MISSING'],
    });
  });

  it('resolves httpUrl with expanded header values and a set timeout', () => {
    const result = resolveServerConfig(
      { httpUrl: 'http://localhost:$PORT/mcp', headers: { Authorization: 'Bearer $TOKEN' }, timeout: 5000, trust: true },
      env,
    );
    expect(result).toEqual({
      ok: true,
      resolved: {
        transport: 'http',
        url: 'http://localhost:8080/mcp',
        args: [],
        env: {},
        headers: { Authorization: 'Bearer s3cret' },
        timeout: 5000,
        connectTimeout: 5000,
      },
      view: { trust: true },
      unsetVariables: [],
    });
  });

  it('resolves url as SSE, or Streamable HTTP with type http', () => {
    const sse = resolveServerConfig({ url: 'http://h/${PORT}/sse' }, env);
    expect(sse.ok && sse.resolved).toMatchObject({ transport: 'sse', url: 'http://h/8080/sse' });
    const http = resolveServerConfig({ url: 'http://h/mcp', type: 'http' }, env);
    expect(http.ok && http.resolved).toMatchObject({ transport: 'http', url: 'http://h/mcp' });
  });

  it('keeps only the chosen transport’s fields', () => {
    const remote = resolveServerConfig({ url: 'u', command: 'c', args: ['a'], env: { A: '1' }, cwd: '/x' }, env);
    expect(remote.ok && remote.resolved).toEqual({
      transport: 'sse',
      url: 'u',
      args: [],
      env: {},
      headers: {},
      timeout: DEFAULT_TIMEOUT_MS,
      connectTimeout: DEFAULT_CONNECT_TIMEOUT_MS,
    });
    const stdio = resolveServerConfig({ command: 'c', headers: { A: '1' } }, env);
    expect(stdio.ok && stdio.resolved.headers).toEqual({});
  });

  it('keeps a __proto__ key in env and headers as data', () => {
    const raw: unknown = JSON.parse('{"command":"c","env":{"__proto__":"$TOKEN"}}');
    const result = resolveServerConfig(raw, env);
    expect(result.ok && Object.hasOwn(result.resolved.env, '__proto__')).toBe(true);
    expect(result.ok && result.resolved.env.__proto__).toBe('s3cret');
  });

  it('reports a missing transport', () => {
    expect(resolveServerConfig({ args: ['x'] }, env)).toEqual({ ok: false, error: NO_TRANSPORT_ERROR });
    expect(NO_TRANSPORT_ERROR).toBe('no transport: set command, url or httpUrl');
  });

  it('reports validation errors before the transport', () => {
    expect(resolveServerConfig({ args: 'x' }, env)).toEqual({ ok: false, error: 'args must be an array of strings' });
  });
});
