import { describe, expect, it } from 'vitest';
import { helpLines, parseCommand, runCommandLine } from '../../src/hosts/ui/commands/commands.js';
import { fakeLive, server } from './fakeLive.js';

describe('/mcp enable | disable NAME [--persist]', () => {
  it.each([
    ['/mcp enable gh', { kind: 'enable', server: 'gh', persist: false }],
    ['/mcp disable gh --persist', { kind: 'disable', server: 'gh', persist: true }],
    ['/mcp enable --persist gh', { kind: 'enable', server: 'gh', persist: true }],
    // A server that happens to be called "enable" can still be shown.
    ['/mcp enable', { kind: 'mcp', server: 'enable' }],
  ])('parses %j', (line, command) => {
    expect(parseCommand(line)).toEqual({ ok: true, command });
  });

  it.each(['/mcp enable a b', '/mcp disable --persist', '/mcp disable --force gh'])('%j is a usage error', (line) => {
    expect(parseCommand(line)).toEqual({ ok: false, error: 'Usage: /mcp enable NAME [--persist] · /mcp disable NAME [--persist]' });
  });

  const setup = () => {
    const fake = fakeLive();
    const ctx = { live: fake.live, servers: [server('gh'), server('proj', { scope: 'project' })], tools: [] };
    return { ...fake, run: (line: string) => runCommandLine(line, ctx) };
  };

  it('runs the library call, session-only unless --persist, and says what happened', async () => {
    const { run, callsOf, steer } = setup();
    expect(await run('/mcp disable gh')).toEqual({ output: { tone: 'success', lines: ['Disabled gh for this session (--persist writes it into your user settings).'] } });
    expect(await run('/mcp disable gh --persist')).toEqual({
      output: { tone: 'success', lines: ['Disabled gh in /home/u/.qwen/settings.json — the session applies it when it reads the file.'] },
    });
    steer.enableResult = { stillBlocked: 'needs approval' };
    expect(await run('/mcp enable proj')).toEqual({ output: { tone: 'info', lines: ['Enabled proj for this session; it is still blocked: needs approval.'] } });
    expect(callsOf('session.disable')).toEqual([['gh', { persist: false }], ['gh', { persist: true }]]);
    expect(callsOf('session.enable')).toEqual([['proj', { persist: false }]]);
  });

  it('a refusal (--persist on a repository server) and an unknown name are errors', async () => {
    const { run, steer, callsOf } = setup();
    steer.enableError = new Error('proj comes from project settings (/w/.mcp.json); --persist writes only your user settings');
    expect(await run('/mcp enable proj --persist')).toEqual({ output: { tone: 'error', lines: [steer.enableError.message] } });
    expect((await run('/mcp enable nope')).output?.lines[0]).toBe('No MCP server "nope" is configured.');
    expect(callsOf('session.enable')).toEqual([['proj', { persist: true }]]);
  });

  it('/help lists it', () => {
    expect(helpLines().some((l) => l.startsWith('/mcp enable|disable NAME [--persist]'))).toBe(true);
  });
});
