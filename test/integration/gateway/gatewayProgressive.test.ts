import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { metaTools } from '../../../src/model/gateway/progressiveTools.js';
import type { Gateway } from '../../../src/hosts/gateway/gateway.js';
import { SERVER_EVERYTHING, fixture, textOf } from '../mcpServers.js';
import { errorOf, expectAbortReachesBackend, it } from './gatewayKit.js';
import { deadline } from '../../deadlines.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * Progressive discovery through the gateway (decisions 216–218): SDK clients over in-memory
 * transports, a real McpLive over real settings files, real backend servers.
 */

const echo = (...extra: string[]) => ({ command: process.execPath, args: [fixture('echo-server.mjs'), ...extra] });
const many = (count: number) => ({ command: process.execPath, args: [fixture('many-tools-server.mjs'), '--count', String(count)] });
const backend = { command: process.execPath, args: [fixture('gateway-backend.mjs')] };
const everything = { command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'] };
const META = ['search_tools', 'call_tool', 'describe_tool'];

noLeftoversAfterAll();

/** The tool `name` as a client straight to `entry` sees it. */
async function directTool(entry: { command: string; args: string[] }, name: string): Promise<Tool> {
  const client = new Client({ name: 'direct', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'ignore' }));
  try {
    return (await client.listTools()).tools.find((t) => t.name === name)!;
  } finally {
    await client.close();
  }
}

const listed = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);

interface Found {
  name: string;
  server: string;
  description?: string;
  inputSchema?: unknown;
}

async function search(client: Client, query: string, limit?: number): Promise<Found[]> {
  const result = await client.callTool({ name: 'search_tools', arguments: limit === undefined ? { query } : { query, limit } });
  expect(result.isError).toBeUndefined();
  return (JSON.parse(textOf(result)) as { tools: Found[] }).tools;
}

/** Resolves on the client's next tools/list_changed. */
function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
}

/** The library's words about `qualified`, naming the tool as the client called it (`name`). */
function reason(gateway: Gateway, qualified: string, name: string): string {
  const words = gateway.live.tools.notFoundMessage(qualified);
  expect(words.startsWith(`Tool "${qualified}" is not available`)).toBe(true);
  return words.replace(`Tool "${qualified}"`, `Tool "${name}"`);
}

describe.concurrent("progressive: 'always'", () => {
  it('lists only the three tools; search finds a tool as a direct client sees it; call_tool calls it for real; describe_tool gives its definition', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo(), many: many(60) }, { progressive: 'always' });
    const client = await clientOf(gateway);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(META);
    expect(tools).toEqual(metaTools());

    const own = await directTool(echo(), 'echo');
    const [first] = await search(client, 'return the text');
    expect(first).toEqual({ name: 'echo__echo', server: 'echo', description: own.description, inputSchema: own.inputSchema });
    expect((await search(client, 'tool number 7'))[0]!.name).toBe('many__tool_7');
    expect(await search(client, 'tool number', 12)).toHaveLength(12);

    expect(await client.callTool({ name: 'call_tool', arguments: { name: 'echo__echo', arguments: { text: 'for real' } } })).toEqual({
      content: [{ type: 'text', text: 'for real' }],
    });
    const described = await client.callTool({ name: 'describe_tool', arguments: { name: 'echo__echo' } });
    expect(JSON.parse(textOf(described))).toEqual({ ...own, name: 'echo__echo' });
    // A client that calls a found tool by its name directly gets the same answer.
    expect(textOf(await client.callTool({ name: 'echo__echo', arguments: { text: 'direct' } }))).toBe('direct');
  }, deadline(30_000));

  it("the three tools carry no server's text: a server named with a marker is not in tools/list, only in the hits that name it (decision 314)", async ({ gatewayOver, clientOf, expect }) => {
    const marker = 'zz-marker-7f3a';
    const { gateway } = await gatewayOver(
      { [marker]: echo('--tools', `${marker}_echo`), echo: echo() },
      { progressive: 'always', project: { [`${marker}-gated`]: echo('--tools', `${marker}_gated`) } },
    );
    const client = await clientOf(gateway);
    await expect.poll(async () => (await search(client, marker, 50)).length, { timeout: deadline(10_000) }).toBeGreaterThan(0);
    const listing = await client.listTools();
    expect(JSON.stringify(listing)).not.toContain('zz-marker');
    expect(listing.tools).toEqual(metaTools());
    // The hits say their server, next to the name a client calls.
    const hits = await search(client, 'echo', 50);
    expect(hits.map((t) => [t.name.startsWith(`${t.server}__`), Object.keys(t)[0]])).toEqual(hits.map(() => [true, 'server']));
    expect(hits.map((t) => t.server)).toEqual(expect.arrayContaining([marker, 'echo']));
  }, deadline(30_000));

  it("call_tool answers an unknown tool as tools/call does; describe_tool in an error result; bad arguments are invalid params", async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo() }, { progressive: 'always' });
    const client = await clientOf(gateway);
    const viaCallTool = await errorOf(client.callTool({ name: 'call_tool', arguments: { name: 'echo__nope', arguments: {} } }));
    const direct = await errorOf(client.callTool({ name: 'echo__nope', arguments: {} }));
    expect(viaCallTool.code).toBe(-32602);
    expect(viaCallTool.message).toBe(direct.message);
    expect(viaCallTool.message).toBe(`MCP error -32602: ${reason(gateway, 'mcp__echo__nope', 'echo__nope')}`);

    const described = await client.callTool({ name: 'describe_tool', arguments: { name: 'echo__nope' } });
    expect(described).toEqual({ isError: true, content: [{ type: 'text', text: reason(gateway, 'mcp__echo__nope', 'echo__nope') }] });

    const bad = await errorOf(client.callTool({ name: 'call_tool', arguments: { arguments: {} } }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('call_tool needs "name"');
    expect((await client.callTool({ name: 'search_tools', arguments: {} })).isError).toBe(true);
  }, deadline(30_000));

  it("a pending (gated, unapproved) server's tools are never found, described or called", async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo() }, { progressive: 'always', project: { gated: echo('--tools', 'secret_gated_tool') } });
    const client = await clientOf(gateway);
    expect(gateway.live.servers.unavailable('gated')?.reason).toBe('pending_approval');
    const { tools } = await client.listTools();
    expect(tools).toEqual(metaTools());
    // The word "tool" finds the echo server's `slow` (its description says --slow-tool); nothing of the gated one.
    expect((await search(client, 'secret gated tool', 50)).map((t) => t.name)).toEqual(['echo__slow']);
    expect((await search(client, 'echo', 50)).map((t) => t.server)).toEqual(['echo', 'echo']);

    const words = reason(gateway, 'mcp__gated__secret_gated_tool', 'gated__secret_gated_tool');
    expect(words).toMatch(/approv/);
    expect(await client.callTool({ name: 'describe_tool', arguments: { name: 'gated__secret_gated_tool' } })).toEqual({
      isError: true,
      content: [{ type: 'text', text: words }],
    });
    const called = await errorOf(client.callTool({ name: 'call_tool', arguments: { name: 'gated__secret_gated_tool' } }));
    // Not listed, so the MCP specification's unknown tool (decision 224), with the reason.
    expect(called.code).toBe(-32602);
    expect(called.message).toBe(`MCP error -32602: ${words}`);
  }, deadline(30_000));

  it('a server added to the settings sends tools/list_changed; the list stays the three, and search finds its tools', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway, ws } = await gatewayOver({ echo: echo() }, { progressive: 'always' });
    const client = await clientOf(gateway);
    expect((await search(client, 'tool number 3', 50)).map((t) => t.server)).not.toContain('many');
    const before = (await client.listTools()).tools;
    const changed = nextListChanged(client);
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo(), many: many(5) } });
    await changed;
    const { tools } = await client.listTools();
    // The three are the same: a changed catalog changes what search finds, not what tools/list says.
    expect(tools).toEqual(before);
    expect((await search(client, 'tool number 3'))[0]).toMatchObject({ name: 'many__tool_3', server: 'many' });
    expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'many__add_more', arguments: { n: 1 } } }))).toBe('now 6');
  }, deadline(30_000));
});

describe.concurrent('call_tool takes the path of a direct call', () => {
  it('progress comes back under the caller\'s token, and a cancel reaches the backend', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ every: everything, gw: backend }, { progressive: 'always' });
    const client = await clientOf(gateway);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'call_tool', arguments: { name: 'every__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } } },
      undefined,
      { onprogress: ({ progress: p }) => progress.push(p) },
    );
    expect(textOf(result)).toContain('Steps: 4');
    expect(progress).toEqual([1, 2, 3, 4]);

    await expectAbortReachesBackend(expect, gateway, (signal) => client.callTool({ name: 'call_tool', arguments: { name: 'gw__slow' } }, undefined, { signal }));
  }, deadline(60_000));

  it("a backend's form goes to the client whose call_tool it serves, and its answer back", async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ every: everything }, { progressive: 'always' });
    const client = await clientOf(gateway, { elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      asked.push(params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await client.callTool({ name: 'call_tool', arguments: { name: 'every__trigger-elicitation-request' } });
    expect(asked).toEqual(['[every] Please provide inputs for the following fields:']);
    expect(textOf(result)).toContain('- Name: Ada');
  }, deadline(30_000));
});

describe.concurrent("progressive: 'auto'", () => {
  it('switches to the three when the catalog crosses 40 tools and back when it falls under, with a tools/list_changed each time', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway, ws } = await gatewayOver({ echo: echo() }, { progressive: 'auto' });
    const client = await clientOf(gateway);
    expect(await listed(client)).toEqual(['echo__echo', 'echo__slow']);
    // Unlisted under the threshold, the three still answer (a client that missed a list_changed).
    expect((await search(client, 'return the text'))[0]!.name).toBe('echo__echo');

    let changed = nextListChanged(client);
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo(), many: many(45) } });
    await changed;
    expect(await listed(client)).toEqual(META);
    expect((await search(client, 'tool number 44'))[0]!.name).toBe('many__tool_44');

    changed = nextListChanged(client);
    ws.atomicWrite(ws.userSettings, { mcpServers: { echo: echo(), many: many(30) } });
    await changed;
    expect(await listed(client)).toHaveLength(33);
    expect(await listed(client)).toContain('many__tool_29');
  }, deadline(60_000));

  it('the token threshold alone switches too', async ({ gatewayOver, clientOf, expect }) => {
    const { gateway } = await gatewayOver({ echo: echo() }, { progressive: 'auto', progressiveThresholds: { tokens: 50 } });
    const client = await clientOf(gateway);
    expect(await listed(client)).toEqual(META);
  }, deadline(30_000));
});

describe.concurrent("progressive with names: 'original'", () => {
  it('search results, describe_tool and call_tool use the names a full listing would', async ({ gatewayOver, clientOf, expect }) => {
    // The progressive gateway and a full-listing one, started side by side.
    const [{ gateway }, { gateway: fullGateway }] = await Promise.all([
      gatewayOver({ echo: echo(), every: everything }, { names: 'original', progressive: 'always' }),
      gatewayOver({ echo: echo(), every: everything }, { names: 'original' }),
    ]);
    const client = await clientOf(gateway);
    const full = await clientOf(fullGateway);
    const fullNames = await listed(full);
    expect(fullNames).toEqual(expect.arrayContaining(['mcp__echo__echo', 'mcp__every__echo', 'slow', 'get-sum']));

    const found = await search(client, 'echo', 50);
    expect(found.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__echo__echo', 'mcp__every__echo']));
    for (const t of await search(client, 'answers after', 50)) expect(fullNames).toContain(t.name);
    expect((await search(client, 'slow'))[0]!.name).toBe('slow');
    expect((JSON.parse(textOf(await client.callTool({ name: 'describe_tool', arguments: { name: 'slow' } }))) as Tool).name).toBe('slow');
    expect(textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'mcp__echo__echo', arguments: { text: 'mine' } } }))).toBe('mine');
  }, deadline(60_000));
});
