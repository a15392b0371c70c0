import { describe, expect, it } from 'vitest';
import { admit, admitAll, UNTRUSTED_IGNORED_DETAIL } from '../../../src/model/admission/admit.js';
import { approvalHash } from '../../../src/model/settings/approvalHash.js';
import { assemble, type AssembleInput } from '../../../src/model/settings/assemble.js';
import { languageOf, resolveLspConfig } from '../../../src/model/lsp/lspConfig.js';
import { desiredServers, plan, type LiveEntry } from '../../../src/model/reconcile/plan.js';
import { reviewEntry } from '../../../src/model/admission/reviewEntry.js';
import type { SourceSnapshot } from '../../../src/model/types.js';

const TS = { command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact' } };
const PY = { command: 'pyright-langserver', args: ['--stdio'], extensionToLanguage: { '.py': 'python' }, settings: { python: { analysis: { typeCheckingMode: 'basic' } } } };

function input(sources: SourceSnapshot[], extra: Partial<AssembleInput> = {}): AssembleInput {
  return { sources, approvals: {}, sessionApprovals: {}, folderTrusted: true, ...extra };
}

describe('language servers in the desired state (decision 145)', () => {
  it('are keyed lsp:NAME beside MCP servers of the same name, with the same precedence (later scope wins the whole entry)', () => {
    const desired = assemble(
      input([
        { scope: 'user', file: '/u.json', servers: { ts: { command: 'mcp-ts' } }, lspServers: { ts: TS, py: PY } },
        { scope: 'cli', file: '/cli.json', servers: {}, lspServers: { py: { ...PY, args: ['--stdio', '--verbose'] } } },
      ]),
    );
    expect(Object.keys(desired.servers)).toEqual(['lsp:py', 'lsp:ts', 'ts']);
    expect(desired.servers['ts']!.config).toEqual({ command: 'mcp-ts' });
    expect(desired.servers['lsp:ts']).toMatchObject({ name: 'lsp:ts', scope: 'user', source: '/u.json', config: TS });
    expect(desired.servers['lsp:py']).toMatchObject({ scope: 'cli', source: '/cli.json' });
  });

  it('leaves out an mcpServers entry whose name would take a language server key', () => {
    const desired = assemble(input([{ scope: 'project', file: '/w/.mcp.json', servers: { 'lsp:ts': { command: 'evil' }, ok: { command: 'x' } } }]));
    expect(Object.keys(desired.servers)).toEqual(['ok']);
  });

  it('gates project language servers by approval, namespaced: an approval of MCP server "ts" does not approve language server "ts"', () => {
    const sources: SourceSnapshot[] = [{ scope: 'project', file: '/w/.lsp.json', servers: { ts: TS }, lspServers: { ts: TS } }];
    const approvals = { ts: { hash: approvalHash(TS), status: 'approved' as const } };
    const desired = assemble(input(sources, { approvals }));
    expect(desired.gating.pending).toEqual(['lsp:ts']);
    const { wanted, blocked } = desiredServers(desired, undefined, {}, '/w');
    expect(Object.keys(wanted)).toEqual(['ts']);
    expect(blocked['lsp:ts']).toEqual({ reason: 'pending_approval' });

    const approved = assemble(input(sources, { approvals: { 'lsp:ts': { hash: approvalHash(TS), status: 'approved' } } }));
    expect(approved.gating.pending).toEqual(['ts']);
    expect(Object.keys(desiredServers(approved, undefined, {}, '/w').wanted)).toEqual(['lsp:ts']);
  });

  it('never admits a language server from an untrusted folder', () => {
    const desired = assemble(
      input([
        { scope: 'user', file: '/u.json', servers: {}, folderTrustEnabled: true },
        { scope: 'project', file: '/w/.lsp.json', servers: {}, lspServers: { ts: TS } },
      ], { folderTrusted: false }),
    );
    // Listed so the user sees why (decision 260), never admitted.
    expect(desired.servers['lsp:ts']).toMatchObject({ scope: 'project' });
    expect(admit('lsp:ts', desired.servers['lsp:ts']!, desired)).toEqual({ admitted: false, reason: 'untrusted_folder', detail: UNTRUSTED_IGNORED_DETAIL });
  });

  it('admits by lsp.excluded / lsp.allowed (own names); mcp lists and the --allowed-mcp-server-names flag do not apply to language servers', () => {
    const desired = assemble(
      input([
        {
          scope: 'user',
          file: '/u.json',
          servers: { ts: { command: 'x' }, py: { command: 'y' } },
          lspServers: { ts: TS, py: PY, go: { command: 'gopls', extensionToLanguage: { '.go': 'go' } } },
          mcp: { excluded: ['py'] },
          lsp: { excluded: ['TS'], allowed: ['ts', 'py'] },
        },
      ]),
    );
    const admissions = admitAll(desired, ['ts']);
    expect(admissions['ts']).toEqual({ admitted: true });
    expect(admissions['py']).toEqual({ admitted: false, reason: 'excluded' });
    expect(admissions['lsp:ts']).toEqual({ admitted: false, reason: 'excluded' });
    expect(admissions['lsp:py']).toEqual({ admitted: true });
    expect(admissions['lsp:go']).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' });
  });

  it('a workspace lsp.allowed narrows the user list, never widens it', () => {
    const desired = assemble(
      input([
        { scope: 'user', file: '/u.json', servers: {}, lspServers: { ts: TS, py: PY }, lsp: { allowed: ['ts'] } },
        { scope: 'workspace', file: '/w/s.json', servers: {}, lsp: { allowed: ['ts', 'py'] } },
      ]),
    );
    expect(desired.gating.lspAllowed).toEqual(['ts']);
    const admissions = admitAll(desired);
    expect(admissions['lsp:py']).toMatchObject({ admitted: false, reason: 'not_allowed' });
  });
});

describe('resolveLspConfig', () => {
  it('expands variables, resolves the workspace folder and puts the view aside', () => {
    const resolution = resolveLspConfig(
      { ...PY, command: '${extensionPath}${/}bin/ls', env: { TOKEN: '$SECRET' }, workspaceFolder: 'sub', initializationOptions: { a: 1 } },
      { SECRET: 's3' },
      '/w',
      '/ext',
    );
    expect(resolution).toMatchObject({
      ok: true,
      resolved: { transport: 'stdio', command: '/ext/bin/ls', args: ['--stdio'], env: { TOKEN: 's3' }, cwd: '/w/sub', connectTimeout: 30_000 },
      view: { lsp: { settings: PY.settings, extensionToLanguage: { '.py': 'python' }, shutdownTimeout: 5_000, restartOnCrash: true, maxRestarts: 3 } },
    });
    if (!resolution.ok) throw new Error('unreachable');
    expect(resolution.resolved.lsp).toMatchObject({ transport: 'stdio', workspaceFolder: '/w/sub', initializationOptions: { a: 1 } });
  });

  it('names every bad field, and what is missing', () => {
    expect(resolveLspConfig({ command: '', extensionToLanguage: { ts: 'x' }, maxRestarts: -1 }, {})).toEqual({
      ok: false,
      error: 'command must be a non-empty string; extensionToLanguage must be an object from extensions (".ts") to language ids; maxRestarts must be a whole number ≥ 0',
    });
    expect(resolveLspConfig({ extensionToLanguage: { '.ts': 'typescript' } }, {})).toEqual({ ok: false, error: 'command is required' });
    expect(resolveLspConfig({ command: 'x' }, {})).toEqual({ ok: false, error: 'extensionToLanguage is required' });
    expect(resolveLspConfig({ transport: 'socket', extensionToLanguage: { '.x': 'x' } }, {})).toEqual({ ok: false, error: 'socket is required with transport "socket"' });
    expect(resolveLspConfig('nope', {})).toEqual({ ok: false, error: 'language server config must be an object' });
  });

  it('takes a socket as a port, host and port, or a path', () => {
    const socketOf = (socket: unknown) => {
      const r = resolveLspConfig({ transport: 'socket', socket, extensionToLanguage: { '.x': 'x' } }, {}, '/w');
      return r.ok ? r.resolved.lsp.socket : r.error;
    };
    expect(socketOf(2087)).toEqual({ port: 2087, host: '127.0.0.1' });
    expect(socketOf({ port: 2087, host: 'localhost' })).toEqual({ port: 2087, host: 'localhost' });
    expect(socketOf({ path: '/tmp/ls.sock' })).toEqual({ path: '/tmp/ls.sock' });
    expect(socketOf({ port: 70000 })).toMatch(/socket must be/);
  });

  it('routes a file by its extension', () => {
    const view = { extensionToLanguage: { '.ts': 'typescript', '.d': 'd' } };
    expect(languageOf(view, '/w/src/a.ts')).toBe('typescript');
    expect(languageOf(view, 'C:\\w\\a.ts')).toBe('typescript');
    expect(languageOf(view, '/w/.ts')).toBeUndefined();
    expect(languageOf(view, '/w.ts/Makefile')).toBeUndefined();
    expect(languageOf(view, '/w/a.py')).toBeUndefined();
  });
});

describe('planning a language server', () => {
  const desiredOf = (config: unknown) => desiredServers(assemble(input([{ scope: 'user', file: '/u.json', servers: {}, lspServers: { ts: config } }])), undefined, {}, '/w');
  const liveOf = (config: unknown): Map<string, LiveEntry> => {
    const w = desiredOf(config).wanted['lsp:ts']!;
    return new Map([['lsp:ts', { fingerprint: w.fingerprint, view: w.view, state: 'connected' }]]);
  };

  it('restarts on a change of command, args, env, initializationOptions, workspace folder or startup deadline', () => {
    for (const change of [{ args: ['--stdio', '--log'] }, { env: { A: 'b' } }, { initializationOptions: { x: 1 } }, { workspaceFolder: 'sub' }, { startupTimeout: 5 }]) {
      const steps = plan(desiredOf({ ...TS, ...change }).wanted, {}, liveOf(TS));
      expect(steps.map((s) => s.change), JSON.stringify(change)).toEqual(['reconnected']);
    }
  });

  it('applies settings, routing, shutdown deadline and restart policy in place', () => {
    for (const change of [{ settings: { a: 1 } }, { extensionToLanguage: { '.ts': 'typescript' } }, { shutdownTimeout: 100 }, { restartOnCrash: false }, { maxRestarts: 0 }]) {
      const steps = plan(desiredOf({ ...TS, ...change }).wanted, {}, liveOf(TS));
      expect(steps.map((s) => s.change), JSON.stringify(change)).toEqual(['updated']);
      expect(steps[0]!.actions.map((a) => a.type)).toEqual(['refilter']);
    }
    expect(plan(desiredOf(structuredClone(TS)).wanted, {}, liveOf(TS)).map((s) => s.change)).toEqual(['unchanged']);
  });

  it('an invalid entry becomes that server’s error only', () => {
    const { wanted } = desiredOf({ command: 'x' });
    expect(wanted['lsp:ts']!.invalid).toBe('invalid_config: extensionToLanguage is required');
  });
});

describe('reviewing a language server entry', () => {
  it('shows what decides what runs: command, env, workspace folder, initializationOptions and settings', () => {
    const entry = { ...PY, env: { NODE_OPTIONS: '--require ./evil.cjs' }, workspaceFolder: '..', initializationOptions: { pythonPath: './evil' } };
    const lines = reviewEntry(entry, 'lsp').lines.map((l) => `${l.label}: ${l.value}`);
    expect(lines).toEqual([
      'command: pyright-langserver --stdio',
      'env: NODE_OPTIONS=--require ./evil.cjs',
      'workspaceFolder: ..',
      'extensionToLanguage: {".py":"python"}',
      'initializationOptions: {"pythonPath":"./evil"}',
      'settings: {"python":{"analysis":{"typeCheckingMode":"basic"}}}',
    ]);
  });
});
