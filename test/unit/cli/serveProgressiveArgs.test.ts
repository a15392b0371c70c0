import { describe, expect, it } from 'vitest';
import { parseCliArgs, USAGE, UsageError } from '../../../src/cli/args.js';

/** `serve --progressive [auto]` (decision 219). */

const parse = (...argv: string[]) => parseCliArgs(argv, { cwd: '/here' });

describe('parseCliArgs: serve --progressive', () => {
  it('absent unless given: a bare flag is `always`, `auto` or `always` after it (or with =) its mode', () => {
    expect(parse('serve')).not.toHaveProperty('progressive');
    expect(parse('serve', '--progressive')).toMatchObject({ kind: 'serve', action: 'run', progressive: 'always' });
    expect(parse('serve', '--progressive', 'auto')).toMatchObject({ progressive: 'auto' });
    expect(parse('serve', '--progressive', 'always', '--stdio')).toMatchObject({ action: 'stdio', progressive: 'always' });
    expect(parse('serve', '--progressive=auto', '--names', 'original')).toMatchObject({ progressive: 'auto', names: 'original' });
    // A bare flag before another flag, or last.
    expect(parse('serve', '--progressive', '--stdio')).toMatchObject({ action: 'stdio', progressive: 'always' });
    expect(parse('serve', '--stdio', '--progressive')).toMatchObject({ action: 'stdio', progressive: 'always' });
  });

  it.each([
    [['serve', '--progressive=sometimes'], /--progressive expects nothing, "auto" or "always", got "sometimes"/],
    [['serve', '--progressive', 'sometimes'], /serve takes no arguments, got "sometimes"/],
    [['serve', '--stop', '--progressive'], /serve --stop takes no --progressive/],
    [['serve', '--print-token', '--progressive', 'auto'], /serve --print-token takes no --progressive/],
    [['status', '--progressive'], /--progressive goes with serve/],
  ])('refuses %j', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });

  it("leaves a server's own --progressive after -- alone", () => {
    const command = parse('mcp', 'add', 'x', '--', 'node', 'server.js', '--progressive', 'auto');
    expect(command).toMatchObject({ kind: 'mcp', action: 'add', entry: { command: 'node', args: ['server.js', '--progressive', 'auto'] } });
  });

  it('the usage text names the flag', () => {
    expect(USAGE).toMatch(/--progressive \[auto\]\s+list only search_tools, call_tool and describe_tool/);
  });
});
