import { describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from '../../src/cli/args.js';

const parse = (...argv: string[]) => parseCliArgs(argv, { cwd: '/here' });

describe('parseCliArgs', () => {
  it('defaults to an interactive session in the current directory with profile qwen', () => {
    expect(parse()).toMatchObject({ kind: 'session', json: false, options: { cwd: '/here', profile: 'qwen', mcpConfig: [], demo: false, reconcile: 'incremental' } });
  });

  it('reads every option of SPEC §9', () => {
    const c = parse(
      '--json', '--cwd', '/w', '--profile', 'gemini', '--user-settings', '/u.json', '--system-settings', '/s.json',
      '--mcp-config', 'a.json', '--mcp-config', 'b.json', '--allowed-mcp-server-names', 'a, b,git*',
      '--approvals-file', '/ap.json', '--debounce', '50', '--reconcile', 'full',
    );
    expect(c).toEqual({
      kind: 'session',
      json: true,
      options: {
        cwd: '/w', profile: 'gemini', userSettings: '/u.json', systemSettings: '/s.json', mcpConfig: ['a.json', 'b.json'],
        allowedMcpServerNames: ['a', 'b', 'git*'], approvalsFile: '/ap.json', debounceMs: 50, demo: false, reconcile: 'full',
      },
    });
  });

  it('parses the subcommands', () => {
    expect(parse('status', '--json')).toMatchObject({ kind: 'status', json: true });
    expect(parse('plan')).toMatchObject({ kind: 'plan', json: false });
    expect(parse('approvals')).toMatchObject({ kind: 'approvals', action: 'list' });
    expect(parse('approvals', 'approve', 'x')).toMatchObject({ kind: 'approvals', action: 'approve', server: 'x' });
    expect(parse('approvals', 'forget', '__proto__')).toMatchObject({ action: 'forget', server: '__proto__' });
    expect(parse('--help')).toEqual({ kind: 'help' });
  });

  it.each([
    [['--bogus'], /--bogus/],
    [['--debounce', 'soon'], /--debounce/],
    [['--debounce', '-5'], /--debounce/],
    [['--reconcile', 'sometimes'], /--reconcile/],
    [['--profile', '../etc'], /--profile/],
    [['--allowed-mcp-server-names', ' , '], /--allowed-mcp-server-names/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['approvals', 'approve'], /needs a server NAME/],
    [['approvals', 'bless', 'x'], /unknown action "bless"/],
    [['status', 'extra'], /takes no arguments/],
  ])('%j is a usage error naming what is wrong', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });
});
