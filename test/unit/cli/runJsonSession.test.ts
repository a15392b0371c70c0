import { PassThrough } from 'node:stream';
import { BehaviorSubject, Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runJsonSession } from '../../../src/cli/runJsonSession.js';
import type { McpLive } from '../../../src/live/types.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { untilAborted } from '../../../src/model/untilAborted.js';

/** A promise with its resolve at hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * runJsonSession over a stub session whose first pass, plan and calls the test ends by hand:
 * the scheduling of `--json` commands (decisions 64 and 65) without processes.
 */
function harness() {
  const events = new Subject<McpLiveEvent>();
  const started = deferred();
  const planned = deferred();
  const approval = deferred();
  const calls: string[] = [];
  const live = {
    events$: events.asObservable(),
    start: () => started.promise,
    planned: () => planned.promise,
    dispose: () => Promise.resolve(),
    servers: { status: () => [{ name: 'memory', state: 'connected' }] },
    approvals: {
      approve: (name: string) => {
        calls.push(`approve ${name}`);
        return approval.promise;
      },
    },
    tools: {
      list$: new BehaviorSubject([{ name: 'mcp__memory__echo', server: 'memory', tool: 'echo', trust: false, description: 'Echoes', inputSchema: { type: 'object' } }]),
      call: (tool: string, _args: unknown, options: { signal?: AbortSignal } = {}) => {
        calls.push(`call ${tool}`);
        // `slow` never answers: only its signal ends the wait.
        return tool === 'slow' ? untilAborted(new Promise<never>(() => undefined), options.signal) : Promise.resolve({ tool });
      },
    },
  } as unknown as McpLive;
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Record<string, unknown>[] = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) out.push(JSON.parse(line) as Record<string, unknown>);
  });
  const session = runJsonSession(live, { stdin, stdout });
  const send = (cmd: Record<string, unknown>) => stdin.write(`${JSON.stringify(cmd)}\n`);
  const results = () => out.filter((e) => e.type === 'result').map(({ ts: _ts, type: _type, ...rest }) => rest);
  return { events, started, planned, approval, calls, send, results, session, stdin };
}

let stdin: PassThrough | undefined;
afterEach(() => {
  stdin?.end();
  stdin = undefined;
});

describe('runJsonSession: commands never lie and never stall', () => {
  it('tools answers once the first pass has planned; with "wait": "ready" once it has ended (decisions 251 and 325)', async () => {
    const h = harness();
    stdin = h.stdin;
    const listed = { tools: [{ name: 'mcp__memory__echo', server: 'memory', tool: 'echo', description: 'Echoes' }] };
    h.send({ id: 'r', cmd: 'tools', wait: 'ready' });
    h.send({ id: 't', cmd: 'tools' });
    await new Promise((r) => setTimeout(r, 50));
    expect(h.results()).toEqual([]);
    h.planned.resolve();
    await vi.waitFor(() => expect(h.results()).toEqual([{ id: 't', ok: true, data: listed }]));
    h.started.resolve();
    await vi.waitFor(() => expect(h.results()).toEqual([{ id: 't', ok: true, data: listed }, { id: 'r', ok: true, data: listed }]));
    h.send({ id: 'q', cmd: 'quit' });
    await h.session;
  });

  it('status answers once the first pass has planned, not when it ends; decisions wait for the plan, a call for nothing here', async () => {
    const h = harness();
    stdin = h.stdin;
    h.send({ id: 's', cmd: 'status' });
    h.send({ id: 'a', cmd: 'approve', server: 'x' });
    h.send({ id: 'c', cmd: 'call', tool: 'mcp__memory__echo' });
    await vi.waitFor(() => expect(h.results()).toEqual([{ id: 'c', ok: true, data: { tool: 'mcp__memory__echo' } }]));
    expect(h.calls).toEqual(['call mcp__memory__echo']);

    h.planned.resolve();
    await vi.waitFor(() => expect(h.results().map((r) => r.id)).toEqual(['c', 's']));
    expect(h.results()[1]).toEqual({ id: 's', ok: true, data: { servers: [{ name: 'memory', state: 'connected' }] } });
    await vi.waitFor(() => expect(h.calls).toEqual(['call mcp__memory__echo', 'approve x']));
    h.approval.resolve();
    await vi.waitFor(() => expect(h.results().map((r) => r.id)).toEqual(['c', 's', 'a']));
    h.send({ id: 'q', cmd: 'quit' });
    expect(await h.session).toBe(0);
  });

  it('status with "wait": "ready" waits for the first pass to end; a bad "wait" is answered at once', async () => {
    const h = harness();
    stdin = h.stdin;
    h.send({ id: 'bad', cmd: 'status', wait: 'connected' });
    await vi.waitFor(() =>
      expect(h.results()).toEqual([
        { id: 'bad', ok: false, error: '"wait" must be "ready" (answer once the first pass has ended) or left out (answer now)' },
      ]),
    );
    h.send({ id: 'r', cmd: 'status', wait: 'ready' });
    h.planned.resolve();
    await new Promise((r) => setTimeout(r, 50));
    expect(h.results().map((r) => r.id)).toEqual(['bad']);
    h.started.resolve();
    await vi.waitFor(() => expect(h.results().map((r) => r.id)).toEqual(['bad', 'r']));
    h.send({ id: 'q', cmd: 'quit' });
    expect(await h.session).toBe(0);
  });

  it('a slow call holds back neither status nor quit; quit cancels it, with its id, before its own answer', async () => {
    const h = harness();
    stdin = h.stdin;
    h.started.resolve();
    h.planned.resolve();
    h.send({ id: 1, cmd: 'call', tool: 'slow' });
    h.send({ id: 2, cmd: 'status' });
    await vi.waitFor(() => expect(h.results().map((r) => r.id)).toEqual([2]));
    h.send({ id: 3, cmd: 'quit' });
    expect(await h.session).toBe(0);
    expect(h.results()).toEqual([
      { id: 2, ok: true, data: { servers: [{ name: 'memory', state: 'connected' }] } },
      { id: 1, ok: false, error: 'cancelled: quitting' },
      { id: 3, ok: true, data: { quitting: true } },
    ]);
  });

  it('quit before the first pass: what waits is cancelled, a decision in flight ends first, nothing after quit runs', async () => {
    const h = harness();
    stdin = h.stdin;
    h.planned.resolve();
    h.send({ id: 'a', cmd: 'approve', server: 'x' });
    await vi.waitFor(() => expect(h.calls).toEqual(['approve x']));
    h.send({ id: 's', cmd: 'status', wait: 'ready' });
    h.send({ id: 'q', cmd: 'quit' });
    h.send({ id: 'late', cmd: 'call', tool: 'mcp__memory__echo' });
    await vi.waitFor(() => expect(h.results().map((r) => r.id)).toEqual(['s', 'late']));
    // The approval is written or not: its real answer, not "cancelled", before quit's.
    h.approval.resolve();
    expect(await h.session).toBe(0);
    expect(h.results()).toEqual([
      { id: 's', ok: false, error: 'cancelled: quitting' },
      { id: 'late', ok: false, error: 'cancelled: quitting' },
      { id: 'a', ok: true, data: { approved: 'x', persist: true } },
      { id: 'q', ok: true, data: { quitting: true } },
    ]);
    expect(h.calls).toEqual(['approve x']);
  });
});
