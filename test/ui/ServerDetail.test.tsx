import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerDetail } from '../../src/hosts/ui/lists/ServerDetail.js';
import { plain, server, tool } from './fakeLive.js';

afterEach(cleanup);

const at = (h: number, m: number, s: number) => new Date(2026, 0, 2, h, m, s).getTime();

describe('ServerDetail', () => {
  it('shows the config summary, tools with descriptions, prompts, stderr tail and history', () => {
    const s = server('echo', {
      scope: 'workspace',
      source: '/w/.qwen/settings.json',
      transport: 'stdio',
      fingerprint: 'abcdef0123456789abcdef',
      pid: 4242,
      tools: [tool('echo', 'say', 'Says it back\nsecond line')],
      prompts: [{ name: 'greet', description: 'A greeting' }],
      history: [
        { ts: at(9, 5, 7), state: 'connecting' },
        { ts: at(9, 5, 8), state: 'connected', message: '1 tool' },
      ],
    });
    const { lastFrame } = render(
      <ServerDetail server={s} stderr={Array.from({ length: 20 }, (_, i) => `line ${i + 1}`)} stderrLines={3} />,
    );
    const frame = plain(lastFrame());
    expect(frame).toContain('echo connected (pid 4242)');
    expect(frame).toMatch(/scope\s+workspace/);
    expect(frame).toMatch(/source\s+\/w\/\.qwen\/settings\.json/);
    expect(frame).toMatch(/transport\s+stdio/);
    expect(frame).toMatch(/fingerprint\s+abcdef012345…/);
    expect(frame).not.toContain('abcdef0123456789');
    expect(frame).toContain('say mcp__echo__say — Says it back');
    expect(frame).not.toContain('second line');
    expect(frame).toContain('greet — A greeting');
    expect(frame).toContain('stderr (last 3 of 20 lines)');
    expect(frame).toMatch(/line 18\s+line 19\s+line 20/);
    expect(frame).not.toContain('line 17');
    expect(frame).toContain('09:05:07 connecting');
    expect(frame).toContain('09:05:08 connected 1 tool');
  });

  it('says which MCP revision a connected server speaks, and its era (decision 380)', () => {
    const modern = plain(render(<ServerDetail server={server('m', { protocolVersion: '2026-07-28', era: 'modern' })} stderr={[]} stderrLines={3} />).lastFrame());
    expect(modern).toMatch(/protocol\s+2026-07-28 \(modern\)/);
    const legacy = plain(render(<ServerDetail server={server('l', { protocolVersion: '2025-11-25', era: 'legacy' })} stderr={[]} stderrLines={3} />).lastFrame());
    expect(legacy).toMatch(/protocol\s+2025-11-25 \(2025 era\)/);
    const unknown = plain(render(<ServerDetail server={server('u', {})} stderr={[]} stderrLines={3} />).lastFrame());
    expect(unknown).not.toContain('protocol');
  });

  it('an idle server says why it has no process; withheld tools are named with how to review them', () => {
    const s = server('notes', {
      state: 'idle',
      idle: 'idle-timeout',
      idleTimeoutMs: 300_000,
      tools: [tool('notes', 'rug_pull', 'Changes its tools')],
      withheld: ['exfiltrate', 'read_notes'],
    });
    const frame = plain(render(<ServerDetail server={s} stderr={[]} stderrLines={3} />).lastFrame());
    expect(frame).toContain('stopped after 5 min idle');
    expect(frame).toContain('Tools (1, 2 withheld)');
    expect(frame).toContain('⊘ exfiltrate withheld — definition changed');
    expect(frame).toContain('⊘ read_notes withheld — definition changed');
    expect(frame).toMatch(/the agent gets them once you approve: \/approve\s+notes\./);
    expect(frame).toContain('rug_pull mcp__notes__rug_pull — Changes its tools');
  });

  it('a withheld tool says what changed about it while its surface waits, with the differences', () => {
    const s = server('notes', { state: 'connected', tools: [tool('notes', 'rug_pull', 'Changes its tools')], withheld: ['exfiltrate', 'read_notes'] });
    const surface = [
      { kind: 'tool' as const, name: 'exfiltrate', change: 'added' as const, after: 'Sends a file somewhere' },
      { kind: 'tool' as const, name: 'read_notes', change: 'description' as const, before: 'Reads', after: 'Reads and sends' },
      { kind: 'tool' as const, name: 'read_notes', change: 'schema' as const, before: '{}', after: '{"type":"object"}' },
    ];
    const frame = plain(render(<ServerDetail server={s} stderr={[]} surface={surface} />).lastFrame());
    expect(frame).toContain('⊘ exfiltrate withheld — new since you approved it');
    expect(frame).toContain('⊘ read_notes withheld — description and schema changed');
    expect(frame).toContain('Changed since you approved it (3 changes)');
    expect(frame).toContain('~ tool read_notes: schema changed');
    expect(frame).toMatch(/now:\s+\{"type":"object"\}/);
  });

  it('a remote server has no stderr section; a stdio one has, even while it is empty', () => {
    const remote = render(<ServerDetail server={server('r', { transport: 'http' })} stderr={[]} />);
    expect(plain(remote.lastFrame())).not.toContain('stderr');
    const sse = render(<ServerDetail server={server('e', { transport: 'sse' })} stderr={[]} />);
    expect(plain(sse.lastFrame())).not.toContain('stderr');
    const local = render(<ServerDetail server={server('l', { transport: 'stdio' })} stderr={[]} />);
    expect(plain(local.lastFrame())).toMatch(/stderr \(last 0 of 0 lines\)\s+empty/);
    // Blocked (never started here): its earlier output still shows, no empty section otherwise.
    const blocked = server('b', { state: 'blocked', reason: 'rejected' });
    expect(plain(render(<ServerDetail server={blocked} stderr={[]} />).lastFrame())).not.toContain('stderr');
    expect(plain(render(<ServerDetail server={blocked} stderr={['last words']} />).lastFrame())).toContain('last words');
  });

  it('shows the reason of a blocked server and the error of a failed one', () => {
    const blocked = render(<ServerDetail server={server('b', { state: 'blocked', reason: 'rejected' })} />);
    expect(plain(blocked.lastFrame())).toMatch(/reason\s+rejected – edit its config to be asked again/);
    const failed = render(<ServerDetail server={server('f', { state: 'error', error: 'exit code 3: boom' })} />);
    expect(plain(failed.lastFrame())).toMatch(/error\s+exit code 3: boom/);
  });

  it('shows the config as written: literal secrets masked, everything that affects what runs visible', () => {
    // Decision 55: the detail view used to mask every env and header value (hiding NODE_OPTIONS,
    // which decides what runs) and to show a URL's `?token=`. It now shows the entry as a
    // reviewer must see it: only literal secrets (secret-named keys, token formats, URL user
    // info and query values) are masked, and `${VAR}` references stay readable.
    const config = {
      command: 'node',
      env: { TOKEN: 'sk-live-999', NODE_OPTIONS: '--require ./evil.cjs', GITHUB_TOKEN: '${GITHUB_TOKEN}' },
      headers: { 'X-Api-Key': 'b-secret', 'X-Trace': 'on' },
      url: 'https://me:hunter2@example.com/mcp?token=tok-in-query',
    };
    const frame = plain(render(<ServerDetail server={server('s')} config={config} />).lastFrame());
    expect(frame).toContain('"TOKEN": "***"');
    expect(frame).toContain('"NODE_OPTIONS": "--require ./evil.cjs"');
    expect(frame).toContain('"GITHUB_TOKEN": "${GITHUB_TOKEN}"');
    expect(frame).toContain('"X-Api-Key": "***"');
    expect(frame).toContain('"X-Trace": "on"');
    expect(frame).toContain('"url": "https://***:***@example.com/mcp?token=***"');
    for (const secret of ['sk-live-999', 'b-secret', 'hunter2', 'tok-in-query']) expect(frame).not.toContain(secret);
  });
});

describe('ServerDetail: what the server said and what it serves', () => {
  it('shows the server\'s name, version and instructions, and its resources and templates with their URIs', () => {
    const s = server('every', {
      serverInfo: { name: 'mcp-servers/everything', version: '2.0.0' },
      instructions: 'Use the echo tool to test.',
      resources: [{ uri: 'demo://resource/static/document/a.md', name: 'a.md', description: 'A document' }],
      resourceTemplates: [{ uriTemplate: 'demo://resource/dynamic/text/{resourceId}', name: 'Dynamic Text Resource' }],
    });
    const frame = plain(render(<ServerDetail server={s} />).lastFrame());
    expect(frame).toMatch(/server\s+mcp-servers\/everything 2\.0\.0/);
    expect(frame).toContain('Instructions');
    expect(frame).toContain('Use the echo tool to test.');
    expect(frame).toContain('Resources (1)');
    expect(frame).toContain('demo://resource/static/document/a.md a.md — A document');
    expect(frame).toContain('demo://resource/dynamic/text/{resourceId} template Dynamic Text Resource');
    expect(frame).toContain('/read URI shows one');
  });

  it('says nothing of resources, instructions or identity a server does not have', () => {
    const frame = plain(render(<ServerDetail server={server('bare')} />).lastFrame());
    expect(frame).not.toContain('Resources');
    expect(frame).not.toContain('Instructions');
    expect(frame).not.toMatch(/^server\s/m);
  });
});
