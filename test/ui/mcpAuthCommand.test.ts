import { describe, expect, it } from 'vitest';
import { parseCommand, runCommandLine } from '../../src/hosts/ui/commands/commands.js';
import { fakeLive, server } from './fakeLive.js';

describe('/mcp auth NAME · /mcp logout NAME', () => {
  it.each([
    ['/mcp auth gh', { kind: 'auth', server: 'gh' }],
    ['/mcp logout gh', { kind: 'logout', server: 'gh' }],
    // A server that happens to be called "auth" can still be shown.
    ['/mcp auth', { kind: 'mcp', server: 'auth' }],
  ])('parses %j', (line, command) => {
    expect(parseCommand(line)).toEqual({ ok: true, command });
  });

  it('"/mcp auth a b" is a usage error', () => {
    expect(parseCommand('/mcp auth a b')).toEqual({ ok: false, error: 'Usage: /mcp auth NAME' });
  });

  const setup = (openUrl: (url: string) => Promise<void>) => {
    const fake = fakeLive();
    const opened: string[] = [];
    const ctx = {
      live: fake.live,
      servers: [server('gh', { state: 'needs_auth', transport: 'http' })],
      tools: [],
      openUrl: (url: string) => {
        opened.push(url);
        return openUrl(url);
      },
    };
    return { ...fake, opened, run: (line: string) => runCommandLine(line, ctx) };
  };

  it('opens the browser at the authorization URL, and shows it to copy in case it did not open', async () => {
    const { run, opened, callsOf } = setup(() => Promise.resolve());
    expect(await run('/mcp auth gh')).toEqual({
      output: {
        tone: 'info',
        lines: ['Opened your browser to authorize gh. If it did not open, visit:', 'https://auth.example.com/authorize?client_id=x&state=s'],
      },
    });
    expect(opened).toEqual(['https://auth.example.com/authorize?client_id=x&state=s']);
    expect(callsOf('auth.authenticate')).toEqual([['gh']]);
  });

  it('without a browser it shows the URL; a machine grant needs none; a refusal is an error', async () => {
    const { run, steer } = setup(() => Promise.reject(new Error('no xdg-open')));
    expect((await run('/mcp auth gh')).output?.lines[0]).toBe('Open this URL to authorize gh:');
    steer.authUrl = undefined;
    expect((await run('/mcp auth gh')).output).toEqual({ tone: 'info', lines: ['Authorizing gh with its client credentials…'] });
    steer.authError = new Error('server "gh" is not admitted (needs approval); nothing is contacted for it until it is');
    expect((await run('/mcp auth gh')).output).toEqual({
      tone: 'error',
      lines: ['server "gh" is not admitted (needs approval); nothing is contacted for it until it is'],
    });
    expect((await run('/mcp auth nope')).output?.tone).toBe('error');
  });

  it.each(['javascript:alert(1)', 'file:///etc/passwd', 'x-foo:open', 'http://example.invalid/authorize'])(
    'an authorization URL of %s is neither opened nor shown (decision 189)',
    async (authUrl) => {
      const { run, opened, steer } = setup(() => Promise.resolve());
      steer.authUrl = authUrl;
      const { output } = await run('/mcp auth gh');
      expect(output?.tone).toBe('error');
      expect(output?.lines).toEqual([expect.stringMatching(/^refused to open the authorization URL .*only https: URLs, or http: to a loopback host$/)]);
      expect(JSON.stringify(output)).not.toContain(authUrl);
      expect(opened).toEqual([]);
    },
  );

  it('/mcp logout forgets the tokens', async () => {
    const { run, steer, callsOf } = setup(() => Promise.resolve());
    expect((await run('/mcp logout gh')).output).toEqual({ tone: 'success', lines: ['Forgot the tokens of gh.'] });
    steer.forgotten = 0;
    expect((await run('/mcp logout gh')).output).toEqual({ tone: 'success', lines: ['No tokens stored for gh.'] });
    expect(callsOf('auth.logout')).toEqual([['gh'], ['gh']]);
  });
});
