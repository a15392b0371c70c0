import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  ProtocolErrorCode,
  inputRequired,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type InputRequest,
  type InputRequiredResult,
  type LoggingLevel,
  type LoggingMessageNotification,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import type { PendingElicitation } from '../../live/types.js';
import type { CallProgress, ElicitationAnswer } from '../../model/connection.js';
import { formForClient } from '../../model/elicitationForm.js';
import { GatewayError } from './gatewayError.js';
import { logPasses } from './logLevels.js';

/**
 * A modern (2026-07-28) client's request whose backend asks something of its client
 * (decision 389). The backend is a 2025-era server: it sends `elicitation/create` or
 * `sampling/createMessage` in the middle of the call and waits for the answer. A modern client
 * has no channel for that, so the gateway holds the backend call here, answers the client
 * `input_required` with the question and an opaque `requestState`, and on the retry that
 * carries `inputResponses` gives the backend its answer and goes on waiting — for the result or
 * the next question.
 *
 *   round 1: tools/call ──▶ backend call starts ──elicit──▶ held; answer input_required{e-1}, state
 *   round 2: tools/call{state, inputResponses{e-1}} ──▶ the backend gets e-1 ──result──▶ answer
 *
 * The held call lives in this gateway process only: its `requestState` names the process, and a
 * retry that reaches another process (or comes after {@link HELD_CALL_TTL_MS}) is refused with
 * -32602, so the client starts the call again.
 */

/** How long a held call waits for the retry that answers it; then its backend call is cancelled. */
export const HELD_CALL_TTL_MS = 10 * 60_000;
/**
 * The most calls one gateway process holds for clients' answers (decision 367): past it the one
 * waiting longest is cancelled, so clients that never come back cannot grow the gateway's memory.
 */
export const MAX_HELD_CALLS = 64;


/** One question of the backend, waiting to be sent to the client or for its answer. */
interface Ask {
  readonly key: string;
  readonly request: InputRequest;
  readonly settle: (answer: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A backend call of a modern client that outlives its request while the client answers. */
export class HeldCall {
  private readonly controller = new AbortController();
  private start?: (call: HeldCall) => Promise<unknown>;
  private outcome?: Promise<Settled>;
  private readonly unsent: Ask[] = [];
  private readonly sent = new Map<string, Ask>();
  private wake?: () => void;
  private round?: ServerContext;
  private capabilities?: ClientCapabilities;
  private asked = 0;
  private sending = Promise.resolve();
  expiry?: NodeJS.Timeout;

  constructor(
    readonly id: string,
    /** The request it serves (`tools/call clock__now`): a retry must be the same request. */
    readonly key: string,
  ) {}

  /** Aborts the backend call: the client cancelled, never came back, or the gateway closes. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The backend call, started by the first {@link step} (once its round is there to hear it). */
  begin(start: (call: HeldCall) => Promise<unknown>): void {
    this.start = start;
  }

  /** Ends the backend call; its questions count as dismissed. */
  cancel(reason: unknown): void {
    this.controller.abort(reason);
    for (const ask of this.unsent.splice(0)) ask.settle(undefined);
    this.answer({});
  }

  /** A retry's answers go to the questions of the last round; an unanswered one counts as dismissed. */
  answer(responses: Record<string, unknown>): void {
    for (const [key, ask] of this.sent) ask.settle(responses[key]);
    this.sent.clear();
  }

  /**
   * One round: waits, on `ctx`'s stream, until the backend call ends or asks something. The
   * client closing the round's stream cancels the call (the modern way to cancel a request).
   */
  async step(ctx: ServerContext): Promise<{ done: true; settled: Settled } | { done: false; requests: Record<string, InputRequest> }> {
    this.round = ctx;
    this.capabilities = envelopeOf(ctx)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
    const signal = ctx.mcpReq.signal;
    const cancel = (): void => this.cancel(signal.reason);
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    this.outcome ??= this.start!(this).then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
    try {
      while (this.unsent.length === 0) {
        const woke = new Promise<undefined>((resolve) => (this.wake = () => resolve(undefined)));
        const settled = await Promise.race([this.outcome, woke]);
        if (settled !== undefined) {
          await this.sending;
          return { done: true, settled };
        }
        // Questions the backend asks together go out in one round.
        await new Promise((resolve) => setImmediate(resolve));
      }
      const requests: Record<string, InputRequest> = {};
      for (const ask of this.unsent.splice(0)) {
        requests[ask.key] = ask.request;
        this.sent.set(ask.key, ask);
      }
      return { done: false, requests };
    } finally {
      signal.removeEventListener('abort', cancel);
      this.round = undefined;
      this.wake = undefined;
    }
  }

  canElicit(): boolean {
    return this.capabilities?.elicitation !== undefined;
  }

  canSample(): boolean {
    return this.capabilities?.sampling !== undefined;
  }

  async elicit(request: PendingElicitation, signal: AbortSignal): Promise<ElicitationAnswer> {
    const params = elicitationParams(request);
    const answer = (await this.ask('elicit', { method: 'elicitation/create', params }, signal)) as { action?: unknown; content?: unknown } | undefined;
    if (answer?.action === 'accept') {
      const content = answer.content !== null && typeof answer.content === 'object' ? (answer.content as Record<string, unknown>) : {};
      return { action: 'accept', content } as ElicitationAnswer;
    }
    return { action: answer?.action === 'decline' ? 'decline' : 'cancel' };
  }

  async sample(params: CreateMessageRequestParams, signal: AbortSignal): Promise<CreateMessageResult> {
    const answer = await this.ask('sample', { method: 'sampling/createMessage', params }, signal);
    if (answer === null || typeof answer !== 'object') {
      throw new GatewayError(ProtocolErrorCode.InternalError, 'the client retried the call without answering the sampling request');
    }
    return answer as CreateMessageResult;
  }

  /** A backend's log message goes to the round in progress, if its `logLevel` lets it through. */
  log(params: LoggingMessageNotification['params']): void {
    const level = (this.round && envelopeOf(this.round))?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined;
    if (level === undefined || !logPasses(params.level, level)) return;
    void this.notify({ method: 'notifications/message', params });
  }

  /** Progress of the backend call, under the progress token of the round in progress. */
  progress(progress: CallProgress): void {
    const token = this.round?.mcpReq._meta?.progressToken;
    if (token !== undefined) void this.notify({ method: 'notifications/progress', params: { progressToken: token, ...progress } });
  }

  /**
   * On the stream of the round in progress, in order; between rounds there is none, and it is
   * dropped. The round's answer waits for them: a client stops listening for a token once answered.
   */
  notify(notification: ServerNotification): Promise<void> {
    const round = this.round;
    if (round === undefined) return Promise.resolve();
    this.sending = this.sending.then(() => round.mcpReq.notify(notification)).catch(() => undefined);
    return this.sending;
  }

  private ask(kind: string, request: InputRequest, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const key = `${kind}-${++this.asked}`;
      const withdraw = (): void => {
        const at = this.unsent.indexOf(ask);
        if (at >= 0) this.unsent.splice(at, 1);
        this.sent.delete(key);
        reject(signal.reason as Error);
      };
      const ask: Ask = {
        key,
        request,
        settle: (answer) => {
          signal.removeEventListener('abort', withdraw);
          resolve(answer);
        },
      };
      signal.addEventListener('abort', withdraw, { once: true });
      this.unsent.push(ask);
      this.wake?.();
    });
  }
}

/** The request's `_meta` envelope keys (the SDK's type of it names none). */
function envelopeOf(ctx: ServerContext): Readonly<Record<string, unknown>> | undefined {
  return ctx.mcpReq.envelope;
}

/** A backend's form as a client is asked it: under the server's name and terminal-safe (decision 169). */
export function elicitationParams(request: PendingElicitation): ElicitRequestFormParams {
  return { mode: 'form', ...formForClient(request.server, request) } as ElicitRequestFormParams;
}

/** The held calls of one gateway process, by `requestState`. */
export class HeldCalls {
  /** Names this process in each `requestState`, so a retry that reached another one is told so. */
  private readonly process = randomBytes(6).toString('base64url');
  private readonly held = new Map<string, HeldCall>();

  constructor(
    private readonly ttlMs = HELD_CALL_TTL_MS,
    private readonly maxHeld = MAX_HELD_CALLS,
  ) {}

  /**
   * One round of a modern client's request `key`: the first starts the backend call (`start`),
   * a retry with `requestState` resumes it. Answers the result, or `input_required`.
   */
  async round(ctx: ServerContext, key: string, start: (call: HeldCall) => Promise<unknown>): Promise<unknown> {
    const state = ctx.mcpReq.requestState<unknown>();
    let call: HeldCall;
    if (state === undefined) {
      call = new HeldCall(`${this.process}.${randomBytes(18).toString('base64url')}`, key);
      call.begin(start);
    } else {
      call = this.take(typeof state === 'string' ? state : '', key);
      call.answer(ctx.mcpReq.inputResponses ?? {});
    }
    const step = await call.step(ctx);
    if (step.done) {
      if (step.settled.ok) return step.settled.value;
      throw step.settled.error;
    }
    this.park(call);
    return inputRequired({ inputRequests: step.requests, requestState: call.id }) satisfies InputRequiredResult;
  }

  /**
   * Whether `state` is one this process minted (held now or over): any other `requestState` is
   * a backend's, passed through (decision 372).
   */
  holds(state: unknown): boolean {
    return typeof state === 'string' && state.startsWith(`${this.process}.`);
  }

  /** Cancels every held call (the gateway closes). */
  close(): void {
    for (const call of this.held.values()) this.drop(call, new Error('the gateway closed'));
  }

  private park(call: HeldCall): void {
    for (const oldest of this.held.values()) {
      if (this.held.size < this.maxHeld) break;
      this.drop(oldest, new Error(`too many calls wait for their clients' answers at this gateway (at most ${this.maxHeld}); this one waited longest`));
    }
    this.held.set(call.id, call);
    call.expiry = setTimeout(() => this.drop(call, new Error('the client did not answer in time')), this.ttlMs);
    call.expiry.unref();
  }

  private take(state: string, key: string): HeldCall {
    const call = this.held.get(state);
    if (call === undefined) {
      const elsewhere = !state.startsWith(`${this.process}.`);
      throw new GatewayError(
        ProtocolErrorCode.InvalidParams,
        elsewhere
          ? 'invalid requestState: another gateway process holds this call (its answers cannot be resumed here); call again without requestState'
          : 'invalid requestState: the call it names is over (answered, cancelled, or not answered within 10 minutes); call again without requestState',
      );
    }
    if (call.key !== key) throw new GatewayError(ProtocolErrorCode.InvalidParams, `invalid requestState: it belongs to ${call.key}, not ${key}`);
    this.held.delete(state);
    clearTimeout(call.expiry);
    return call;
  }

  private drop(call: HeldCall, reason: Error): void {
    this.held.delete(call.id);
    clearTimeout(call.expiry);
    call.cancel(reason);
  }
}
