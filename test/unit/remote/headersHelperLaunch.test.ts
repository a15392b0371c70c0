import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { helperSpawnOptions } from '../../../src/sinks/remote/headersHelper.js';

/**
 * How a `headersHelper`'s shell is started (decisions 298, 299), per platform: where it runs,
 * its shell, and an environment whose lookups stay out of the folder it runs in.
 */

const run = { server: 'corp', url: 'https://corp.example/mcp' };
const base = { PATH: `.;node_modules\\.bin;C:\\Windows\\System32;C:\\nodejs`, ComSpec: 'cmd.exe', SystemRoot: 'D:\\Win', TOKEN: 't' };

describe('helperSpawnOptions', () => {
  it('win32: an absolute cmd.exe, NoDefaultCurrentDirectoryInExePath=1, PATH without relative entries, no process group', () => {
    const options = helperSpawnOptions({ command: 'get-token', cwd: 'C:\\Users\\me' }, run, 'win32', base);
    expect(options.shell).toBe('D:\\Win\\System32\\cmd.exe');
    expect(options.cwd).toBe('C:\\Users\\me');
    expect(options.detached).toBe(false);
    expect(options.env).toEqual({
      PATH: 'C:\\Windows\\System32;C:\\nodejs',
      ComSpec: 'cmd.exe',
      SystemRoot: 'D:\\Win',
      TOKEN: 't',
      MCP_LIVE_SERVER_NAME: 'corp',
      MCP_LIVE_SERVER_URL: 'https://corp.example/mcp',
      CLAUDE_CODE_MCP_SERVER_NAME: 'corp',
      CLAUDE_CODE_MCP_SERVER_URL: 'https://corp.example/mcp',
      NoDefaultCurrentDirectoryInExePath: '1',
    });
  });

  it('POSIX: /bin/sh (Node\'s pick), its own process group, PATH without relative entries', () => {
    const options = helperSpawnOptions({ command: 'get-token', cwd: '/home/me' }, run, 'linux', { PATH: '.:/usr/bin::bin', HOME: '/home/me' });
    expect(options).toMatchObject({ shell: true, cwd: '/home/me', detached: true });
    expect(options.env.PATH).toBe('/usr/bin');
    expect(options.env).not.toHaveProperty('NoDefaultCurrentDirectoryInExePath');
  });

  it('no directory given: the home directory, never our own working directory', () => {
    expect(helperSpawnOptions({ command: 'get-token' }, run, 'linux', {}).cwd).toBe(homedir());
  });
});
