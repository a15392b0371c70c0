import { describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_PORT, parseCliArgs, USAGE, UsageError } from '../../../src/cli/args.js';

const parse = (...argv: string[]) => parseCliArgs(argv, { cwd: '/here' });

describe('parseCliArgs: serve', () => {
  it('a foreground gateway by default: server__tool names, no port given (the command uses the documented default)', () => {
    expect(parse('serve')).toEqual({
      kind: 'serve',
      action: 'run',
      names: 'server',
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
    expect(parse('serve', '--names', 'qualified')).toMatchObject({ names: 'qualified' });
    expect(parse('serve', '--names', 'server')).toMatchObject({ names: 'server' });
    expect(parse('serve', '--stdio', '--restart-on-change')).toMatchObject({ action: 'stdio', restartOnChange: true });
    expect(parse('serve', '--stdio')).not.toHaveProperty('restartOnChange');
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
    [['serve', '--names', 'short'], /--names expects "server", "qualified", "original", got "short"/],
    [['serve', '--restart-on-change'], /--restart-on-change goes with serve --stdio/],
    [['serve', '--json', '--restart-on-change'], /--restart-on-change goes with serve --stdio/],
    [['serve', '--stop', '--restart-on-change'], /takes no --restart-on-change/],
    [['status', '--restart-on-change'], /--restart-on-change goes with serve/],
    [['serve', '--linger-ms', '-1'], /--linger-ms/],
    [['serve', 'now'], /serve takes no arguments/],
    [['serve', '--demo'], /demo/],
    [['--stdio'], /--stdio goes with serve/],
    [['status', '--port', '1'], /--port goes with serve/],
  ])('refuses %j', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });

  it('the usage text names the modes, the default and the restart flag', () => {
    expect(USAGE).toContain('--names server|qualified|original');
    expect(USAGE).toContain('server__tool (default)');
    expect(USAGE).toContain('--restart-on-change');
  });
});
