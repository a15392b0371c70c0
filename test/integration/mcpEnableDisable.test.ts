import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpCommand } from '../../src/cli/args.js';
import { runMcpCommand } from '../../src/cli/mcpCommand.js';
import { createMcpLive, type McpLive, type McpLiveOptions, type ServerStatus } from '../../src/index.js';
import { echoEntry } from './mcpServers.js';
import { waitForExit } from './processes.js';
import { noLeftoversAfterAll } from './workspace.js';

/**
 * `mcp-live mcp enable | disable NAME` (decision 250) in-process, on real files and with a real
 * session following the user settings file through its watcher: `disabled` is written into (or
 * removed from) the user's own file with its comments kept, anything else is refused with what to
 * do instead. And `mcp get` in aligned columns.
 */

let dir: string;
let live: McpLive | undefined;
afterEach(async () => {
  await live?.dispose();
  live = undefined;
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});
noLeftoversAfterAll();

interface World {
  home: string;
  cwd: string;
  settings: string;
  mcpJson: string;
  options: McpLiveOptions;
}

function world(): World {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-toggle-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { home, cwd, settings: join(home, '.qwen', 'settings.json'), mcpJson: join(cwd, '.mcp.json'), options: { homeDir: home, cwd, env: {} } };
}

/** Runs one `mcp` command in-process: its exit code, stdout and stderr. */
async function mcp(w: World, action: 'enable' | 'disable' | 'get', server: string, json = false): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stdout += chunk.toString();
      done();
    },
  });
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const command = { kind: 'mcp', action, server, json, options: { cwd: w.cwd, profile: 'qwen', mcpConfig: [], lspConfig: [], demo: false, strategy: 'incremental' } } as McpCommand;
  try {
    return { code: await runMcpCommand(w.options, command, out), stdout, stderr };
  } finally {
    spy.mockRestore();
  }
}

const read = (file: string): string => readFileSync(file, 'utf8');

function settingsText(servers: Record<string, unknown>, more = ''): string {
  return `{\n  // mine: keep this comment\n  "theme": "dark",${more}\n  "mcpServers": ${JSON.stringify(servers, null, 2).replace(/\n/g, '\n  ')} // and this one\n}\n`;
}

function stateOf(l: McpLive, name: string): Promise<ServerStatus> {
  return firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === name)))).then((all) => all.find((s) => s.name === name)!);
}

async function until(l: McpLive, name: string, ok: (s: ServerStatus) => boolean): Promise<ServerStatus> {
  const all = await firstValueFrom(l.servers.list$.pipe(filter((list) => list.some((s) => s.name === name && ok(s)))));
  return all.find((s) => s.name === name)!;
}

describe('mcp disable | enable NAME', () => {
  it('writes "disabled": true into the user settings with the comments kept, and removes it again; a running session follows', async () => {
    const w = world();
    const original = settingsText({ fs: echoEntry() });
    writeFileSync(w.settings, original);
    live = createMcpLive({ ...w.options, debounceMs: 50 });
    await live.start();
    const pid = (await until(live, 'fs', (s) => s.state === 'connected')).pid!;

    const disabled = await mcp(w, 'disable', 'fs');
    expect(disabled).toEqual({ code: 0, stdout: `Disabled fs in user settings (${w.settings}); a running session disconnects it when it reads the file.\n`, stderr: '' });
    const text = read(w.settings);
    expect(text).toContain('// mine: keep this comment');
    expect(text).toContain('// and this one');
    expect(text).toMatch(/"disabled": true/);
    expect(await until(live, 'fs', (s) => s.reason === 'disabled')).toMatchObject({ state: 'blocked', reason: 'disabled' });
    expect(await waitForExit(pid)).toBe(true);

    const enabled = await mcp(w, 'enable', 'fs');
    expect(enabled).toEqual({ code: 0, stdout: `Enabled fs in user settings (${w.settings}); a running session connects it when it reads the file.\n`, stderr: '' });
    // Absent means enabled: the file reads as it did before it was ever disabled.
    expect(read(w.settings)).toBe(original);
    expect((await until(live, 'fs', (s) => s.state === 'connected')).pid).not.toBe(pid);
    expect((await stateOf(live, 'fs')).reason).toBeUndefined();
  });

  it('writes nothing when the file already says so; --json answers with the file, whether it changed and the admission', async () => {
    const w = world();
    writeFileSync(w.settings, settingsText({ fs: { ...echoEntry(), disabled: true } }));
    const before = statSync(w.settings).mtimeMs;
    const text = read(w.settings);

    expect(await mcp(w, 'disable', 'fs')).toEqual({ code: 0, stdout: `fs is already disabled in user settings (${w.settings}); nothing was written.\n`, stderr: '' });
    expect(read(w.settings)).toBe(text);
    expect(statSync(w.settings).mtimeMs).toBe(before);

    const answer = await mcp(w, 'enable', 'fs', true);
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout)).toEqual({ ok: true, action: 'enabled', server: 'fs', scope: 'user', file: w.settings, changed: true, admitted: true });
    expect(read(w.settings)).not.toContain('disabled');
    const again = await mcp(w, 'enable', 'fs', true);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, action: 'enabled', changed: false, admitted: true });
    expect(await mcp(w, 'enable', 'fs')).toMatchObject({ code: 0, stdout: `fs is not disabled in user settings (${w.settings}); nothing was written.\n` });
  });

  it('says what still blocks a server it enabled', async () => {
    const w = world();
    writeFileSync(w.settings, settingsText({ fs: { ...echoEntry(), disabled: true } }, '\n  "mcp": { "excluded": ["fs"] },'));
    const enabled = await mcp(w, 'enable', 'fs');
    expect(enabled.stdout).toBe(`Enabled fs in user settings (${w.settings}) — it stays blocked: excluded by mcp.excluded\n`);
    expect(read(w.settings)).not.toContain('"disabled"');
  });

  it('an unknown name: exit 1, the reason on stderr, nothing written', async () => {
    const w = world();
    const text = settingsText({ fs: echoEntry() });
    writeFileSync(w.settings, text);
    expect(await mcp(w, 'disable', 'nope')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'mcp-live: "nope" is not defined in user, project or workspace settings; no MCP server of that name is configured\n',
    });
    const json = await mcp(w, 'disable', 'nope', true);
    expect(json.code).toBe(1);
    const answer = JSON.parse(json.stdout) as { ok: boolean; error: string };
    expect(answer.ok).toBe(false);
    expect(answer.error).toContain('no MCP server of that name is configured');
    expect(read(w.settings)).toBe(text);
  });

  it('a server from a repository’s file is refused with what to do instead; neither file is touched', async () => {
    const w = world();
    const user = settingsText({ fs: echoEntry(), team: echoEntry('--team') });
    const project = JSON.stringify({ mcpServers: { team: echoEntry(), repo: echoEntry() } }, null, 2);
    writeFileSync(w.settings, user);
    writeFileSync(w.mcpJson, project);

    const repo = await mcp(w, 'disable', 'repo');
    expect(repo.code).toBe(1);
    expect(repo.stderr).toBe(
      `mcp-live: repo comes from project settings (${w.mcpJson}); mcp disable writes only your user settings (${w.settings}): ` +
        'reject it (mcp-live approvals reject repo), add "repo" to mcp.excluded in your user settings, or edit that file yourself\n',
    );
    // The user defines `team` too, but the project's entry wins (docs/contract.md, "Precedence"): writing the user's entry would change nothing.
    const team = await mcp(w, 'enable', 'team');
    expect(team.code).toBe(1);
    expect(team.stderr).toBe(
      `mcp-live: team comes from project settings (${w.mcpJson}); mcp enable writes only your user settings (${w.settings}), ` +
        'whose entry of that name the project one overrides: remove "disabled" from that file yourself\n',
    );
    expect(read(w.settings)).toBe(user);
    expect(read(w.mcpJson)).toBe(project);
  });

  it('a language server is refused: its entries are lspServers', async () => {
    const w = world();
    writeFileSync(w.settings, JSON.stringify({ lspServers: { ts: { command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } } } }));
    const refused = await mcp(w, 'disable', 'lsp:ts');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`mcp-live: "lsp:ts" is a language server: mcp disable edits MCP servers; set "disabled": true in its entry in user settings (${w.settings})\n`);
  });
});

describe('mcp get NAME', () => {
  it('lines the values up after the longest label', async () => {
    const w = world();
    writeFileSync(
      w.settings,
      JSON.stringify({ mcpServers: { api: { type: 'http', url: 'http://127.0.0.1:9/mcp', headersHelper: 'node make-headers.js', timeout: 5000 } } }),
    );
    const got = await mcp(w, 'get', 'api');
    expect(got.code).toBe(0);
    const [name, ...lines] = got.stdout.trimEnd().split('\n');
    expect(name).toBe('api');
    expect(lines.map((l) => l.trim().split(/\s+/)[0])).toEqual(['scope', 'source', 'admission', 'url', 'type', 'headersHelper', 'timeout']);
    // Every value starts in one column: two spaces after the longest label.
    const column = '  headersHelper  '.length;
    for (const line of lines) {
      expect(line.slice(0, column).trimEnd()).toMatch(/^ {2}\S+$/);
      expect(line[column]).not.toBe(' ');
    }
    expect(lines).toContain(`  scope${' '.repeat(column - '  scope'.length)}user`);
    expect(lines).toContain(`  headersHelper  node make-headers.js`);
  });

  it('marks a value shown escaped, still in its column', async () => {
    const w = world();
    writeFileSync(w.settings, JSON.stringify({ mcpServers: { x: { command: 'node', args: ['s.js'], description: 'ok', cwd: '/tmp/\u001b[31mred' } } }));
    const got = await mcp(w, 'get', 'x');
    const lines = got.stdout.trimEnd().split('\n').slice(1);
    const cwd = lines.find((l) => l.startsWith('! cwd'));
    expect(cwd).toBe('! cwd        /tmp/\\x1b[31mred  (contains control characters, shown escaped)');
    expect(lines.find((l) => l.startsWith('  admission'))).toBe('  admission  would connect');
  });
});
