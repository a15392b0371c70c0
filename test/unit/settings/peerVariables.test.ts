import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalHash } from '../../../src/model/settings/approvalHash.js';
import { desiredServers, resolveAssembled, serverWarnings } from '../../../src/model/reconcile/plan.js';
import { maskEntryAsWritten, referencedVariables } from '../../../src/model/settings/secrets.js';
import type { AssembledServer, DesiredState, Scope } from '../../../src/model/types.js';
import { expandVars, resolveServerConfig } from '../../../src/model/settings/validate.js';

/**
 * Configs written for the peers must just work (decisions 10 and 80): the extension
 * variables of Gemini CLI and Qwen Code (`${extensionPath}`, `${workspacePath}`, `${/}`,
 * `${pathSeparator}`) and Claude Code's `${VAR:-default}`, each test named after the peer's
 * behaviour it restates (Gemini CLI `variables.test.ts` / `variableSchema.ts`, Claude Code's
 * MCP docs), plus the "not set" warnings.
 */

const EXT = '/home/me/.qwen/extensions/example';
const WORKSPACE = '/work/project';

/** `extensionPath: null` = an entry that comes from no extension. */
function assembled(config: unknown, scope: Scope = 'extension', extensionPath: string | null = EXT): AssembledServer {
  const server: AssembledServer = { name: 'example', scope, source: `${EXT}/qwen-extension.json`, config };
  if (extensionPath !== null) server.extensionPath = extensionPath;
  return server;
}

function resolvedOf(config: unknown, env: Record<string, string | undefined> = {}, server = assembled(config)) {
  const wanted = resolveAssembled(server, env, WORKSPACE);
  if (wanted.resolved === undefined) throw new Error(wanted.invalid);
  return { resolved: wanted.resolved, wanted };
}

describe('extension variables (Gemini CLI and Qwen Code extensions)', () => {
  it('Gemini CLI extension example: ${extensionPath}${/}dist${/}example.js, cwd ${extensionPath}', () => {
    const { resolved, wanted } = resolvedOf({
      command: 'node',
      args: ['${extensionPath}${/}dist${/}example.js'],
      cwd: '${extensionPath}',
    });
    expect(resolved.args).toEqual([`${EXT}${sep}dist${sep}example.js`]);
    expect(resolved.cwd).toBe(EXT);
    expect(wanted.unsetVariables).toBeUndefined();
  });

  it('Gemini CLI variableSchema: ${pathSeparator} is ${/}, the path separator (path.sep)', () => {
    expect(expandVars('a${pathSeparator}b${/}c', {})).toBe(`a${sep}b${sep}c`);
  });

  it('Gemini CLI: ${workspacePath} is the absolute workspace path — in every entry, not only an extension’s', () => {
    for (const scope of ['extension', 'user', 'project', 'cli'] as const) {
      const { resolved } = resolvedOf({ command: 'srv', args: ['--root', '${workspacePath}'] }, {}, assembled({ command: 'srv', args: ['--root', '${workspacePath}'] }, scope));
      expect(resolved.args).toEqual(['--root', WORKSPACE]);
    }
  });

  it('the variables expand in every field $VAR does: command, args, env values, cwd, url, header values', () => {
    const { resolved } = resolvedOf({
      command: '${extensionPath}${/}bin${/}srv',
      args: ['${workspacePath}'],
      env: { ROOT: '${extensionPath}' },
      cwd: '${extensionPath}${/}work',
    });
    expect(resolved).toMatchObject({ command: `${EXT}${sep}bin${sep}srv`, args: [WORKSPACE], env: { ROOT: EXT }, cwd: `${EXT}${sep}work` });
    const remote = resolvedOf({ httpUrl: 'http://h/${pathSeparator}mcp', headers: { 'X-Workspace': '${workspacePath}' } }).resolved;
    expect(remote).toMatchObject({ url: `http://h/${sep}mcp`, headers: { 'X-Workspace': WORKSPACE } });
  });

  it('Gemini CLI hydrates the variables before environment variables: an env var of the same name does not win', () => {
    const { resolved } = resolvedOf({ command: 'srv', args: ['${extensionPath}', '${workspacePath}'] }, { extensionPath: '/evil', workspacePath: '/evil' });
    expect(resolved.args).toEqual([EXT, WORKSPACE]);
  });

  it('Gemini CLI hydrates braced names only: a bare $extensionPath is an environment variable', () => {
    const { resolved } = resolvedOf({ command: 'srv', args: ['$extensionPath'] }, { extensionPath: '/from/env' });
    expect(resolved.args).toEqual(['/from/env']);
  });

  it('Gemini CLI resolves ${VAR} environment variables in the same entry: both kinds in one string', () => {
    const { resolved } = resolvedOf({ command: 'srv', args: ['${extensionPath}${/}${PROFILE}.json'] }, { PROFILE: 'dev' });
    expect(resolved.args).toEqual([`${EXT}${sep}dev.json`]);
  });

  it('${extensionPath} outside an extension is an environment variable: empty, and a warning, when unset', () => {
    // The peers hydrate extension manifests only; in a user entry the name means nothing to them.
    const { resolved, wanted } = resolvedOf({ command: 'srv', args: ['${extensionPath}/x'] }, {}, assembled({ command: 'srv', args: ['${extensionPath}/x'] }, 'user', null));
    expect(resolved.args).toEqual(['/x']);
    expect(serverWarnings(wanted)).toEqual(['extensionPath is not set']);
  });

  it('Gemini CLI leaves an unknown ${name} as written; mcp-live reads it from the environment (decision 10: never a literal $TOKEN)', () => {
    expect(expandVars('Hello, ${unknown}!', {})).toBe('Hello, !');
    // Forms that are no reference at all stay as written, as in the peers.
    expect(expandVars('${a.b} ${} ${VAR-default}', { VAR: 'x' })).toBe('${a.b} ${} ${VAR-default}');
  });

  it('a moved extension gets another fingerprint; the approval hash (the entry as written) stays', () => {
    const config = { command: 'node', args: ['${extensionPath}${/}server.js'] };
    const here = resolveAssembled(assembled(config, 'extension', '/a/ext'), {}, WORKSPACE);
    const moved = resolveAssembled(assembled(config, 'extension', '/b/ext'), {}, WORKSPACE);
    expect(here.fingerprint).not.toBe(moved.fingerprint);
    expect(approvalHash(config)).toBe(approvalHash({ ...config }));
  });

  it('desiredServers passes the extension directory and the workspace of each entry', () => {
    const desired: DesiredState = {
      servers: { example: assembled({ command: 'node', args: ['${extensionPath}${/}a.js'], cwd: '${workspacePath}' }) },
      gating: {},
      trusted: true,
    };
    const { wanted } = desiredServers(desired, undefined, {}, WORKSPACE);
    expect(wanted.example?.resolved).toMatchObject({ args: [`${EXT}${sep}a.js`], cwd: WORKSPACE });
  });
});

describe('${VAR:-default} (Claude Code .mcp.json)', () => {
  it('Claude Code: ${VAR:-default} expands to the default when VAR is not set', () => {
    expect(expandVars('${LOG_LEVEL:-info}', {})).toBe('info');
    expect(expandVars('http://${HOST:-localhost}:${PORT:-8080}/mcp', { PORT: '9000' })).toBe('http://localhost:9000/mcp');
  });

  it('Claude Code: ${VAR:-default} expands to VAR when it is set', () => {
    expect(expandVars('${LOG_LEVEL:-info}', { LOG_LEVEL: 'debug' })).toBe('debug');
  });

  it('POSIX :- — an empty VAR takes the default too', () => {
    expect(expandVars('${LOG_LEVEL:-info}', { LOG_LEVEL: '' })).toBe('info');
  });

  it('an empty default expands to "" without a warning', () => {
    const unset = new Set<string>();
    expect(expandVars('a${OPTIONAL:-}b', {}, {}, unset)).toBe('ab');
    expect([...unset]).toEqual([]);
  });

  it('the default is taken as written: no expansion inside it, it ends at the first }', () => {
    expect(expandVars('${A:-$HOME}', { HOME: '/h' })).toBe('$HOME');
    expect(expandVars('${A:-${B}}', { B: 'b' })).toBe('${B}');
  });

  it('${VAR-default} (no colon) is not Claude Code syntax: it stays as written', () => {
    expect(expandVars('${LOG_LEVEL-info}', {})).toBe('${LOG_LEVEL-info}');
  });

  it('a built-in takes a default too, when it is not known here', () => {
    expect(expandVars('${extensionPath:-/none}', {})).toBe('/none');
    expect(expandVars('${extensionPath:-/none}', {}, { extensionPath: EXT })).toBe(EXT);
  });
});

describe('unset variables: expanded to "", and named in a warning', () => {
  it('Claude Code .mcp.json: an unset ${GITHUB_PAT} without a default expands to empty and warns "GITHUB_PAT is not set"', () => {
    const server = assembled({ command: 'srv', env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_PAT}' } }, 'project', null);
    const wanted = resolveAssembled(server, {}, WORKSPACE);
    expect(wanted.resolved?.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '' });
    expect(wanted.unsetVariables).toEqual(['GITHUB_PAT']);
    expect(serverWarnings(wanted)).toEqual(['GITHUB_PAT is not set']);
  });

  it('names each unset variable once, sorted, and never a value', () => {
    const { wanted } = resolvedOf({ command: '$B', args: ['${A}', '$B', '${SET}'], env: { X: '${C:-c}' } }, { SET: 'value-1' });
    expect(wanted.unsetVariables).toEqual(['A', 'B']);
    expect(JSON.stringify(serverWarnings(wanted))).not.toContain('value-1');
  });

  it('a variable set to "" is set: no warning', () => {
    expect(resolvedOf({ command: 'srv', args: ['$EMPTY'] }, { EMPTY: '' }).wanted.unsetVariables).toBeUndefined();
  });

  it('only the fields of the chosen transport warn (the others are not used)', () => {
    const { wanted } = resolvedOf({ httpUrl: 'http://h/mcp', headers: { A: '${HEADER_TOKEN}' }, env: { B: '${UNUSED}' }, command: '$UNUSED_TOO' });
    expect(wanted.unsetVariables).toEqual(['HEADER_TOKEN']);
  });

  it('resolveServerConfig reports them; an invalid entry has none', () => {
    const ok = resolveServerConfig({ command: 'srv', args: ['$MISSING'] }, {});
    expect(ok.ok && ok.unsetVariables).toEqual(['MISSING']);
    expect(resolveAssembled(assembled({ args: 'x' }), {}, WORKSPACE).unsetVariables).toBeUndefined();
  });
});

describe('the approval review of the new forms (model/settings/secrets.ts)', () => {
  it('"reads from your environment" lists environment variables only: not ${/}, ${workspacePath}, ${extensionPath}', () => {
    const entry = { command: 'node', args: ['${extensionPath}${/}a.js', '${workspacePath}', '${pathSeparator}'], env: { T: '${TOKEN:-none}', U: '$USER_NAME' } };
    expect(referencedVariables(entry)).toEqual(['TOKEN', 'USER_NAME']);
  });

  it('a literal default in a secret-named field is masked; the variable name stays', () => {
    expect(maskEntryAsWritten({ env: { API_KEY: '${API_KEY:-sk-literal-default-123}' } })).toEqual({ env: { API_KEY: '${API_KEY:-***}' } });
    expect(maskEntryAsWritten({ env: { API_KEY: '${API_KEY}' } })).toEqual({ env: { API_KEY: '${API_KEY}' } });
    expect(maskEntryAsWritten({ env: { LOG_LEVEL: '${LOG_LEVEL:-info}' } })).toEqual({ env: { LOG_LEVEL: '${LOG_LEVEL:-info}' } });
  });
});
