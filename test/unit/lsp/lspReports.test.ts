import { describe, expect, it } from 'vitest';
import { runPlan } from '../../../src/cli/planCommand.js';
import { runStatus } from '../../../src/cli/statusCommand.js';
import type { ServerStatus } from '../../../src/model/report/status.js';
import type { PlanReport } from '../../../src/live/planReport.js';
import { fakeLive, server, tool } from '../../ui/fakeLive.js';
import { collect, planWorkspaceEachTest } from '../planWorkspace.js';

/**
 * Decision 157: `status` and `plan` include language servers — `kind` in --json, and in text a
 * section of their own after the MCP servers, by their own names, as in the interactive list.
 */

const languageServer = (name: string, patch: Partial<ServerStatus> = {}) =>
  server(`lsp:${name}`, { kind: 'lsp', scope: 'project', source: '/w/.lsp.json', languages: ['javascript', 'typescript'], ...patch });

describe('status with language servers', () => {
  const statuses = (extra: ServerStatus[] = []) =>
    fakeLive({
      servers: [
        server('alpha', { tools: [tool('alpha', 'echo')], protocolVersion: '2026-07-28', era: 'modern' }),
        languageServer('typescript', { pid: 77, capabilities: ['definition', 'hover', 'references'] }),
        languageServer('ruby', { state: 'blocked', reason: 'excluded', languages: ['ruby'] }),
        ...extra,
      ],
    });

  it('text: the MCP table, then "Language servers" by their own names with languages, capability count and reason', async () => {
    const { out, text } = collect();
    expect(await runStatus(statuses().live, false, out, {})).toBe(0);
    const [mcp = '', lsp = ''] = text().split('\nLanguage servers (lsp:NAME in commands):\n');
    expect(mcp).toMatch(/^SERVER\s+SCOPE\s+STATE\s+PROTOCOL\s+LISTS\s+WHY\nalpha\s+user\s+connected\s+2026-07-28\s+1 tool, 0 prompts\n$/);
    expect(lsp).toMatch(/^SERVER\s+SCOPE\s+STATE\s+LANGUAGES\s+CAPABILITIES\s+WHY\n/);
    expect(lsp).toMatch(/\ntypescript\s+project\s+connected\s+javascript, typescript\s+3\n/);
    expect(lsp).toMatch(/\nruby\s+project\s+blocked\s+ruby\s+excluded by lsp\.excluded\n/);
    expect(text()).not.toContain('lsp:typescript');
  });

  it('text without language servers has no section', async () => {
    const { out, text } = collect();
    await runStatus(fakeLive({ servers: [server('alpha')] }).live, false, out, {});
    expect(text()).not.toContain('Language servers');
  });

  it('text with language servers only says there are no MCP servers, then lists them', async () => {
    const { out, text } = collect();
    await runStatus(fakeLive({ servers: [languageServer('typescript')] }).live, false, out, {});
    expect(text()).toMatch(/^No MCP servers configured\.\n\nLanguage servers \(lsp:NAME in commands\):\nSERVER/);
  });

  it('--json: kind on every server, a language server keyed lsp:NAME with its languages and capabilities', async () => {
    const { out, text } = collect();
    await runStatus(statuses().live, true, out, {});
    const report = JSON.parse(text()) as { servers: ({ name: string } & Record<string, unknown>)[] };
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(byName.alpha).toMatchObject({ kind: 'mcp', tools: ['mcp__alpha__echo'], protocolVersion: '2026-07-28', era: 'modern' });
    expect(byName['lsp:typescript']).not.toHaveProperty('protocolVersion');
    expect(byName.alpha).not.toHaveProperty('languages');
    expect(byName['lsp:typescript']).toMatchObject({
      kind: 'lsp',
      state: 'connected',
      languages: ['javascript', 'typescript'],
      capabilities: ['definition', 'hover', 'references'],
    });
    expect(byName['lsp:ruby']).toMatchObject({ kind: 'lsp', state: 'blocked', reason: 'excluded' });
  });

  it('exits 1 when a language server failed', async () => {
    const { out } = collect();
    expect(await runStatus(statuses([languageServer('broken', { state: 'error', error: 'exited with code 1' })]).live, false, out, {})).toBe(1);
  });
});

describe('plan with language servers (real files)', () => {
  const planFolders = planWorkspaceEachTest('mcp-live-plan-lsp-');

  /** A user `lspServers` entry, an MCP server of the same name, and a project `.lsp.json` (gated). */
  function workspace() {
    const folders = planFolders({
      settings: {
        mcpServers: { typescript: { command: 'node', args: ['mcp-ts.js'] } },
        lspServers: {
          typescript: { command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact', '.mts': 'typescript' } },
        },
      },
      project: {
        '.lsp.json': { python: { command: 'pyright-langserver', args: ['--stdio'], extensionToLanguage: { '.py': 'python' }, settings: { python: { pythonPath: '/usr/bin/python3' } } } },
      },
    });
    return { ...folders, env: {} };
  }

  it('--json: kind, transport and languages of each language server, a gated one pending with its settings under review', async () => {
    const { out, text } = collect();
    expect(await runPlan(workspace(), true, out)).toBe(0);
    const report = JSON.parse(text()) as PlanReport;
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(byName.typescript).toMatchObject({ kind: 'mcp', admitted: true, transport: 'stdio' });
    expect(byName.typescript).not.toHaveProperty('languages');
    expect(byName['lsp:typescript']).toMatchObject({
      kind: 'lsp',
      scope: 'user',
      admitted: true,
      transport: 'stdio',
      languages: ['typescript', 'typescriptreact'],
      target: 'typescript-language-server --stdio',
    });
    expect(byName['lsp:typescript']?.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(byName['lsp:python']).toMatchObject({
      kind: 'lsp',
      scope: 'project',
      admitted: false,
      reason: 'pending_approval',
      approval: 'pending',
      languages: ['python'],
    });
    expect(byName['lsp:python']?.review).toContainEqual({ label: 'settings', value: '{"python":{"pythonPath":"/usr/bin/python3"}}' });
  });

  it('text: MCP servers, then a "Language servers" section by their own names with languages; entries by their keys', async () => {
    const { out, text } = collect();
    expect(await runPlan(workspace(), false, out)).toBe(0);
    const [mcp = '', rest = ''] = text().split('\nLanguage servers (lsp:NAME in commands):\n');
    expect(mcp).toMatch(/\ntypescript\s+user\s+stdio\s+[0-9a-f]{12}\s+would connect\s+node mcp-ts\.js\s/);
    expect(mcp).not.toContain('python');
    const [section = '', entries = ''] = rest.split('\nEntries as written (literal secrets masked):\n');
    expect(section).toMatch(/^SERVER\s+SCOPE\s+TRANSPORT\s+FINGERPRINT\s+ADMISSION\s+LANGUAGES\s+RUNS\s+SOURCE\n/);
    // Pending: how it would be reached, its fingerprint, and the command that approves it by its key (decision 321).
    expect(section).toMatch(/\npython\s+project\s+stdio\s+[0-9a-f]{12}\s+needs approval – approve it with mcp-live approvals approve lsp:python\s+python\s+pyright-langserver --stdio\s/);
    expect(section).toMatch(/\ntypescript\s+user\s+stdio\s+[0-9a-f]{12}\s+would connect\s+typescript, typescriptreact\s+typescript-language-server --stdio\s/);
    expect(entries).toMatch(/^lsp:python \(project, /m);
    expect(entries).toMatch(/^lsp:typescript \(user, /m);
    expect(entries).toMatch(/^typescript \(user, /m);
  });
});
