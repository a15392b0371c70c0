import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { descendants, MCP_TEST_SERVERS } from '../integration/processes.js';
import { CliSession, FIXTURES, resultOf, ROOT, Workspace, type Ev, type OnFinished } from './cliSession.js';
import { deadline } from '../deadlines.js';

/**
 * Headless (decisions 92, 93, 95 and 97): a server's form becomes an `elicitation` event
 * answered with `elicit` (accepting `{}` fills in the defaults, as the conformance scenario
 * sep1034 expects; nobody answering cancels it), a call reports `progress` and takes its own
 * `timeout`, and prompts and resources are one command away.
 */

afterAll(() => {
  expect(descendants().filter((p) => MCP_TEST_SERVERS.test(p.command))).toEqual([]);
});

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const textOf = (result: Ev) => (result.data as { content: { text: string }[] }).content.map((c) => c.text).join('');

/** A session with these user servers, in a workspace of its own, ended with the test. */
function start(onFinished: OnFinished, servers: Record<string, unknown>): CliSession {
  const ws = new Workspace(onFinished);
  ws.write(ws.userSettings, { mcpServers: servers });
  return CliSession.start(ws);
}

const requests = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [join(FIXTURES, 'client-requests-server.mjs')],
  ...extra,
});

describe.concurrent('mcp-live --json: elicitation', () => {
  it('an elicitation event is answered with elicit; accepting {} gets every default; decline is decline', async ({ onTestFinished }) => {
    const cli = start(onTestFinished, { req: requests() });
    cli.send({ id: 'c1', cmd: 'call', tool: 'mcp__req__defaults' });
    const asked = await cli.waitFor((e) => e.type === 'elicitation', { what: 'the form' });
    expect(asked).toMatchObject({
      server: 'req',
      message: 'Test client default value handling - please accept with defaults',
      schema: { type: 'object', properties: { name: { type: 'string', default: 'John Doe' } } },
    });
    cli.send({ cmd: 'elicit', id: asked.id as string, action: 'accept', content: {} });
    const answered = await cli.waitFor(resultOf(asked.id as string), { what: 'the elicit answered' });
    expect(answered).toMatchObject({ ok: true, data: { answered: asked.id as string, action: 'accept' } });
    const result = await cli.waitFor(resultOf('c1'), { what: 'the call answered' });
    expect(JSON.parse(textOf(result))).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });

    const mark = cli.events.length;
    cli.send({ id: 'c2', cmd: 'call', tool: 'mcp__req__defaults' });
    const again = await cli.waitFor((e) => e.type === 'elicitation', { from: mark, what: 'the second form' });
    expect(again.id).not.toBe(asked.id);
    cli.send({ cmd: 'elicit', id: again.id as string, action: 'maybe' });
    expect(await cli.waitFor(resultOf(again.id as string), { from: mark })).toMatchObject({
      ok: false,
      error: '"action" must be "accept", "decline" or "cancel" (got "maybe")',
    });
    cli.send({ cmd: 'elicit', id: again.id as string, action: 'decline' });
    expect(JSON.parse(textOf(await cli.waitFor(resultOf('c2'), { from: mark })))).toEqual({ action: 'decline' });
  }, deadline(60_000));

  it('a form nobody answers within the entry\'s timeout is cancelled; a late elicit is told so', async ({ onTestFinished }) => {
    const cli = start(onTestFinished, { req: requests({ timeout: 500, connectTimeout: 15_000 }) });
    cli.send({ id: 'c1', cmd: 'call', tool: 'mcp__req__defaults', timeout: 15_000 });
    const asked = await cli.waitFor((e) => e.type === 'elicitation', { what: 'the form' });
    const result = await cli.waitFor(resultOf('c1'), { what: 'the call answered' });
    expect(JSON.parse(textOf(result))).toEqual({ action: 'cancel' });
    const log = cli.events.find((e) => e.type === 'log' && String(e.message).includes('not answered within 500 ms: cancelled'));
    expect(log?.level).toBe('warn');
    cli.send({ cmd: 'elicit', id: asked.id as string, action: 'accept', content: {} });
    const late = await cli.waitFor(resultOf(asked.id as string));
    expect(late.ok).toBe(false);
    expect(late.error).toContain('is waiting (it was answered, timed out or cancelled by its server)');
  }, deadline(60_000));
});

describe.concurrent('mcp-live --json: calls, prompts, resources', () => {
  it('a call reports progress under its id and takes its own timeout; a quiet call past it says which knob to raise', async ({ onTestFinished }) => {
    const cli = start(onTestFinished, { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, req: requests() });
    cli.send({ id: 'p1', cmd: 'call', tool: 'mcp__every__trigger-long-running-operation', args: { duration: 1, steps: 4 }, timeout: 600 });
    const done = await cli.waitFor(resultOf('p1'), { what: 'the long call answered' });
    expect(done.ok).toBe(true);
    const progress = cli.events.filter((e) => e.type === 'progress');
    // The last notification may come after the answer (the SDK hands notifications on a tick later).
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.map((e) => ({ id: e.id as unknown, progress: e.progress as unknown, total: e.total as unknown }))).toEqual(
      [1, 2, 3, 4].slice(0, progress.length).map((n) => ({ id: 'p1', progress: n, total: 4 })),
    );
    expect(cli.events.indexOf(progress.at(-1)!)).toBeLessThan(cli.events.indexOf(done));

    cli.send({ id: 't1', cmd: 'call', tool: 'mcp__req__quiet', timeout: 100 });
    expect(await cli.waitFor(resultOf('t1'))).toMatchObject({ ok: false, error: 'timed out after 100 ms (raise the call\'s "timeout")' });
    cli.send({ id: 't2', cmd: 'call', tool: 'mcp__req__quiet', timeout: -1 });
    expect(await cli.waitFor(resultOf('t2'))).toMatchObject({ ok: false, error: '"timeout" must be a positive number of milliseconds' });
  }, deadline(60_000));

  it('get-prompt and read-resource answer with what the server gave; sampling is refused in words', async ({ onTestFinished }) => {
    const cli = start(onTestFinished, { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, req: requests() });
    cli.send({ id: 'g1', cmd: 'get-prompt', name: 'args-prompt', args: { city: 'Lyon' } });
    const prompt = await cli.waitFor(resultOf('g1'));
    expect(prompt).toMatchObject({ ok: true, data: { messages: [{ role: 'user', content: { text: "What's weather in Lyon?" } }] } });
    cli.send({ id: 'r1', cmd: 'read-resource', uri: 'demo://resource/dynamic/text/3', server: 'every' });
    expect(await cli.waitFor(resultOf('r1'))).toMatchObject({ ok: true, data: { contents: [{ uri: 'demo://resource/dynamic/text/3' }] } });
    cli.send({ id: 'r2', cmd: 'read-resource' });
    expect(await cli.waitFor(resultOf('r2'))).toMatchObject({ ok: false, error: '"read-resource" needs "uri"' });
    cli.send({ id: 's1', cmd: 'call', tool: 'mcp__req__sample' });
    expect(textOf(await cli.waitFor(resultOf('s1')))).toContain('mcp-live has no model to sample with');
    cli.send({ id: 'st', cmd: 'status' });
    const status = await cli.waitFor(resultOf('st'));
    const req = (status.data as { servers: Ev[] }).servers.find((s) => s.name === 'req');
    expect(req).toMatchObject({
      serverInfo: { name: 'client-requests-fixture', version: '2.3.4' },
      instructions: 'Call `defaults` to be asked for a form.',
    });
  }, deadline(60_000));
});
