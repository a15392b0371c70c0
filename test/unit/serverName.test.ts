import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deadline } from '../deadlines.js';
import { createMcpLive } from '../../src/live/createMcpLive.js';
import { serverNameProblem } from '../../src/model/serverKeys.js';

/** Names an added server may have (decision 193): what the assembly would drop is refused, with why. */

describe('serverNameProblem', () => {
  it.each(['fs', 'github.com', 'my-server_2', '__proto__', 'toString', 'constructor', 'a/b', 'ünïcödé', 'xlsp:foo', 'LSP:foo'])('%j is a name', (name) => {
    expect(serverNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'a server needs a name'],
    ['lsp:foo', '"lsp:foo" cannot name an MCP server: a name that begins with "lsp:" is a language server\'s, and the session would leave the entry out'],
    ['lsp:', '"lsp:" cannot name an MCP server'],
    [' sp ', '" sp " cannot name a server: it contains whitespace, which /mcp commands cannot name'],
    ['a\u00a0b', 'it contains whitespace'],
    ['a\tb', '"a\\tb" cannot name a server: it contains a control, escape or invisible character'],
    ['ok\u001b]0;pwned\u0007', '"ok\\x1b]0;pwned\\x07" cannot name a server'],
    ['a\u202eb', '"a\\u202eb" cannot name a server'],
    ['zero\u200bwidth', 'invisible character'],
  ])('%j is refused: %s', (name, why) => {
    expect(serverNameProblem(name)).toContain(why);
  });
});

describe('session.add', () => {
  it('refuses a name the session would drop, naming why, and adds nothing', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcp-live-names-'));
    const live = createMcpLive({ homeDir: home, cwd: home, runtimeDir: join(home, 'run') });
    try {
      expect(() => live.session.add('lsp:foo', { command: 'node' })).toThrow(
        'session.add: "lsp:foo" cannot name an MCP server: a name that begins with "lsp:" is a language server\'s',
      );
      expect(() => live.session.add('two words', { command: 'node' })).toThrow(/contains whitespace/);
    } finally {
      await live.dispose();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('takes `__proto__` as an ordinary name: the entry is listed under it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcp-live-names-'));
    const live = createMcpLive({ homeDir: home, cwd: home, runtimeDir: join(home, 'run') });
    try {
      await live.start();
      live.session.add('__proto__', { command: 'node', disabled: true });
      await expect.poll(() => live.servers.status().map((s) => s.name), { timeout: deadline(5_000) }).toContain('__proto__');
      expect(live.servers.config('__proto__')).toEqual({ command: 'node', disabled: true });
    } finally {
      await live.dispose();
      await rm(home, { recursive: true, force: true });
    }
  });
});
