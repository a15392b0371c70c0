import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive, type McpLive, type ServerStatus } from '../../../src/index.js';
import { fixture, textOf } from '../mcpServers.js';
import { it, noLeftoversAfterAll, type TestScope } from '../workspace.js';

/**
 * The `lsp__*` tools' answer for a file whose language server is configured but cannot answer
 * (decision 252), through the whole library with the fixture language server
 * (test/fixtures/lsp-server.mjs) and real settings files: pending approval, disabled (in settings
 * and for the session), excluded, failed — each said with its fix, and the tool answers once fixed.
 */

const LSP_PROCESSES = /lsp-server\.mjs/;

noLeftoversAfterAll(LSP_PROCESSES);

function world(scope: TestScope) {
  const ws = scope.workspace('mcp-live-lsp-unavailable-');
  writeFileSync(join(ws.cwd, 'notes.md'), 'hello markdown\n');
  writeFileSync(join(ws.cwd, 'notes.txt'), 'hello text\n');
  writeFileSync(join(ws.cwd, 'script.rb'), 'puts 1\n');
  return { dir: ws.dir, home: ws.homeDir, cwd: ws.cwd, settings: ws.userSettings, write: ws.write };
}

const languageServer = (ext: string, language: string, more: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [fixture('lsp-server.mjs')],
  extensionToLanguage: { [ext]: language },
  ...more,
});

async function started(scope: TestScope, w: ReturnType<typeof world>): Promise<McpLive> {
  const live = scope.track(createMcpLive({ homeDir: w.home, cwd: w.cwd, debounceMs: 50 }));
  await live.start();
  return live;
}

function until(l: McpLive, name: string, ok: (s: ServerStatus) => boolean): Promise<ServerStatus> {
  return firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === name && ok(s))))).then((all) => all.find((s) => s.name === name)!);
}

async function hover(l: McpLive, file: string): Promise<{ text: string; isError: boolean }> {
  const result = (await l.tools.call('lsp__hover', { file, line: 1, column: 2 })) as { isError?: boolean };
  return { text: textOf(result), isError: result.isError === true };
}

describe.concurrent('lsp__* tools for a file whose language server cannot answer (decision 252)', () => {
  it('pending approval: says so with the approval, and answers once approved; disabled for the session: says how to enable it', async ({ scope }) => {
    const w = world(scope);
    w.write(w.settings, { lspServers: { txt: languageServer('.txt', 'plaintext') } });
    w.write(join(w.cwd, '.lsp.json'), { md: languageServer('.md', 'markdown') });
    const l = await started(scope, w);
    await until(l, 'lsp:txt', (s) => s.state === 'connected');
    expect(l.servers.status().find((s) => s.name === 'lsp:md')).toMatchObject({ reason: 'pending_approval' });

    expect(await hover(l, 'notes.md')).toEqual({
      text: 'the language server lsp:md for .md files is waiting for approval: approve lsp:md (mcp-live approvals approve lsp:md, or /mcp in a session)',
      isError: true,
    });

    await l.approvals.approve('lsp:md', { persist: false });
    await until(l, 'lsp:md', (s) => s.state === 'connected');
    const answered = await hover(l, 'notes.md');
    expect(answered.isError).toBe(false);
    expect(answered.text).toContain('hello');

    await l.session.disable('lsp:md');
    await until(l, 'lsp:md', (s) => s.reason === 'disabled');
    expect(await hover(l, 'notes.md')).toEqual({
      text: 'the language server lsp:md for .md files is disabled for this session: enable it with /mcp enable lsp:md (or {"cmd":"enable","server":"lsp:md"})',
      isError: true,
    });
    // The text server is untouched and answers.
    expect((await hover(l, 'notes.txt')).isError).toBe(false);
  });

  it('disabled in settings, excluded, failed: each with its fix, as the settings file changes; a file none takes keeps its words', async ({ scope }) => {
    const w = world(scope);
    w.write(w.settings, { lspServers: { md: languageServer('.md', 'markdown', { disabled: true }) } });
    const l = await started(scope, w);
    await until(l, 'lsp:md', (s) => s.reason === 'disabled');
    expect(await hover(l, 'notes.md')).toEqual({
      text: `the language server lsp:md for .md files is disabled in settings: remove "disabled": true from its entry in ${w.settings}`,
      isError: true,
    });

    w.write(w.settings, { lsp: { excluded: ['md'] }, lspServers: { md: languageServer('.md', 'markdown') } });
    await until(l, 'lsp:md', (s) => s.reason === 'excluded');
    expect((await hover(l, 'notes.md')).text).toBe('the language server lsp:md for .md files is excluded by lsp.excluded: remove "md" from lsp.excluded');

    const missing = join(w.dir, 'no-such-language-server');
    w.write(w.settings, { lspServers: { md: { command: missing, extensionToLanguage: { '.md': 'markdown' } } } });
    const failed = await until(l, 'lsp:md', (s) => s.state === 'error');
    expect(failed.error).toBeDefined();
    expect((await hover(l, 'notes.md')).text).toBe(
      `the language server lsp:md for .md files failed: ${failed.error}: check its entry in ${w.settings}; /reconnect lsp:md (or {"cmd":"reconnect","server":"lsp:md"}) starts it again`,
    );

    expect(await hover(l, 'script.rb')).toEqual({ text: 'no language server handles .rb files (language servers are configured for markdown)', isError: true });
  });
});
