import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/hosts/ui/App.js';
import { parseCommand } from '../../src/hosts/ui/commands/commands.js';
import { fakeLive, KEY, plain, server, tick, waitFor } from './fakeLive.js';

afterEach(cleanup);

/** Decision 304: the user's own servers held in a folder that could change what they run. */
const DETAIL = 'held: this folder can change what it runs (node_modules, .npmrc) – run `mcp-live trust` to allow it';
const held = (name: string) => server(name, { state: 'blocked', reason: 'untrusted_launch', detail: DETAIL });

function session(trustFolder?: () => Promise<string>) {
  const fake = fakeLive({ servers: [held('github'), held('fetch'), server('remote')] });
  const ui = render(<App live={fake.live} onExit={vi.fn()} {...(trustFolder ? { trustFolder } : {})} />);
  const frame = () => plain(ui.lastFrame());
  const type = async (...keys: string[]) => {
    for (const k of keys) {
      ui.stdin.write(k);
      await tick(5);
    }
  };
  return { ...fake, ...ui, frame, type };
}

describe('a folder that holds the user’s own servers, in the terminal UI', () => {
  it('asks one question for every held server; y trusts the folder (as /trust), once', async () => {
    const trustFolder = vi.fn(() => Promise.resolve('Trusted /w (TRUST_FOLDER in /h/.qwen/trustedFolders.json): your own servers held here start now.'));
    const s = session(trustFolder);
    await waitFor(() => expect(s.frame()).toContain('This folder has files that can change what your servers run: node_modules, .npmrc. Trust it? y/n'));
    expect(s.frame()).toContain('held until then: github, fetch');
    await s.type('y');
    await waitFor(() => expect(s.frame()).toContain('your own servers held here start now'));
    expect(trustFolder).toHaveBeenCalledTimes(1);
    expect(s.frame()).not.toContain('Trust it? y/n');
  });

  it('n leaves them held, with the /trust hint on their rows, and is not asked again', async () => {
    const trustFolder = vi.fn(() => Promise.resolve('trusted'));
    const s = session(trustFolder);
    await waitFor(() => expect(s.frame()).toContain('Trust it? y/n'));
    await s.type('n');
    await waitFor(() => expect(s.frame()).toContain('Not trusted: your servers here stay held. /trust trusts this folder later.'));
    expect(s.frame()).toMatch(/⊘ github\s+user\s+held until \/trust: this folder can change what it runs \(node_modules, \.npmrc\)/);
    s.setServers([held('github'), held('fetch'), held('third'), server('remote')]);
    await tick(50);
    expect(s.frame()).not.toContain('Trust it? y/n');
    expect(trustFolder).not.toHaveBeenCalled();

    await s.type('/trust', KEY.enter);
    await waitFor(() => expect(trustFolder).toHaveBeenCalledTimes(1));
  });

  it('/trust parses without arguments; a session that cannot write trust rules says what to run instead', async () => {
    expect(parseCommand('/trust')).toEqual({ ok: true, command: { kind: 'trust' } });
    expect(parseCommand('/trust here')).toEqual({ ok: false, error: 'Usage: /trust' });
    const s = session();
    await tick(50);
    expect(s.frame()).not.toContain('Trust it? y/n');
    await s.type('/trust', KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('This session cannot trust its folder: run `mcp-live trust` in a shell.'));
  });
});
