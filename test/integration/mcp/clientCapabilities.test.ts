import { pathToFileURL } from 'node:url';
import { BehaviorSubject, filter, first, firstValueFrom, timeout } from 'rxjs';
import { describe } from 'vitest';
import { createMcpLive, type McpLive, type McpLiveOptions } from '../../../src/index.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { createConnectionPool } from '../../../src/sinks/mcp/connectionPool.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { SERVER_EVERYTHING, fixture, textOf } from '../mcpServers.js';
import { it as base, noLeftoversAfterAll, type TempWorkspace } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/**
 * The client side of the protocol (decisions 91–98) against real servers: server-everything where it
 * offers the feature (elicitation, roots, prompts, resources and templates, progress,
 * instructions), `client-requests-server.mjs` where a server must misbehave or be exact
 * (sampling without the capability, the conformance suite's defaults form, a quiet tool).
 */

const everything = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'], ...extra });
const requests = (extra: Record<string, unknown> = {}, args: string[] = []) => ({
  command: process.execPath,
  args: [fixture('client-requests-server.mjs'), ...args],
  ...extra,
});
const echo = () => ({ command: process.execPath, args: [fixture('echo-server.mjs'), '--slow-tool', '60000'] });

/** A started session serving `servers` from a user-scope stream, on a temp workspace (or `ws`: sessions of one workspace share pooled processes). */
type Session = (servers: Record<string, unknown>, options?: Partial<McpLiveOptions>, ws?: TempWorkspace) => Promise<McpLive>;

const it = base.extend<{ session: Session }>({
  session: async ({ scope }, use) =>
    use(async (servers, options = {}, ws = scope.workspace('mcp-live-client-', { qwen: false })) => {
      const live = scope.track(
        createMcpLive({
          homeDir: ws.homeDir,
          cwd: ws.cwd,
          runtimeDir: ws.runtimeDir,
          debounceMs: 20,
          extraSources: [{ scope: 'user', source: 'stream', servers$: new BehaviorSubject(servers) }],
          ...options,
        }),
      );
      await live.start();
      return live;
    }),
});

/** Waits until the session lists `tool` (server-everything registers some only after `initialized`). */
async function listed(live: McpLive, tool: string): Promise<void> {
  await firstValueFrom(live.tools.list$.pipe(first((tools) => tools.some((t) => t.name === tool)), timeout(deadline(15_000))));
}

function recordEvents(live: McpLive): McpLiveEvent[] {
  const seen: McpLiveEvent[] = [];
  live.events$.subscribe((e) => seen.push(e));
  return seen;
}

noLeftoversAfterAll();

describe.concurrent('elicitation', () => {
  it('a form reaches elicitation.pending$ and the event; an accept gets the schema defaults for the fields left out', async ({ session, expect }) => {
    const live = await session({ every: everything() });
    const events = recordEvents(live);
    await listed(live, 'mcp__every__trigger-elicitation-request');
    const call = live.tools.call('mcp__every__trigger-elicitation-request', {});
    const [form] = await firstValueFrom(live.elicitation.pending$.pipe(filter((p) => p.length > 0)));
    expect(form).toMatchObject({ server: 'every', message: 'Please provide inputs for the following fields:' });
    expect(form!.requestedSchema.required).toEqual(['name']);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'elicitation', id: form!.id, server: 'every', schema: form!.requestedSchema }),
    );
    // A required field left empty is refused, and the form keeps waiting.
    expect(() => live.elicitation.answer(form!.id, { action: 'accept', content: {} })).toThrow('required: name');
    live.elicitation.answer(form!.id, { action: 'accept', content: { name: 'Ada' } });
    const text = textOf(await call);
    expect(text).toContain('- Name: Ada');
    expect(text).toContain('"firstLine": "It was a dark and stormy night."');
    expect(text).toContain('- Favorite Integer: 42');
    expect(await firstValueFrom(live.elicitation.pending$)).toEqual([]);
    expect(() => live.elicitation.answer(form!.id, { action: 'cancel' })).toThrow(`no form "${form!.id}" is waiting`);
  }, deadline(30_000));

  it('decline reaches the server as decline', async ({ session, expect }) => {
    const live = await session({ every: everything() });
    await listed(live, 'mcp__every__trigger-elicitation-request');
    const call = live.tools.call('mcp__every__trigger-elicitation-request', {});
    const [form] = await firstValueFrom(live.elicitation.pending$.pipe(filter((p) => p.length > 0)));
    live.elicitation.answer(form!.id, { action: 'decline' });
    expect(textOf(await call)).toContain('User declined');
  }, deadline(30_000));

  it('a form nobody answers within the entry\'s timeout is cancelled, and the log says which knob to raise', async ({ session, expect }) => {
    const live = await session({ every: everything({ timeout: 400, connectTimeout: 15_000 }) });
    const events = recordEvents(live);
    await listed(live, 'mcp__every__trigger-elicitation-request');
    const result = await live.tools.call('mcp__every__trigger-elicitation-request', {}, { timeout: 15_000 });
    expect(textOf(result)).toContain('User cancelled');
    expect(await firstValueFrom(live.elicitation.pending$)).toEqual([]);
    const log = events.find((e) => e.type === 'log' && e.message.includes('not answered within 400 ms'));
    expect(log).toMatchObject({ level: 'warn' });
    expect(log?.type === 'log' && log.message).toContain('raise "timeout" in the server\'s entry');
  }, deadline(30_000));

  it('onElicitation answers instead of the queue; an accept with nothing filled in gets every default (conformance sep1034)', async ({ session, expect }) => {
    const asked: unknown[] = [];
    const live = await session(
      { req: requests() },
      {
        onElicitation: (request) => {
          asked.push(request);
          return Promise.resolve({ action: 'accept' });
        },
      },
    );
    const answer = JSON.parse(textOf(await live.tools.call('mcp__req__defaults', {}))) as unknown;
    expect(answer).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
    expect(asked).toMatchObject([{ server: 'req', message: 'Test client default value handling - please accept with defaults' }]);
    expect(await firstValueFrom(live.elicitation.pending$)).toEqual([]);
  }, deadline(30_000));
});

describe.concurrent('roots, instructions, sampling', () => {
  it('the workspace is the one root, and the server\'s name, version and instructions are on its status', async ({ session, expect }) => {
    const live = await session({ every: everything() });
    await listed(live, 'mcp__every__get-roots-list');
    const text = textOf(await live.tools.call('mcp__every__get-roots-list', {}));
    expect(text).toContain(pathToFileURL(live.cwd).href);
    const status = live.servers.status().find((s) => s.name === 'every')!;
    expect(status.serverInfo?.name).toBe('mcp-servers/everything');
    expect(status.instructions).toContain('Everything Server');
  }, deadline(30_000));

  it('without onSampling, sampling is not advertised and a request is refused in words; with it, the host\'s model answers', async ({ session, expect }) => {
    const bare = await session({ every: everything(), req: requests() });
    await listed(bare, 'mcp__every__trigger-elicitation-request');
    expect(bare.servers.status().find((s) => s.name === 'every')!.tools.map((t) => t.tool)).not.toContain('trigger-sampling-request');
    const refused = textOf(await bare.tools.call('mcp__req__sample', {}));
    expect(refused).toMatch(/^error: MCP error -32601: .*mcp-live has no model to sample with; /);
    expect(refused).toContain('through the onSampling option of createMcpLive');
    expect(bare.servers.status().find((s) => s.name === 'req')!).toMatchObject({
      serverInfo: { name: 'client-requests-fixture', version: '2.3.4' },
      instructions: 'Call `defaults` to be asked for a form.',
    });

    const sampled: unknown[] = [];
    const host = await session(
      { every: everything(), req: requests() },
      {
        onSampling: (server, params) => {
          sampled.push({ server, params });
          return Promise.resolve({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'hi' } });
        },
      },
    );
    expect(textOf(await host.tools.call('mcp__req__sample', {}))).toBe('model: hi');
    expect(sampled).toMatchObject([{ server: 'req', params: { maxTokens: 10 } }]);
    await listed(host, 'mcp__every__trigger-sampling-request');
  }, deadline(30_000));
});

describe.concurrent('prompts and resources', () => {
  it('prompts.get fills in a prompt by its listed name; an unknown one is refused in words', async ({ session, expect }) => {
    const live = await session({ every: everything() });
    const prompt = (await live.prompts.get('args-prompt', { city: 'Paris' })) as { messages: { content: { text: string } }[] };
    expect(prompt.messages[0]!.content.text).toBe("What's weather in Paris?");
    await expect(live.prompts.get('no-such-prompt')).rejects.toThrow('no connected server lists prompt "no-such-prompt"');
    await expect(live.prompts.get('args-prompt', { city: 'Oslo' }, { server: 'nope' })).rejects.toThrow('server "nope" is not connected');
  }, deadline(30_000));

  it('resources and templates are listed with their URIs; a read goes to the server that lists the URI or whose template matches it', async ({ session, expect }) => {
    const live = await session({ every: everything(), echo: echo() });
    const resources = live.resources.list();
    expect(resources).toContainEqual(expect.objectContaining({ server: 'echo', uri: 'fixture://readme' }));
    expect(resources.some((r) => r.server === 'every' && r.uri.startsWith('demo://resource/static/document/'))).toBe(true);
    expect(live.resources.templates()).toContainEqual(
      expect.objectContaining({ server: 'every', uriTemplate: 'demo://resource/dynamic/text/{resourceId}' }),
    );
    expect(live.servers.status().find((s) => s.name === 'echo')!.resourceTemplates).toBeUndefined();

    const listedRead = (await live.resources.read('fixture://readme')) as { contents: { text: string }[] };
    expect(listedRead.contents[0]!.text).toBe('fixture readme');
    const templated = (await live.resources.read('demo://resource/dynamic/text/7')) as { contents: { uri: string; text: string }[] };
    expect(templated.contents[0]!.uri).toBe('demo://resource/dynamic/text/7');
    await expect(live.resources.read('nothing://here')).rejects.toThrow('no connected server lists resource "nothing://here"');
  }, deadline(30_000));
});

describe.concurrent('calls: timeout, progress, cancel', () => {
  it('a call past its own timeout names that option; past the entry\'s timeout, the entry\'s field', async ({ session, expect }) => {
    const live = await session({ req: requests({ timeout: 300, connectTimeout: 10_000 }, ['--quiet-ms', '2000']) });
    await expect(live.tools.call('mcp__req__quiet', {}, { timeout: 200 })).rejects.toThrow(
      'timed out after 200 ms (raise the call\'s "timeout")',
    );
    await expect(live.tools.call('mcp__req__quiet', {})).rejects.toThrow(
      'timed out after 300 ms (raise "timeout" in the server\'s entry)',
    );
  }, deadline(30_000));

  it('progress reaches onProgress and starts the timeout again; the same call without progress times out', async ({ session, expect }) => {
    const live = await session({ every: everything() });
    const seen: unknown[] = [];
    const result = await live.tools.call(
      'mcp__every__trigger-long-running-operation',
      { duration: 1.5, steps: 5 },
      { timeout: 700, onProgress: (p) => seen.push(p) },
    );
    expect(textOf(result)).toContain('Long running operation completed');
    expect(seen).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
    await expect(
      live.tools.call('mcp__every__trigger-long-running-operation', { duration: 1.5, steps: 1 }, { timeout: 700 }),
    ).rejects.toThrow('timed out after 700 ms');
  }, deadline(30_000));

  it('every progress reaches onProgress, the last one too, when it arrives in one read with the answer', async ({ session, expect }) => {
    const live = await session({ burst: { command: process.execPath, args: [fixture('progress-burst-server.mjs')] } });
    for (let round = 0; round < 20; round++) {
      const seen: unknown[] = [];
      const result = await live.tools.call('mcp__burst__burst', {}, { onProgress: (p) => seen.push(p) });
      expect(textOf(result)).toBe('done');
      expect(seen).toEqual([1, 2, 3].map((progress) => ({ progress, total: 3 })));
    }
  }, deadline(30_000));

  it('an aborted call rejects at once and its server is sent notifications/cancelled', async ({ session, expect }) => {
    const live = await session({ echo: echo() });
    const abort = new AbortController();
    const call = live.tools.call('mcp__echo__slow', {}, { signal: abort.signal });
    setTimeout(() => abort.abort(new Error('stop')), 200);
    await expect(call).rejects.toThrow('stop');
    await expect.poll(() => live.servers.stderrTail('echo'), { timeout: deadline(10_000) }).toContain('slow cancelled');
  }, deadline(30_000));
});

describe.concurrent('a shared pool', () => {
  it('the session that has held the connection longest answers its forms, then the next one', async ({ session, scope, expect }) => {
    const pool = createConnectionPool({ connector: connectMcp });
    // After the sessions: a pool outlives the sessions that share it.
    scope.atEnd(() => pool.dispose());
    const ws = scope.workspace('mcp-live-client-', { qwen: false });
    const first = await session({ req: requests() }, { pool }, ws);
    const second = await session({ req: requests() }, { pool }, ws);
    expect(pool.stats()).toHaveLength(1);
    const call = second.tools.call('mcp__req__defaults', {});
    const [form] = await firstValueFrom(first.elicitation.pending$.pipe(filter((p) => p.length > 0)));
    expect(await firstValueFrom(second.elicitation.pending$)).toEqual([]);
    first.elicitation.answer(form!.id, { action: 'decline' });
    expect(JSON.parse(textOf(await call))).toEqual({ action: 'decline' });

    // The longest holder gone, the next one answers: the process stays, the forms move.
    await first.dispose();
    expect(pool.stats()).toMatchObject([{ refs: 1 }]);
    const again = second.tools.call('mcp__req__defaults', {});
    const [next] = await firstValueFrom(second.elicitation.pending$.pipe(filter((p) => p.length > 0)));
    second.elicitation.answer(next!.id, { action: 'accept', content: { name: 'Ada' } });
    expect(JSON.parse(textOf(await again))).toMatchObject({ action: 'accept', content: { name: 'Ada', age: 30 } });
  }, deadline(30_000));
});
