import { describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from '../../../src/cli/args.js';
import { closestFlag, editDistance, unknownOptionMessage } from '../../../src/cli/unknownOption.js';

const refusal = (...argv: string[]): string => {
  try {
    parseCliArgs(argv, { cwd: '/here' });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
};

describe('an unknown flag in mcp-live words (decision 324)', () => {
  it('names the flag and the closest one the command knows, quotes balanced', () => {
    expect(refusal('--debouce', '100')).toBe('unknown option --debouce; did you mean --debounce?');
    expect(refusal('status', '--jsno')).toBe('unknown option --jsno; did you mean --json?');
    expect(refusal('serve', '--stdoi')).toBe('unknown option --stdoi; did you mean --stdio?');
    expect(refusal('serve', '--linger', '5')).toBe('unknown option --linger');
    expect(refusal('approvals', 'approve', 'p', '--hsah', 'x')).toBe('unknown option --hsah; did you mean --hash?');
    expect(refusal('status', '--debouce=100')).toBe('unknown option --debouce; did you mean --debounce?');
  });

  it('guesses nothing far off, nothing from another command, nothing for one letter', () => {
    expect(refusal('--frobnicate')).toBe('unknown option --frobnicate');
    // --stop is serve's: status does not take it, so it is no guess for status.
    expect(refusal('status', '--stp')).toBe('unknown option --stp');
    expect(refusal('-x')).toBe('unknown option -x');
  });

  it('mcp keeps the hint that a server’s own options go after --', () => {
    expect(refusal('mcp', 'add', 'x', 'node', 's.js', '--verbose')).toBe("unknown option --verbose (a server's own options go after --: mcp add NAME -- COMMAND ARGS…)");
    expect(refusal('mcp', 'add', 'x', 'node', 's.js', '--port', '3')).toBe("unknown option --port (a server's own options go after --: mcp add NAME -- COMMAND ARGS…)");
    expect(refusal('mcp', 'add', 'x', '--scpoe', 'user', 'node')).toMatch(/^unknown option --scpoe; did you mean --scope\? \(a server's own options/);
  });

  it('closestFlag: an edit distance of 1 up to five letters, 2 beyond; ties to the first listed', () => {
    expect(closestFlag('--prot', ['port', 'profile'])).toBe('port');
    expect(closestFlag('--porfile', ['port', 'profile'])).toBe('profile');
    expect(closestFlag('--rpfoiel', ['profile'])).toBe(undefined);
    expect(closestFlag('--iu', ['ui'])).toBe('ui');
    expect(closestFlag('--x', ['ui'])).toBe(undefined);
    expect(closestFlag('--ab', ['ac', 'ab'])).toBe('ab');
    expect(closestFlag('--ad', ['ac', 'ab'])).toBe('ac');
    expect(closestFlag(`--${'d'.repeat(100_000)}`, ['debounce'])).toBe(undefined);
    expect(unknownOptionMessage('--x', [])).toBe('unknown option --x');
  });

  it('editDistance counts a swap of neighbours as one', () => {
    expect(editDistance('debouce', 'debounce')).toBe(1);
    expect(editDistance('jsno', 'json')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });
});
