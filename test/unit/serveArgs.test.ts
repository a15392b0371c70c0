import { describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_PORT, parseCliArgs, UsageError } from '../../src/cli/args.js';

const parse = (...argv: string[]) => parseCliArgs(argv, { cwd: '/here' });

describe('parseCliArgs: serve', () => {
  it('a foreground gateway by default: qualified names, no port given (the command uses the documented default)', () => {
    expect(parse('serve')).toEqual({
      kind: 'serve',
      action: 'run',
      names: 'qualified',
      ui: false,
      json: false,
      options: expect.objectContaining({ cwd: '/here', profile: 'qwen' }) as unknown,
    });
    expect(DEFAULT_GATEWAY_PORT).toBe(7430);
  });

  it('reads its options', () => {
    expect(parse('serve', '--stdio', '--port', '0', '--names', 'original', '--linger-ms', '1500', '--cwd', '/w')).toMatchObject({
      kind: 'serve',
      action: 'stdio',
      port: 0,
      names: 'original',
      lingerMs: 1500,
      options: { cwd: '/w' },
    });
    expect(parse('serve', '--json', '--port', '8000')).toMatchObject({ action: 'run', json: true, port: 8000 });
    expect(parse('serve', '--ui')).toMatchObject({ action: 'run', ui: true });
    expect(parse('serve', '--print-token')).toMatchObject({ action: 'print-token' });
    expect(parse('serve', '--stop', '--cwd', '/w')).toMatchObject({ action: 'stop', options: { cwd: '/w' } });
  });

  it.each([
    [['serve', '--stdio', '--json'], /no --json/],
    [['serve', '--stdio', '--ui'], /--ui goes with serve alone/],
    [['serve', '--ui', '--json'], /--ui goes with serve alone/],
    [['serve', '--stdio', '--stop'], /exclude each other/],
    [['serve', '--stop', '--port', '1'], /takes no --port/],
    [['serve', '--port', '70000'], /--port/],
    [['serve', '--port', 'http'], /--port/],
    [['serve', '--names', 'short'], /--names/],
    [['serve', '--linger-ms', '-1'], /--linger-ms/],
    [['serve', 'now'], /serve takes no arguments/],
    [['serve', '--demo'], /demo/],
    [['--stdio'], /--stdio goes with serve/],
    [['status', '--port', '1'], /--port goes with serve/],
  ])('refuses %j', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });
});
