import { Subject, type Observable, type SchedulerLike } from 'rxjs';
import type { McpLiveEvent } from '../model/report/events.js';

/** The session's events (`events$`) and its clock: what every part of the session reports through. */
export interface SessionEvents {
  readonly events$: Observable<McpLiveEvent>;
  /** The session's clock: the scheduler's when one is given (virtual time in tests). */
  readonly now: () => number;
  readonly emit: (event: McpLiveEvent) => void;
  /** A `log` event at level `warn`, stamped now. */
  readonly warn: (message: string) => void;
  readonly complete: () => void;
}

export function sessionEvents(scheduler: SchedulerLike | undefined): SessionEvents {
  const events = new Subject<McpLiveEvent>();
  const now = () => scheduler?.now() ?? Date.now();
  return {
    events$: events.asObservable(),
    now,
    emit: (event) => events.next(event),
    warn: (message) => events.next({ type: 'log', level: 'warn', message, ts: now() }),
    complete: () => events.complete(),
  };
}
