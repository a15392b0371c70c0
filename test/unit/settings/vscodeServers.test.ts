import { describe, expect, it } from 'vitest';
import { resolveServerConfig, validateServerConfig } from '../../../src/model/settings/validate.js';
import { fromVsCodeServers, isVsCodeShape, vscodeShapeNotes } from '../../../src/model/settings/vscodeServers.js';

/**
 * Decision 327: VS Code's `{"servers": …, "inputs": …}` shape read as the `mcpServers` entries it
 * means, and what cannot be honoured (prompted inputs, `envFile`) refused in words.
 */

const env = { GITHUB_TOKEN: 'tok', HOME: '/home/u' };

describe('fromVsCodeServers', () => {
  it('maps each transport by its type: http is Streamable HTTP, sse is SSE, stdio runs the command', () => {
    const mapped = fromVsCodeServers({
      github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' } },
      legacy: { type: 'sse', url: 'https://example.test/sse' },
      local: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/server.js'], env: { TOKEN: '${env:GITHUB_TOKEN}' } },
    });
    expect(mapped).toEqual({
      github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
      legacy: { type: 'sse', url: 'https://example.test/sse' },
      local: { type: 'stdio', command: 'node', args: ['${workspacePath}/server.js'], env: { TOKEN: '${GITHUB_TOKEN}' } },
    });
    const resolve = (name: string) => {
      const r = resolveServerConfig(mapped[name], env, '/work/project');
      if (!r.ok) throw new Error(r.error);
      return r.resolved;
    };
    expect(resolve('github')).toMatchObject({ transport: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer tok' } });
    expect(resolve('legacy')).toMatchObject({ transport: 'sse', url: 'https://example.test/sse' });
    expect(resolve('local')).toMatchObject({ transport: 'stdio', command: 'node', args: ['/work/project/server.js'], env: { TOKEN: 'tok' } });
  });

  it('a url without a type is Streamable HTTP, as VS Code tries first; a stdio entry never goes to its url', () => {
    const mapped = fromVsCodeServers({ remote: { url: 'https://example.test/mcp' }, both: { type: 'stdio', command: 'node', url: 'https://example.test/mcp' } });
    expect(mapped.remote).toEqual({ url: 'https://example.test/mcp', type: 'http' });
    expect(mapped.both).toEqual({ type: 'stdio', command: 'node' });
    const both = resolveServerConfig(mapped.both, env);
    expect(both.ok && both.resolved.transport).toBe('stdio');
  });

  it('keeps our own fields, other variables and what is not an object as written; a server named __proto__ is a server', () => {
    const mapped = fromVsCodeServers(
      JSON.parse('{"__proto__": {"command": "x", "timeout": 5000, "args": ["${HOME}", "${env:lower_case}", "${env:}"]}, "odd": "not an entry"}') as Record<string, unknown>,
    );
    expect(Object.keys(mapped)).toEqual(['__proto__', 'odd']);
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    expect(mapped.__proto__).toEqual({ command: 'x', timeout: 5000, args: ['${HOME}', '${lower_case}', '${env:}'] });
    expect(mapped.odd).toBe('not an entry');
    expect(validateServerConfig(mapped.odd)).toEqual({ ok: false, error: 'server config must be an object' });
  });
});

describe('what mcp-live cannot honour is refused in words (any entry)', () => {
  it('a prompted input ${input:ID} makes the entry invalid, naming the field and the way out', () => {
    const [entry] = Object.values(fromVsCodeServers({ gh: { command: 'npx', args: ['server'], env: { TOKEN: '${input:github-token}' } } }));
    expect(validateServerConfig(entry)).toEqual({
      ok: false,
      error:
        'env uses ${input:github-token}, a value VS Code prompts for, which is not supported: read it from the environment instead, ${NAME} (in VS Code\'s "servers" also ${env:NAME})',
    });
    expect(validateServerConfig({ url: 'https://x.test', headers: { A: 'Bearer ${input:t}' } })).toMatchObject({ ok: false, error: expect.stringContaining('headers uses ${input:t}') as string });
    expect(validateServerConfig({ command: 'x', args: ['--key=${input:k}'] })).toMatchObject({ ok: false, error: expect.stringContaining('args uses ${input:k}') as string });
    // A description may say anything: it is not expanded.
    expect(validateServerConfig({ command: 'x', description: 'asks ${input:k} in VS Code' })).toMatchObject({ ok: true });
  });

  it('envFile is refused: the server would run without the variables it names', () => {
    expect(validateServerConfig({ type: 'stdio', command: 'x', envFile: '${workspacePath}/.env' })).toEqual({
      ok: false,
      error: 'envFile is not supported: put the variables in "env" (${NAME} reads one from the environment)',
    });
  });
});

describe('vscodeShapeNotes and isVsCodeShape', () => {
  it('inputs are named once when the servers are read from "servers"; an empty list says nothing', () => {
    expect(isVsCodeShape({ servers: {} })).toBe(true);
    expect(isVsCodeShape({ servers: [] })).toBe(false);
    expect(isVsCodeShape({ mcpServers: {}, servers: {} })).toBe(false);
    expect(vscodeShapeNotes('/p/.mcp.json', { servers: {}, inputs: [] })).toEqual([]);
    expect(vscodeShapeNotes('/p/.mcp.json', { servers: { a: {} }, inputs: [{ id: 'k', type: 'promptString' }] })).toEqual([
      {
        key: 'inputs',
        error:
          '/p/.mcp.json: "inputs" (VS Code\'s prompted values) are not supported; a server that uses one (${input:…}) is invalid — read the value from the environment instead, ${env:NAME} or ${NAME}',
      },
    ]);
  });

  it('both keys: mcpServers wins and the servers left out are named as ignored', () => {
    expect(vscodeShapeNotes('/p/.mcp.json', { mcpServers: { a: {} }, servers: { b: {} } })).toEqual([
      { key: 'servers', error: '/p/.mcp.json: both "mcpServers" and VS Code\'s "servers"; reading "mcpServers", ignoring "servers"' },
    ]);
    expect(vscodeShapeNotes('/p/.mcp.json', { mcpServers: { a: {} }, servers: {} })).toEqual([]);
  });
});
