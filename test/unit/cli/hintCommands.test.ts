import { describe, expect, it } from 'vitest';
import { gatewayStopCommand } from '../../../src/cli/serveCommand.js';
import { formatStatusTable } from '../../../src/cli/statusCommand.js';
import { reasonTextForShell } from '../../../src/model/report/messages.js';
import type { ServerStatus } from '../../../src/model/report/status.js';

const status = (patch: Partial<ServerStatus>): ServerStatus => ({
  name: 's',
  scope: 'project',
  source: '/w/.mcp.json',
  state: 'disconnected',
  tools: [],
  prompts: [],
  resources: [],
  history: [],
  ...patch,
});

describe('hints that name the command that works (decision 321)', () => {
  it('a pending server names the approve command, its name one shell word; other reasons as before', () => {
    expect(reasonTextForShell('p', 'pending_approval')).toBe('needs approval – approve it with mcp-live approvals approve p');
    expect(reasonTextForShell("it's mine", 'pending_approval')).toBe("needs approval – approve it with mcp-live approvals approve 'it'\\''s mine'");
    expect(reasonTextForShell('lsp:md', 'pending_approval', undefined, undefined, 'lsp')).toBe('needs approval – approve it with mcp-live approvals approve lsp:md');
    expect(reasonTextForShell('x', 'excluded', undefined, undefined, 'lsp')).toBe('excluded by lsp.excluded');
  });

  it('status rows of pending servers carry it, a language server by its key; the table stays terminal-safe', () => {
    const table = formatStatusTable([
      status({ name: 'p', reason: 'pending_approval' }),
      status({ name: 'lsp:md', reason: 'pending_approval' }),
      status({ name: 'e\u001b[2J', reason: 'pending_approval' }),
    ]);
    expect(table).toMatch(/\np\s+project\s+disconnected\s+needs approval – approve it with mcp-live approvals approve p\n/);
    expect(table).toMatch(/\nmd\s+project\s+disconnected\s+needs approval – approve it with mcp-live approvals approve lsp:md\n/);
    expect(table).not.toContain('\u001b');
  });

  it('the stop command names the gateway’s profile, its user settings file when given, and its workspace, shell-quoted', () => {
    expect(gatewayStopCommand({ profile: 'gemini', cwd: '/w/app' })).toBe('mcp-live serve --stop --profile gemini --cwd /w/app');
    expect(gatewayStopCommand({ profile: 'qwen', cwd: "/w/my app's", userSettings: '/h/s.json' })).toBe(
      "mcp-live serve --stop --profile qwen --user-settings /h/s.json --cwd '/w/my app'\\''s'",
    );
  });
});
