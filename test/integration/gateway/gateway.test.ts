import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { describe } from 'vitest';
import type { Gateway } from '../../../src/hosts/gateway/gateway.js';
import { SERVER_EVERYTHING, fixture, textOf } from '../mcpServers.js';
import { sleep } from '../processes.js';
import { errorOf, expectAbortReachesBackend, it } from './gatewayKit.js';
import { deadline } from '../../deadlines.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * The gateway core: SDK clients over in-memory transports, a real McpLive over real
 * settings files, real backend servers (server-everything, the echo and gateway-backend fixtures).
 */

const everything = { command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'] };
const backend = { command: process.execPath, args: [fixture('gateway-backend.mjs')] };
const echo = (...extra: string[]) => ({ command: process.execPath, args: [fixture('echo-server.mjs'), ...extra] });

noLeftoversAfterAll();

/** Counts `method` notifications a client receives, and resolves `next()` on the following one. */
function notifications(client: Client, schema: typeof ToolListChangedNotificationSchema | typeof PromptListChangedNotificationSchema) {
  let count = 0;
  let waiting: (() => void)[] = [];
  client.setNotificationHandler(schema, () => {
    count += 1;
    for (const w of waiting.splice(0)) w();
  });
  return {
    get count() {
      return count;
    },
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
    reset: () => {
      count = 0;
      waiting = [];
    },
  };
}

describe.concurrent('lists and requests, as the backends give them', () => {
  it('tools, prompts, resources and templates look as they do to a direct client; calls, reads, prompts and completions are routed', async ({ gatewayOver, clientOf, direct, expect }) => {
    const { gateway } = await gatewayOver({ gw: backend, every: everything });
    const client = await clientOf(gateway);
    const own = await direct(backend);

    const { tools } = await client.listTools();
    const { tools: directTools } = await own.listTools();
    for (const t of directTools) expect(tools).toContainEqual({ ...t, name: `gw__${t.name}` });
    expect(tools.find((t) => t.name === 'gw__structured')).toMatchObject({
      title: 'Structured Tool',
      annotations: { readOnlyHint: true },
      outputSchema: { type: 'object' },
      _meta: { 'example.com/owner': 'fixture' },
    });
    expect(tools.find((t) => t.name === 'every__echo')).toMatchObject({ title: 'Echo Tool', annotations: { idempotentHint: true } });
    // A client cannot approve anything: no such tool exists.
    expect(tools.filter((t) => /approv/i.test(t.name))).toEqual([]);

    const { prompts } = await client.listPrompts();
    const { prompts: directPrompts } = await own.listPrompts();
    for (const p of directPrompts) expect(prompts).toContainEqual({ ...p, name: `gw__${p.name}` });
    expect(prompts.find((p) => p.name === 'gw__summary')).toMatchObject({ title: 'Summary Prompt', arguments: [{ name: 'topic' }] });

    const { resources } = await client.listResources();
    expect(resources).toContainEqual((await own.listResources()).resources[0]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual((await own.listResourceTemplates()).resourceTemplates[0]);
    expect(resourceTemplates.some((t) => t.uriTemplate.startsWith('demo://resource/dynamic/'))).toBe(true);

    // Results unchanged: structured content, and an isError result stays a result.
    expect(await client.callTool({ name: 'gw__structured', arguments: { n: 21 } })).toEqual(
      await own.callTool({ name: 'structured', arguments: { n: 21 } }),
    );
    expect(await client.callTool({ name: 'gw__fails', arguments: {} })).toEqual({ isError: true, content: [{ type: 'text', text: 'it failed' }] });
    expect(textOf(await client.callTool({ name: 'every__echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');

    const prompt = await client.getPrompt({ name: 'gw__summary', arguments: { topic: 'rivers' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarise rivers' } }]);
    expect((await client.readResource({ uri: 'gw://items/7' })).contents).toEqual([{ uri: 'gw://items/7', text: 'item 7' }]);
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'gw__summary' }, argument: { name: 'topic', value: 'a' } });
    expect(completion.completion.values).toEqual(['alpha']);
    const byTemplate = await client.complete({
      ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
      argument: { name: 'resourceId', value: '5' },
    });
    expect(byTemplate.completion.values).toEqual(['5']);
    // The server each of those went to, as the library routes them (whose logs come to this client).
    expect(gateway.live.resources.serverOf('gw://items/7')).toBe('gw');
    expect(gateway.live.resources.serverOf('demo://resource/dynamic/text/{resourceId}', 'complete')).toBe('every');
    expect(gateway.live.resources.serverOf('nowhere://x')).toBeUndefined();
  }, deadline(60_000));

  it('progress reaches the caller under its own token; a cancel reaches the backend', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ every: everything, gw: backend });
    const client = await clientOf(gateway);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'every__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, undefined, {
      onprogress: ({ progress: p }) => progress.push(p),
    });
    expect(textOf(result)).toContain('Steps: 4');
    expect(progress).toEqual([1, 2, 3, 4]);

    await expectAbortReachesBackend(expect, gateway, (signal) => client.callTool({ name: 'gw__slow', arguments: {} }, undefined, { signal }));
  }, deadline(60_000));

  it('a client that goes away mid-call has its call cancelled at the backend; the others go on', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ gw: backend });
    const leaving = await clientOf(gateway, {}, 'leaving');
    const staying = await clientOf(gateway, {}, 'staying');
    const call = leaving.callTool({ name: 'gw__slow', arguments: {} });
    await expect.poll(() => gateway.live.servers.stderrTail('gw'), { timeout: deadline(5_000) }).toContain('slow started');
    await leaving.close();
    await expect(call).rejects.toThrow();
    await expect.poll(() => gateway.live.servers.stderrTail('gw'), { timeout: deadline(5_000) }).toContain('slow cancelled');
    expect(textOf(await staying.callTool({ name: 'gw__bump', arguments: {} }))).toBe('counter 1');
  }, deadline(30_000));

  it('a backend\'s log messages during a call reach the caller, at the level it set, with its entry\'s secrets masked', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ gw: { ...backend, env: { GW_SECRET: 'sk-gateway-0123456789abcdef' } } });
    const client = await clientOf(gateway);
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void logged.push(params));
    await client.setLoggingLevel('info');
    expect(textOf(await client.callTool({ name: 'gw__logs', arguments: {} }))).toBe('logged');
    expect(logged).toEqual([
      { level: 'info', logger: 'backend', data: 'first' },
      { level: 'error', logger: 'backend', data: 'third' },
      { level: 'warning', logger: 'backend', data: 'using ***' },
    ]);
  }, deadline(30_000));

  it('resource subscriptions pass through: the subscriber hears of the update', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ gw: backend });
    const client = await clientOf(gateway);
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => void updated.push(params.uri));
    await client.subscribeResource({ uri: 'gw://counter' });
    expect(textOf(await client.callTool({ name: 'gw__bump', arguments: {} }))).toBe('counter 1 (subscribed)');
    await expect.poll(() => updated).toEqual(['gw://counter']);
    await client.unsubscribeResource({ uri: 'gw://counter' });
    expect(textOf(await client.callTool({ name: 'gw__bump', arguments: {} }))).toBe('counter 2');
  }, deadline(30_000));
});

describe.concurrent('the live set changes', () => {
  it('a settings edit sends tools/list_changed with the new list; unchanged servers keep their pids; a change of status only sends nothing', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway, ws } = await gatewayOver({ echo: echo() });
    const client = await clientOf(gateway);
    const changed = notifications(client, ToolListChangedNotificationSchema);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo__echo', 'echo__slow']);
    const pid = gateway.live.servers.status().find((s) => s.name === 'echo')!.pid;

    const next = changed.next();
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo(), gw: backend } });
    await next;
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo__echo', 'gw__logs', 'gw__structured']));
    expect(gateway.live.servers.status().find((s) => s.name === 'echo')!.pid).toBe(pid);

    // A server that fails to start changes statuses, not the tools.
    changed.reset();
    const failed = firstValueFrom(gateway.live.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'broken' && s.state === 'error'))));
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo(), gw: backend, broken: { command: join(ws.root, 'no-such-server') } } });
    await failed;
    await sleep(200);
    expect(changed.count).toBe(0);
  }, deadline(60_000));

  it('tools keep their order across a settings edit and a server’s own list change: new tools come last, for every client (decision 358)', async ({ gatewayOver, clientOf, expect }) => {
    const changing = { command: process.execPath, args: [fixture('list-changed-server.mjs')] };
    const { gateway, ws } = await gatewayOver({ zed: echo(), live: changing });
    const client = await clientOf(gateway);
    const changed = notifications(client, ToolListChangedNotificationSchema);
    const first = (await client.listTools()).tools;
    // A fresh gateway: servers by name, each one's tools in its own order.
    expect(first.map((t) => t.name)).toEqual(['live__add_tool', 'zed__echo', 'zed__slow']);

    // A server `alpha` sorts first by name; it is listed last, and what was listed stays a prefix.
    let next = changed.next();
    ws.atomicWrite(ws.userSettings, { mcpServers: { zed: echo(), live: changing, alpha: echo('--tools', 'extra') } });
    await next;
    const added = (await client.listTools()).tools;
    expect(added.map((t) => t.name)).toEqual(['live__add_tool', 'zed__echo', 'zed__slow', 'alpha__echo', 'alpha__slow', 'alpha__extra']);
    expect(JSON.stringify(added).startsWith(JSON.stringify(first).slice(0, -1))).toBe(true);

    // The server `live` gains a tool by itself: listed after every other.
    next = changed.next();
    expect(textOf(await client.callTool({ name: 'live__add_tool', arguments: { name: 'stamp' } }))).toBe('added stamp');
    await next;
    const grown = (await client.listTools()).tools;
    expect(grown.map((t) => t.name)).toEqual([...added.map((t) => t.name), 'live__stamp']);
    // A client that connects now sees the gateway's order, not a fresh one.
    const later = await clientOf(gateway);
    expect((await later.listTools()).tools).toEqual(grown);
  }, deadline(60_000));

  it('two clients both hear of a change; closing one leaves the other working', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway, ws } = await gatewayOver({ echo: echo() });
    const seen: (readonly string[])[] = [];
    gateway.clients$.subscribe((list) => seen.push(list.map((c) => `${c.id}:${c.clientName ?? '?'}`)));
    const first = await clientOf(gateway, {}, 'first');
    const second = await clientOf(gateway, {}, 'second');
    await expect.poll(() => seen.at(-1)).toEqual(['stdio-1:first', 'stdio-2:second']);
    const [a, b] = [notifications(first, ToolListChangedNotificationSchema), notifications(second, ToolListChangedNotificationSchema)];
    const both = Promise.all([a.next(), b.next()]);
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo('--tools', 'extra') } });
    await both;

    await first.close();
    await expect.poll(() => seen.at(-1)).toEqual(['stdio-2:second']);
    expect(textOf(await second.callTool({ name: 'echo__extra', arguments: {} }))).toBe('extra');
  }, deadline(60_000));
});

describe.concurrent('what a client may not do', () => {
  /** The library's words about `qualified`, naming the tool as the client called it (`name`). */
  const reason = (gateway: Gateway, qualified: string, name: string) =>
    gateway.live.tools.notFoundMessage(qualified).replace(`Tool "${qualified}"`, `Tool "${name}"`);

  it("a tool that is not listed is the MCP specification's unknown tool, -32602 with the library's reason: pending, never configured, not offered, failed, removed", async ({ gatewayOver, clientOf, expect }) => {
    const broken = { command: join(tmpdir(), 'mcp-live-no-such-server') };
    const { gateway, ws } = await gatewayOver({ echo: echo(), gw: backend, broken }, { project: { gated: echo() } });
    const client = await clientOf(gateway);
    await expect.poll(() => gateway.live.servers.status().find((s) => s.name === 'broken')?.state, { timeout: deadline(10_000) }).toBe('error');
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(expect.arrayContaining(['echo__echo', 'echo__slow', 'gw__bump']));
    expect(listed.filter((n) => n.startsWith('gated') || n.startsWith('broken'))).toEqual([]);
    expect(gateway.live.servers.unavailable('gated')?.reason).toBe('pending_approval');

    const cases: [called: string, qualified: string, says: RegExp][] = [
      ['gated__echo', 'mcp__gated__echo', /MCP server "gated" .*approv/],
      ['nowhere__echo', 'mcp__nowhere__echo', /no MCP server "nowhere" is configured/],
      ['echo__nope', 'mcp__echo__nope', /MCP server "echo" does not offer it/],
      ['broken__echo', 'mcp__broken__echo', /MCP server "broken" failed/],
    ];
    for (const [called, qualified, says] of cases) {
      const error = await errorOf(client.callTool({ name: called, arguments: { text: 'x' } }));
      const words = reason(gateway, qualified, called);
      expect(words).toMatch(says);
      expect(words.startsWith(`Tool "${called}" is not available: `)).toBe(true);
      expect({ called, code: error.code, message: error.message }).toEqual({ called, code: -32602, message: `MCP error -32602: ${words}` });
    }

    // Removed from the settings while the client still holds the old list.
    const changed = notifications(client, ToolListChangedNotificationSchema).next();
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo(), broken } });
    await changed;
    const removed = await errorOf(client.callTool({ name: 'gw__bump', arguments: {} }));
    expect(removed.code).toBe(-32602);
    expect(removed.message).toBe(`MCP error -32602: ${reason(gateway, 'mcp__gw__bump', 'gw__bump')}`);
    // What is listed still answers.
    expect(textOf(await client.callTool({ name: 'echo__echo', arguments: { text: 'still here' } }))).toBe('still here');
  }, deadline(60_000));

  it("under --names qualified the library's words are the client's as they are", async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo() }, { names: 'qualified', project: { gated: echo() } });
    const client = await clientOf(gateway);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['mcp__echo__echo', 'mcp__echo__slow']);
    const gated = await errorOf(client.callTool({ name: 'mcp__gated__echo', arguments: { text: 'x' } }));
    expect(gated.code).toBe(-32602);
    expect(gated.message).toBe(`MCP error -32602: ${gateway.live.tools.notFoundMessage('mcp__gated__echo')}`);
    // The default naming's name of a listed tool: the name this gateway lists it under (decision 322).
    const otherNaming = await errorOf(client.callTool({ name: 'echo__echo', arguments: {} }));
    expect(otherNaming.code).toBe(-32602);
    expect(otherNaming.message).toBe(
      'MCP error -32602: Tool "echo__echo" is not available under that name: this gateway (--names qualified) lists it as "mcp__echo__echo" – call it by that name.',
    );
    const unknown = await errorOf(client.callTool({ name: 'echo__nope', arguments: {} }));
    expect(unknown.message).toBe(`MCP error -32602: ${gateway.live.tools.notFoundMessage('echo__nope')}`);
  }, deadline(30_000));

  it('under the default naming, a qualified name of a listed tool is answered with the name to call (decision 322)', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo() });
    const client = await clientOf(gateway);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo__echo');
    const error = await errorOf(client.callTool({ name: 'mcp__echo__echo', arguments: { text: 'x' } }));
    expect({ code: error.code, message: error.message }).toEqual({
      code: -32602,
      message: 'MCP error -32602: Tool "mcp__echo__echo" is not available under that name: this gateway (--names server) lists it as "echo__echo" – call it by that name.',
    });
    // A qualified name of a tool the server does not offer: as before.
    const nope = await errorOf(client.callTool({ name: 'mcp__echo__nope', arguments: {} }));
    expect(nope.message).toBe('MCP error -32602: Tool "mcp__echo__nope" is not available: MCP server "echo" does not offer it.');
  }, deadline(30_000));
});

describe.concurrent('elicitation and sampling', () => {
  it('a form goes to the client whose call asked for it, else to one that can answer it, never to one without the capability; its answer goes back', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ every: everything });
    const incapable = await clientOf(gateway, {}, 'incapable');
    const asked: string[] = [];
    const capable = await clientOf(gateway, { elicitation: {} }, 'capable');
    capable.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      asked.push(params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await capable.callTool({ name: 'every__trigger-elicitation-request', arguments: {} });
    // The form says which server asks (decision 169).
    expect(asked).toEqual(['[every] Please provide inputs for the following fields:']);
    expect(textOf(result)).toContain('- Name: Ada');
    // The caller cannot answer forms: the client that can is asked instead.
    const viaOther = await incapable.callTool({ name: 'every__trigger-elicitation-request', arguments: {} });
    expect(asked).toHaveLength(2);
    expect(textOf(viaOther)).toContain('- Name: Ada');
  }, deadline(30_000));

  it("a form's message and field titles reach the client terminal-safe, under the server's name (decision 169)", async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ hostile: { command: process.execPath, args: [fixture('hostile-text-server.mjs')] } });
    const client = await clientOf(gateway, { elicitation: {} }, 'capable');
    const asked: { message: string; title: unknown }[] = [];
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      const schema = (params as { requestedSchema?: { properties?: Record<string, { title?: unknown }> } }).requestedSchema;
      asked.push({ message: params.message, title: schema?.properties?.pw?.title });
      return { action: 'decline' };
    });
    await client.callTool({ name: 'hostile__ask', arguments: {} });
    expect(asked).toHaveLength(1);
    const [{ message, title }] = asked as [{ message: string; title: string }];
    expect(message).toMatch(/^\[hostile\] hostile message \\x1b\[1A\\x1b\[2K\\x1b\[8mconcealed/);
    expect(message).toContain('\\x1b]52;c;Y3VybCBldmlsfHNo\\x07');
    expect(message).toContain('\\x9b2J \\u202eevil');
    expect(title).toBe('hostile title \\x1b[8m\\u202e');
    for (const text of [message, title]) expect(/[\p{Cc}\p{Cf}]/u.test(text)).toBe(false);
  }, deadline(30_000));

  it('with no client that can answer, a form is cancelled and sampling refused in words', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ every: everything, req: { command: process.execPath, args: [fixture('client-requests-server.mjs')] } });
    const client = await clientOf(gateway);
    expect(textOf(await client.callTool({ name: 'every__trigger-elicitation-request', arguments: {} }))).toContain('User cancelled');
    expect(textOf(await client.callTool({ name: 'req__sample', arguments: {} }))).toBe(
      'error: MCP error -32601: no client connected to the mcp-live gateway can sample (none declared the sampling capability)',
    );
  }, deadline(30_000));
});

describe.concurrent("names: 'original'", () => {
  it('a tool or prompt keeps its own name when no other server lists it; a colliding one keeps the qualified name; calls go to the right server', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo(), every: everything }, { names: 'original' });
    const client = await clientOf(gateway);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__echo__echo', 'mcp__every__echo', 'slow', 'get-sum']));
    expect(names).not.toContain('echo');
    expect(textOf(await client.callTool({ name: 'mcp__echo__echo', arguments: { text: 'mine' } }))).toBe('mine');
    expect(textOf(await client.callTool({ name: 'mcp__every__echo', arguments: { message: 'theirs' } }))).toBe('Echo: theirs');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('greet');
    const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hello Ada' });
  }, deadline(30_000));

  it('alone, a server\'s tools keep their own names', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo() }, { names: 'original' });
    const client = await clientOf(gateway);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'slow']);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'plain' } }))).toBe('plain');
  }, deadline(30_000));
});

describe.concurrent("names: 'qualified' (today's before decision 222)", () => {
  it("tools and prompts under the library's qualified names; calls and prompts are routed", async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo(), every: everything }, { names: 'qualified' });
    const client = await clientOf(gateway);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__echo__echo', 'mcp__echo__slow', 'mcp__every__echo', 'mcp__every__get-sum']));
    expect(names.every((n) => n.startsWith('mcp__'))).toBe(true);
    expect(textOf(await client.callTool({ name: 'mcp__every__echo', arguments: { message: 'q' } }))).toBe('Echo: q');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('mcp__echo__greet');
    const prompt = await client.getPrompt({ name: 'mcp__echo__greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hello Ada' });
  }, deadline(30_000));

  it('every exposed name in every mode matches ^[A-Za-z0-9_-]{1,64}$, whatever the servers call their tools', async ({ gatewayOver, clientOf, expect }) => {
    // Tools named with dots, emoji and 70 characters, servers whose names collide once sanitised, a 65-character server name.
    const odd = echo('--tools', `dot.ted,ü😀,${'x'.repeat(70)}`);
    // The three modes side by side: three sessions of their own.
    const modes = ['server', 'qualified', 'original'] as const;
    const seen = await Promise.all(
      modes.map(async (names) => {
        const { gateway } = await gatewayOver({ 'my.srv': odd, my_srv: odd, [`long-${'n'.repeat(60)}`]: echo() }, { names });
        const client = await clientOf(gateway);
        return { names, tools: (await client.listTools()).tools.map((t) => t.name), prompts: (await client.listPrompts()).prompts.map((p) => p.name) };
      }),
    );
    for (const { names, tools, prompts } of seen) {
      expect(tools.length).toBeGreaterThan(4);
      for (const name of [...tools, ...prompts]) expect({ names, name }).toEqual({ names, name: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/) as unknown });
      expect(new Set(tools).size).toBe(tools.length);
    }
    expect(seen.map((s) => s.names)).toEqual(modes);
  }, deadline(60_000));
});
