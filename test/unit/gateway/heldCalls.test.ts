import type { InputRequiredResult, ServerContext, ServerNotification } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { HeldCalls, type HeldCall } from '../../../src/hosts/gateway/heldCalls.js';
import type { PendingElicitation } from '../../../src/live/types.js';

/** One round's request context, as the SDK hands it to a handler of a 2026-07-28 request. */
function round(
  options: { state?: string; responses?: Record<string, unknown>; token?: string; logLevel?: string; capabilities?: object } = {},
): { ctx: ServerContext; sent: ServerNotification[]; cancel: () => void } {
  const sent: ServerNotification[] = [];
  const controller = new AbortController();
  const envelope: Record<string, unknown> = { 'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? { elicitation: { form: {} }, sampling: {} } };
  if (options.logLevel !== undefined) envelope['io.modelcontextprotocol/logLevel'] = options.logLevel;
  const ctx = {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      _meta: options.token === undefined ? {} : { progressToken: options.token },
      envelope,
      inputResponses: options.responses,
      requestState: () => options.state,
      signal: controller.signal,
      notify: (n: ServerNotification) => {
        sent.push(n);
        return Promise.resolve();
      },
    },
  } as unknown as ServerContext;
  return { ctx, sent, cancel: () => controller.abort(new Error('client closed the stream')) };
}

const FORM: PendingElicitation = {
  server: 'e',
  message: 'Go ahead?',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
} as unknown as PendingElicitation;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const asInputRequired = (value: unknown) => value as InputRequiredResult & { inputRequests: Record<string, { method: string; params: { message?: string } }> };

describe('HeldCalls: a backend’s questions to a modern client as input_required (decision 389)', () => {
  it('a call that asks nothing answers in one round and holds nothing', async () => {
    const held = new HeldCalls();
    expect(await held.round(round().ctx, 'tools/call a', () => Promise.resolve('done'))).toBe('done');
    // Nothing was held: a retry naming any state is refused.
    await expect(held.round(round({ state: 'x' }).ctx, 'tools/call a', () => Promise.resolve('again'))).rejects.toMatchObject({ code: -32602 });
  });

  it('a form asked mid-call goes out as input_required; the retry’s answer reaches the backend, whose result ends the call', async () => {
    const held = new HeldCalls();
    let answer: unknown;
    const start = async (call: HeldCall) => {
      answer = await call.elicit(FORM, new AbortController().signal);
      return 'finished';
    };
    const first = asInputRequired(await held.round(round().ctx, 'tools/call e__confirm', start));
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['elicit-1']);
    expect(first.inputRequests['elicit-1']!.method).toBe('elicitation/create');
    expect(first.inputRequests['elicit-1']!.params.message).toContain('Go ahead?');
    expect(first.requestState).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{24}$/);

    const second = await held.round(
      round({ state: first.requestState, responses: { 'elicit-1': { action: 'accept', content: { ok: true } } } }).ctx,
      'tools/call e__confirm',
      () => Promise.reject(new Error('a retry never starts the call again')),
    );
    expect(second).toBe('finished');
    expect(answer).toEqual({ action: 'accept', content: { ok: true } });
    // Answered once: the same state again is over.
    await expect(held.round(round({ state: first.requestState }).ctx, 'tools/call e__confirm', () => Promise.resolve(''))).rejects.toThrow(/over/);
  });

  it('questions asked one after another take a round each; one left unanswered counts as cancelled, sampling unanswered fails', async () => {
    const held = new HeldCalls();
    const answers: unknown[] = [];
    const start = async (call: HeldCall) => {
      answers.push(await call.elicit(FORM, new AbortController().signal));
      answers.push(await call.sample({ messages: [], maxTokens: 1 }, new AbortController().signal).catch((e: Error) => e.message));
      return 'both asked';
    };
    const one = asInputRequired(await held.round(round().ctx, 'k', start));
    const two = asInputRequired(await held.round(round({ state: one.requestState, responses: {} }).ctx, 'k', start));
    expect(Object.keys(two.inputRequests)).toEqual(['sample-2']);
    expect(two.inputRequests['sample-2']!.method).toBe('sampling/createMessage');
    expect(await held.round(round({ state: two.requestState, responses: {} }).ctx, 'k', start)).toBe('both asked');
    expect(answers).toEqual([{ action: 'cancel' }, 'the client retried the call without answering the sampling request']);
  });

  it('a retry for another request, or with state another process minted, is refused with -32602 in words', async () => {
    const held = new HeldCalls();
    const first = asInputRequired(await held.round(round().ctx, 'tools/call a', (call) => call.elicit(FORM, new AbortController().signal)));
    await expect(held.round(round({ state: first.requestState }).ctx, 'tools/call b', () => Promise.resolve(''))).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('belongs to tools/call a') as unknown,
    });
    await expect(held.round(round({ state: 'someoneElse.abc' }).ctx, 'tools/call a', () => Promise.resolve(''))).rejects.toThrow(/another gateway process/);
  });

  it('closing the round’s stream cancels the backend call', async () => {
    const held = new HeldCalls();
    const { ctx, cancel } = round();
    let backendSignal: AbortSignal | undefined;
    const never = deferred();
    const pending = held.round(ctx, 'k', async (call) => {
      backendSignal = call.signal;
      await never.promise;
    });
    await Promise.resolve();
    cancel();
    expect(backendSignal?.aborted).toBe(true);
    never.resolve();
    await pending;
  });

  it('a held call nobody retries is cancelled after the TTL, and its retry refused', async () => {
    const held = new HeldCalls(20);
    let backendSignal: AbortSignal | undefined;
    const first = asInputRequired(
      await held.round(round().ctx, 'k', (call) => {
        backendSignal = call.signal;
        return call.elicit(FORM, new AbortController().signal);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(backendSignal?.aborted).toBe(true);
    await expect(held.round(round({ state: first.requestState }).ctx, 'k', () => Promise.resolve(''))).rejects.toMatchObject({ code: -32602 });
  });

  it('progress goes out under the round’s own token before its answer; logs only at the round’s logLevel', async () => {
    const held = new HeldCalls();
    const { ctx, sent } = round({ token: 'tok-1', logLevel: 'warning' });
    const result = await held.round(ctx, 'k', (call) => {
      call.progress({ progress: 1, total: 2 });
      call.log({ level: 'info', data: 'quiet' });
      call.log({ level: 'error', data: 'loud' });
      return Promise.resolve('ok');
    });
    expect(result).toBe('ok');
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 1, total: 2 } },
      { method: 'notifications/message', params: { level: 'error', data: 'loud' } },
    ]);
    const silent = round({ token: 'tok-2' });
    await held.round(silent.ctx, 'k', (call) => {
      call.log({ level: 'error', data: 'no logLevel, no logs' });
      return Promise.resolve('ok');
    });
    expect(silent.sent).toEqual([]);
  });

  it('what the client can answer is what the round declared', async () => {
    const held = new HeldCalls();
    const seen: boolean[] = [];
    await held.round(round({ capabilities: {} }).ctx, 'k', (call) => {
      seen.push(call.canElicit(), call.canSample());
      return Promise.resolve('');
    });
    await held.round(round({ capabilities: { elicitation: {} } }).ctx, 'k', (call) => {
      seen.push(call.canElicit(), call.canSample());
      return Promise.resolve('');
    });
    expect(seen).toEqual([false, false, true, false]);
  });

  it('at most maxHeld calls are held: one more cancels the one waiting longest (decision 367)', async () => {
    const held = new HeldCalls(60_000, 2);
    const signals: AbortSignal[] = [];
    const states: string[] = [];
    for (const key of ['a', 'b', 'c']) {
      const asked = asInputRequired(
        await held.round(round().ctx, key, (call) => {
          signals.push(call.signal);
          return call.elicit(FORM, new AbortController().signal);
        }),
      );
      states.push(asked.requestState!);
    }
    expect(signals.map((s) => s.aborted)).toEqual([true, false, false]);
    expect(String(signals[0]!.reason)).toContain('at most 2');
    await expect(held.round(round({ state: states[0] }).ctx, 'a', () => Promise.resolve(''))).rejects.toMatchObject({ code: -32602 });
    held.close();
  });

  it('close() cancels every held call', async () => {
    const held = new HeldCalls();
    let backendSignal: AbortSignal | undefined;
    await held.round(round().ctx, 'k', (call) => {
      backendSignal = call.signal;
      return call.elicit(FORM, new AbortController().signal);
    });
    held.close();
    expect(backendSignal?.aborted).toBe(true);
  });
});
