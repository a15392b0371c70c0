import { BehaviorSubject, type Observable } from 'rxjs';
import type { ElicitationAnswer, ElicitationForm, ServerRequestHandlers } from '../../model/connection.js';
import { checkAnswer, missingRequired } from '../../model/elicitationForm.js';

/** A form a server asked the user to fill in, waiting for an answer. */
export interface PendingElicitation extends ElicitationForm {
  /** The id an answer names (`elicitation.answer(id, …)`, `{"cmd":"elicit","id":…}`). */
  id: string;
  server: string;
}

/** The forms waiting for the user, and the one way to answer them. */
export interface ElicitationQueue {
  /** Every form waiting, oldest first; replays the latest list. */
  readonly pending$: Observable<readonly PendingElicitation[]>;
  /** The handler a connector calls for `elicitation/create`. */
  readonly ask: NonNullable<ServerRequestHandlers['elicit']>;
  /**
   * Answers a waiting form. Throws, and the form keeps waiting, when the answer is malformed or an
   * accept leaves a required field without a value; throws when no form with that id waits (it
   * was answered, timed out or cancelled by its server).
   */
  answer(id: string, answer: unknown): void;
  /** Cancels every waiting form (the session ends). */
  dispose(): void;
}

interface Waiting {
  request: PendingElicitation;
  resolve: (answer: ElicitationAnswer) => void;
}

/**
 * The queue behind `elicitation.pending$` and the `elicitation` event. The deadline is not kept here: the
 * connector aborts the request's `signal` when the entry's `timeout` passes or the server cancels,
 * and the form then leaves the queue (`onGone` says why).
 */
export function createElicitationQueue(hooks: {
  /** A form arrived (the session emits the `elicitation` event). */
  onAsked?: (request: PendingElicitation) => void;
  /** A form left unanswered: timed out, cancelled by its server, or its connection went away. */
  onGone?: (request: PendingElicitation, reason: unknown) => void;
} = {}): ElicitationQueue {
  const waiting = new Map<string, Waiting>();
  const pending = new BehaviorSubject<readonly PendingElicitation[]>([]);
  let counter = 0;

  const publish = (): void => pending.next([...waiting.values()].map((w) => w.request));
  const settle = (id: string, answer: ElicitationAnswer): Waiting | undefined => {
    const w = waiting.get(id);
    if (!w) return undefined;
    waiting.delete(id);
    publish();
    w.resolve(answer);
    return w;
  };

  return {
    pending$: pending.asObservable(),
    ask: (server, form, { signal }) =>
      new Promise<ElicitationAnswer>((resolve) => {
        const request: PendingElicitation = { id: `elicit-${++counter}`, server, ...form };
        if (signal.aborted) return resolve({ action: 'cancel' });
        waiting.set(request.id, { request, resolve });
        signal.addEventListener(
          'abort',
          () => {
            if (settle(request.id, { action: 'cancel' })) hooks.onGone?.(request, signal.reason);
          },
          { once: true },
        );
        publish();
        hooks.onAsked?.(request);
      }),
    answer(id, raw) {
      const w = waiting.get(id);
      if (!w) throw new Error(`no form "${id}" is waiting (it was answered, timed out or cancelled by its server)`);
      const answer = checkAnswer(raw);
      if (answer.action === 'accept') {
        const missing = missingRequired(w.request.requestedSchema, answer.content ?? {});
        if (missing.length > 0) throw new Error(`required: ${missing.join(', ')} (the form still waits)`);
      }
      settle(id, answer);
    },
    dispose() {
      for (const id of [...waiting.keys()]) settle(id, { action: 'cancel' });
      pending.complete();
    },
  };
}
