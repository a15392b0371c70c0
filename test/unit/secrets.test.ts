import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SECRET_MASK,
  createServerMasker,
  createTextMasker,
  isSecretName,
  looksLikeToken,
  maskEntryAsWritten,
  maskText,
  maskingReplacer,
  referencedVariables,
} from '../../src/model/settings/secrets.js';
import { VARIABLE, resolveServerConfig } from '../../src/model/settings/validate.js';

const GHP = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const PAT = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const OPENAI = 'sk-proj-Abc123Def456Ghi789Jkl012';
const ANTHROPIC = 'sk-ant-api03-Abc123Def456Ghi789Jkl012-xyz';
const SLACK = 'xoxb-123456789012-abcdefABCDEF';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const GITLAB = 'glpat-Abc123Def456Ghi789Jk';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const PASSWORD = 'S3cretPassw0rd';

describe('isSecretName', () => {
  it.each([
    'GITHUB_PAT',
    'GH_TOKEN',
    'X-Api-Key',
    'apiKey',
    'APIKey',
    'APIKEY',
    'OPENAI_API_KEY',
    'API_KEY_2',
    'DB_PASSWORD',
    'DB_PASS',
    'DB_PWD',
    'passwd',
    'Authorization',
    'Proxy-Authorization',
    'MY_SECRET_VALUE',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'ACCESSTOKEN',
    'clientSecret',
    'client_secret',
    'X-Auth-Token',
    'BASIC_AUTH',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'Cookie',
    '--api-key',
    '--token',
    '--password',
    '--secret',
    'oauth.clientSecret',
  ])('%s is secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    'PATH',
    'MONKEY',
    'KEYBOARD_LAYOUT',
    'AUTHOR',
    'AUTHOR_EMAIL',
    // The shell's working directory, not a password.
    'PWD',
    'OLDPWD',
    // A socket path; AUTH is secret only as the last word.
    'SSH_AUTH_SOCK',
    'authProviderType',
    'KEY_ID',
    // Pointers to a secret, not secrets: what a reviewer should see.
    'POSTGRES_PASSWORD_FILE',
    'TOKEN_URL',
    'tokenUrl',
    // LLM settings that merely mention tokens.
    'MAX_TOKENS',
    'TOKENIZERS_PARALLELISM',
    'NODE_OPTIONS',
    'HOME',
    'BYPASS',
    'XDG_SESSION_TYPE',
    'Mcp-Session-Id',
    // `-p` is a port or a profile as often as a password.
    '-p',
    'port',
    '',
  ])('%s is not secret', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('looksLikeToken', () => {
  it.each([GHP, 'gho_abcdefghijklmnopqrstuvwxyz0123', PAT, OPENAI, ANTHROPIC, SLACK, AWS, 'ASIAY34FZKBOKMUTVV7A', GITLAB, JWT])(
    '%s is a token',
    (token) => {
      expect(looksLikeToken(token)).toBe(true);
      expect(looksLikeToken(`key: "${token}".`)).toBe(true);
    },
  );

  it('a long credential after Bearer is one', () => {
    expect(looksLikeToken('Bearer 0123456789abcdefXYZ')).toBe(true);
  });

  it.each([
    'ghp_short',
    'sk-learn',
    'task-abcdefghijklmnopqrstuvwxyz0123',
    'AKIAIOSFODNN7EXAMPL',
    'AKIAIOSFODNN7EXAMPLEX',
    'Bearer authentication_failed_here',
    'eyJhbGciOiJIUzI1NiJ9',
    'keyboard monkey author',
    '/usr/local/bin/node',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    // A reference named like a token is a name, not a token.
    `\${${AWS}}`,
  ])('%s is not a token', (text) => {
    expect(looksLikeToken(text)).toBe(false);
  });
});

describe('maskEntryAsWritten', () => {
  it('shows every env key and what affects what runs; masks secret-named and token-shaped values', () => {
    const entry = {
      command: 'node',
      args: ['server.js'],
      cwd: '../elsewhere',
      trust: true,
      timeout: 5000,
      env: {
        NODE_OPTIONS: '--require ./evil.cjs',
        DEBUG: '1',
        API_KEY: 'sk-secret-123',
        GITHUB_TOKEN: '${GITHUB_TOKEN}',
        UPLOAD_TO: GHP,
        DATABASE_URL: `postgres://admin:${PASSWORD}@db:5432/app`,
      },
    };
    expect(maskEntryAsWritten(entry)).toEqual({
      command: 'node',
      args: ['server.js'],
      cwd: '../elsewhere',
      trust: true,
      timeout: 5000,
      env: {
        NODE_OPTIONS: '--require ./evil.cjs',
        DEBUG: '1',
        API_KEY: SECRET_MASK,
        GITHUB_TOKEN: '${GITHUB_TOKEN}',
        UPLOAD_TO: SECRET_MASK,
        DATABASE_URL: 'postgres://***:***@db:5432/app',
      },
    });
  });

  it('masks a literal header credential but keeps its scheme and any reference', () => {
    const entry = {
      httpUrl: 'https://api.example.com/mcp',
      headers: {
        Authorization: `Bearer ${GHP}`,
        'Proxy-Authorization': 'Bearer ${GITHUB_TOKEN}',
        'X-Api-Key': 'abc',
        'X-Trace': 'on',
        'X-Mixed': 'pre${SUFFIX}',
      },
    };
    expect(maskEntryAsWritten(entry)).toEqual({
      httpUrl: 'https://api.example.com/mcp',
      headers: {
        Authorization: 'Bearer ***',
        'Proxy-Authorization': 'Bearer ${GITHUB_TOKEN}',
        'X-Api-Key': SECRET_MASK,
        'X-Trace': 'on',
        'X-Mixed': 'pre${SUFFIX}',
      },
    });
  });

  it('masks URL user info, every query value and long path segments, but not references', () => {
    const masked = maskEntryAsWritten({
      url: `http://alice:${PASSWORD}@host/mcp?token=${GHP}&mode=stream#access_token=abcdef`,
      httpUrl: 'https://me:${PASS}@h/s/k3y-0123456789abcdef/${LONG_PATH_VARIABLE}/mcp?key=${KEY}&a=',
    });
    expect(masked).toEqual({
      url: 'http://***:***@host/mcp?token=***&mode=***#access_token=***',
      httpUrl: 'https://***:${PASS}@h/s/***/${LONG_PATH_VARIABLE}/mcp?key=${KEY}&a=',
    });
  });

  it('masks a query value of a url that starts with a reference', () => {
    expect(maskEntryAsWritten({ url: '${BASE_URL}/mcp?token=literal' })).toEqual({ url: '${BASE_URL}/mcp?token=***' });
  });

  it('masks args in a secret position or holding a token, and only the value part', () => {
    const args = [
      '--token',
      'tok-literal',
      '--api-key',
      '${API_KEY}',
      '--password',
      'hunter2',
      '--secret',
      'a b c',
      '--api-key=literal-key',
      '--api-key=$MYSECRET',
      'DB_PASSWORD=pw',
      '--header',
      'Authorization: Bearer abc',
      '--token',
      '--verbose',
      '-p',
      '5432',
      `--upload=${GHP}`,
      `https://u:${PASSWORD}@h/mcp?k=v`,
      'plain',
    ];
    expect(maskEntryAsWritten({ command: 'npx', args })).toEqual({
      command: 'npx',
      args: [
        '--token',
        SECRET_MASK,
        '--api-key',
        '${API_KEY}',
        '--password',
        SECRET_MASK,
        '--secret',
        SECRET_MASK,
        '--api-key=***',
        '--api-key=$MYSECRET',
        'DB_PASSWORD=***',
        '--header',
        'Authorization: Bearer ***',
        '--token',
        '--verbose',
        '-p',
        '5432',
        '--upload=***',
        'https://***:***@h/mcp?k=***',
        'plain',
      ],
    });
  });

  it('masks every string under a secret-named key at any depth; unknown fields pass through', () => {
    const entry = {
      description: `uses ${OPENAI}`,
      includeTools: ['a'],
      oauth: {
        enabled: true,
        clientId: 'my-client',
        clientSecret: 'cs-literal',
        tokenUrl: 'https://auth.example.com/token?audience=x',
        credentials: { user: 'u', pass: ['p1', 'p2'] },
      },
    };
    expect(maskEntryAsWritten(entry)).toEqual({
      description: 'uses ***',
      includeTools: ['a'],
      oauth: {
        enabled: true,
        clientId: 'my-client',
        clientSecret: SECRET_MASK,
        tokenUrl: 'https://auth.example.com/token?audience=***',
        credentials: { user: SECRET_MASK, pass: [SECRET_MASK, SECRET_MASK] },
      },
    });
  });

  it('does not modify its input and keeps odd keys as data', () => {
    const config = JSON.parse('{"env":{"__proto__":"p","TOKEN":"t"},"__proto__":{"env":{"A_KEY":"b"}}}') as unknown;
    const before = JSON.stringify(config);
    const masked = maskEntryAsWritten(config) as Record<string, unknown>;
    expect(JSON.stringify(config)).toBe(before);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe('{"env":{"__proto__":"p","TOKEN":"***"},"__proto__":{"env":{"A_KEY":"***"}}}');
  });

  it('leaves non-objects and fields of another type alone', () => {
    expect(maskEntryAsWritten('x')).toBe('x');
    expect(maskEntryAsWritten(null)).toBe(null);
    expect(maskEntryAsWritten({ env: 'nope', args: 'x', timeout: 3 })).toEqual({ env: 'nope', args: 'x', timeout: 3 });
  });

  const referencesIn = (value: unknown): string[] =>
    [...JSON.stringify(value).matchAll(VARIABLE)].map((m) => m[0]).sort();

  it('property: no planted literal under a secret-named key survives, and every $VAR reference stays', () => {
    const reference = fc.constantFrom('$GITHUB_TOKEN', '${API_KEY}', '$HOME', '${X}');
    const plain = fc.constantFrom('node', 'server.js', '--verbose', 'https://h/mcp', 'a b', '1', '');
    const text = fc.oneof(plain, reference, fc.tuple(plain, reference).map(([p, r]) => `${p}${r}`));
    const secretKey = fc.constantFrom('GITHUB_TOKEN', 'apiKey', 'Authorization', 'DB_PASSWORD', 'clientSecret', 'X-Api-Key');
    const plainKey = fc.constantFrom('env', 'headers', 'args', 'url', 'command', 'oauth', 'other', '__proto__');
    const planted = fc.stringMatching(/^[A-Za-z0-9]{6,20}$/).map((s) => `PLANTED${s}`);
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(plainKey, tie('node'), { maxKeys: 4 }),
        // A planted secret, alone, beside a reference or as a whole secret subtree.
        fc.tuple(secretKey, planted, fc.constantFrom('', ' ', 'Bearer ')).map(([k, s, p]) => ({ [k]: `${p}${s}` })),
        fc.tuple(secretKey, planted, reference).map(([k, s, r]) => ({ [k]: `${s}${r}` })),
        fc.tuple(secretKey, planted).map(([k, s]) => ({ [k]: { nested: [s] } })),
      ),
    }));
    fc.assert(
      fc.property(tree.node, (entry) => {
        const masked = JSON.stringify(maskEntryAsWritten(entry));
        expect(masked).not.toContain('PLANTED');
        expect(referencesIn(maskEntryAsWritten(entry))).toEqual(referencesIn(entry));
      }),
      { numRuns: 500 },
    );
  });
});

describe('referencedVariables', () => {
  it('lists every variable the expanded fields read, sorted, once', () => {
    const entry = {
      command: '$BIN/server',
      args: ['--api-key=$MYSECRET', '${HOME}/data', '$MYSECRET'],
      env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', $NOT_A_REFERENCE: 'x' },
      cwd: '${WORK}',
      url: 'https://${HOST}/mcp',
      headers: { Authorization: 'Bearer ${API_TOKEN}' },
      description: 'reads $NOTHING',
    };
    expect(referencedVariables(entry)).toEqual(['API_TOKEN', 'BIN', 'GITHUB_TOKEN', 'HOME', 'HOST', 'MYSECRET', 'WORK']);
  });

  it('is empty for anything else', () => {
    expect(referencedVariables('x')).toEqual([]);
    expect(referencedVariables({ args: 'not an array $X' })).toEqual(['X']);
    expect(referencedVariables(null)).toEqual([]);
  });
});

describe('createServerMasker', () => {
  const noArgs = { args: [] as string[] };

  it('masks env values and header values, and the words of a header value', () => {
    const mask = createServerMasker({
      resolved: { ...noArgs, env: { API_KEY: 'sk-live-123456' }, headers: { Authorization: 'Bearer tok-abcdef-999' } },
    });
    expect(mask('key sk-live-123456 sent')).toBe('key *** sent');
    expect(mask('got "Bearer tok-abcdef-999"')).toBe('got "***"');
    expect(mask('token tok-abcdef-999 rejected')).toBe('token *** rejected');
    expect(mask('Bearer auth failed')).toBe('Bearer auth failed');
  });

  it('leaves short values alone and is the identity without secrets', () => {
    expect(createServerMasker({ resolved: { ...noArgs, env: { DEBUG: '1', LEVEL: 'info' }, headers: {} } })('level info, debug 1')).toBe(
      'level info, debug 1',
    );
    expect(createServerMasker({ resolved: { ...noArgs, env: {}, headers: {} } })('anything')).toBe('anything');
  });

  it('masks what a URL may carry: user name, password, query values, long path segments (found by test/slow)', () => {
    const mask = createServerMasker({
      resolved: {
        ...noArgs,
        env: {},
        headers: {},
        url: 'https://bot:pa%24%24word-1@mcp.example.com/api/s/k3y-0123456789abcdef/mcp?api_key=sk-url-123456&mode=stream',
      },
    });
    expect(mask('GET /api/s/k3y-0123456789abcdef/mcp?api_key=sk-url-123456&mode=stream')).toBe('GET /api/s/***/mcp?api_key=***&mode=***');
    expect(mask('from https://bot:pa%24%24word-1@mcp.example.com and pa$$word-1')).toBe('from https://***:***@mcp.example.com and ***');
    expect(mask('api mcp bot')).toBe('api mcp bot');
    expect(createServerMasker({ resolved: { ...noArgs, env: {}, headers: {}, url: 'not a url ${TOKEN}' } })('not a url')).toBe('not a url');
  });

  it('masks `--api-key=$MYSECRET` after expansion, and args in every secret position', () => {
    const written = {
      command: 'node',
      args: ['s.js', '--api-key=$MYSECRET', '--token', 'literal-token-1', 'DB_PASSWORD=literal-pw-2', `--url=http://x:${PASSWORD}@h`],
    };
    const env = { MYSECRET: 'expanded-secret-42' };
    const resolution = resolveServerConfig(written, env);
    if (!resolution.ok) throw new Error(resolution.error);
    const mask = createServerMasker({ resolved: resolution.resolved });
    expect(mask('bad key expanded-secret-42; argv: literal-token-1 literal-pw-2 S3cretPassw0rd')).toBe('bad key ***; argv: *** *** ***');
  });

  it('masks the values an arg took from a non-secret-named variable: by the entry as written, or inferred', () => {
    const written = { command: 'node', args: ['s.js', '$DB_LOCATION', '--data=${HOME}/x'] };
    const env = { DB_LOCATION: 'postgres-internal-7', HOME: '/home/alice', EDITOR: 'vim-nox-1' };
    const resolution = resolveServerConfig(written, env);
    if (!resolution.ok) throw new Error(resolution.error);
    const text = 'cannot reach postgres-internal-7 from /home/alice/x (vim-nox-1)';
    const expected = 'cannot reach *** from /home/alice/x (vim-nox-1)';
    expect(createServerMasker({ resolved: resolution.resolved, written, env })(text)).toBe(expected);
    // Without the entry as written: inferred from an arg equal to a variable's value.
    expect(createServerMasker({ resolved: resolution.resolved, env })(text)).toBe(expected);
  });

  it('masks the value of every inherited secret-named variable, not of other variables', () => {
    const env = { GITHUB_TOKEN: 'inherited-gh-123', MY_API_KEY: 'inherited-key-456', LANG: 'en_US.UTF-8', SSH_AUTH_SOCK: '/tmp/agent.1' };
    const mask = createServerMasker({ resolved: { ...noArgs, env: {}, headers: {} }, env });
    expect(mask('echo inherited-gh-123 inherited-key-456 en_US.UTF-8 /tmp/agent.1')).toBe('echo *** *** en_US.UTF-8 /tmp/agent.1');
  });

  it('masks token formats and URL credentials anywhere, whatever the config', () => {
    const mask = createServerMasker({ resolved: { ...noArgs, env: {}, headers: {} } });
    expect(mask(`auth ${GHP} ${JWT} ${AWS} at https://bob:${PASSWORD}@x.io/p?q=1.`)).toBe('auth *** *** *** at https://***:***@x.io/p?q=***.');
  });
});

describe('maskText', () => {
  it('masks token formats, URL user info and query values, and secret-named env values', () => {
    const env = { NPM_TOKEN: 'npm-secret-value-1', PATH: '/usr/bin:/bin', HOME: '/home/alice' };
    const text = `failed: ${OPENAI} http://alice:${PASSWORD}@host/mcp?token=${GHP}&x=1 npm-secret-value-1 /usr/bin:/bin /home/alice`;
    expect(maskText(text, env)).toBe('failed: *** http://***:***@host/mcp?token=***&x=*** *** /usr/bin:/bin /home/alice');
  });

  it('keeps ordinary text, URLs without credentials and their paths', () => {
    const text = 'server "github" connected at https://api.github.com/modelcontextprotocol/servers (3 tools)';
    expect(maskText(text)).toBe(text);
  });

  it('with maskingReplacer, masks every string value of a JSON value and no key', () => {
    const mask = createTextMasker({ SECRET: 'secret-value' });
    const json = JSON.stringify({ 'secret-value': ['secret-value', { t: GHP }], n: 1 }, maskingReplacer(mask));
    expect(json).toBe('{"secret-value":["***",{"t":"***"}],"n":1}');
  });
});
