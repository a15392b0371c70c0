import { Observable, from, throwError, timeout } from 'rxjs';
import type { AttemptEnded } from '../../model/connection.js';

/**
 * One connection attempt as a cold observable, for every kind of server (MCP servers in
 * connector.ts, language servers in lsp/lspConnector.ts):
 *
 *   subscribe:                 --(open)--C|
 *                              --(open fails)--(abort)--#           # = explain(error)
 *                              --(deadlineMs passes)--(abort)--#    # = timedOut()
 *   unsubscribe before C:      abort (its end handed to `ended`)
 *
 * Whatever the attempt started is ended before its error is delivered, so a supervisor that
 * retries never overlaps two processes of one server. After the emission the connection
 * belongs to the subscriber.
 */
export interface ConnectionAttempt<C> {
  /** The whole attempt's deadline. */
  readonly deadlineMs: number;
  open(): Promise<C>;
  /** The error when the deadline passes (naming the entry's field to raise). */
  timedOut(): Error;
  /** The error a failure is reported with: why the server died if it did, else what went wrong. */
  explain(error: unknown): Error;
  /** Ends whatever the attempt started; resolves once it is gone. */
  abort(): Promise<void>;
}

/**
 * Subscribing calls `begin` (an error it throws is the observable's) and runs the attempt;
 * `ended` hears of an abort an unsubscribe started, with a promise of its end.
 */
export function connectionAttempt<C>(begin: () => ConnectionAttempt<C>, ended?: AttemptEnded): Observable<C> {
  return new Observable<C>((subscriber) => {
    let attempt: ConnectionAttempt<C>;
    try {
      attempt = begin();
    } catch (error) {
      subscriber.error(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    let settled = false;
    const opening = from(attempt.open())
      .pipe(timeout({ first: attempt.deadlineMs, with: () => throwError(() => attempt.timedOut()) }))
      .subscribe({
        next: (connection) => {
          settled = true;
          subscriber.next(connection);
          subscriber.complete();
        },
        error: (error: unknown) => {
          settled = true;
          const failure = attempt.explain(error);
          const report = (): void => subscriber.error(failure);
          void attempt.abort().then(report, report);
        },
      });
    return () => {
      opening.unsubscribe();
      if (settled) return;
      const gone = attempt.abort().then(
        () => undefined,
        () => undefined,
      );
      ended?.(gone);
    };
  });
}
