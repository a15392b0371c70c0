import { describe, expect, it } from 'vitest';
import { parseCliArgs, USAGE, UsageError } from '../../../src/cli/args.js';

const parse = (...argv: string[]) => parseCliArgs(argv, { cwd: '/here' });

/** The UsageError message of `argv` (fails the test when it parses). */
function refusal(...argv: string[]): string {
  try {
    parse(...argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`parsed: ${argv.join(' ')}`);
}

describe('mcp enable | disable (decision 250)', () => {
  it('parses NAME, with --json and the common options', () => {
    expect(parse('mcp', 'disable', 'fs')).toMatchObject({ kind: 'mcp', action: 'disable', server: 'fs', json: false, options: { cwd: '/here' } });
    expect(parse('mcp', 'enable', 'fs', '--json', '--profile', 'gemini')).toMatchObject({
      kind: 'mcp',
      action: 'enable',
      server: 'fs',
      json: true,
      options: { profile: 'gemini' },
    });
  });

  it('refuses a missing NAME, extra words, and the add options', () => {
    expect(refusal('mcp', 'disable')).toBe('mcp disable needs a server NAME');
    expect(refusal('mcp', 'enable', 'a', 'b')).toBe('mcp enable: unexpected "b"');
    expect(refusal('mcp', 'disable', 'fs', '--scope', 'project')).toBe('--scope goes with mcp add | mcp remove');
  });

  it("refuses Gemini CLI's --session with the way to do it in a session", () => {
    expect(refusal('mcp', 'disable', 'fs', '--session')).toBe(
      'mcp disable --session: no command reaches a running session; in it, use /mcp disable fs (or {"cmd":"disable","server":"fs"} with --json). ' +
        'Without --session, mcp disable writes your user settings, which a running session follows',
    );
    expect(refusal('status', '--session')).toBe('--session goes with mcp enable | mcp disable');
    // A server's own option written before `--`.
    expect(refusal('mcp', 'add', 'x', 'node', 's.js', '--session')).toContain("unknown option --session (a server's own options go after --");
    expect(parse('mcp', 'add', 'x', '--', 'node', 's.js', '--session')).toMatchObject({ action: 'add', entry: { command: 'node', args: ['s.js', '--session'] } });
  });

  it('names the new actions where mcp lists its actions, and in the usage text', () => {
    expect(refusal('mcp')).toBe('mcp needs an action: add, remove, list, get, enable or disable');
    expect(refusal('mcp', 'toggle', 'x')).toBe('mcp: unknown action "toggle" (add, remove, list, get, enable, disable)');
    expect(USAGE).toContain('mcp-live mcp disable|enable NAME       write or remove "disabled": true in your user settings (comments kept)');
  });
});
