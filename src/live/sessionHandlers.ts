import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerRequestHandlers } from '../model/connection.js';
import { createElicitationQueue, type ElicitationQueue } from '../sinks/mcp/elicitationQueue.js';
import type { SessionEvents } from './sessionEvents.js';
import type { McpLiveOptions } from './types.js';

/** How the session answers its servers' own requests, and the queue of forms waiting for the user. */
export interface SessionHandlers {
  handlers: ServerRequestHandlers;
  /** The forms waiting for `elicitation.answer` (empty with an `onElicitation` option). */
  elicitations: ElicitationQueue;
}

/**
 * The answers to servers' requests: forms (the host's `onElicitation`, else the queue behind
 * `elicitation.pending$`), the workspace as the one root, and the host's model, log and
 * resource-update hooks where it gave them.
 */
export function sessionHandlers(
  cwd: string,
  events: Pick<SessionEvents, 'emit' | 'now'>,
  options: Pick<McpLiveOptions, 'onElicitation' | 'onSampling' | 'onServerLog' | 'onResourceUpdated'>,
): SessionHandlers {
  const { emit, now } = events;
  const elicitations = createElicitationQueue({
    onAsked: (request) => emit({ type: 'elicitation', id: request.id, server: request.server, message: request.message, schema: request.requestedSchema, ts: now() }),
    onGone: (request, reason) =>
      emit({
        type: 'log',
        level: 'warn',
        message: `form ${request.id} of "${request.server}" ${reason instanceof Error ? reason.message : 'was cancelled by its server'}`,
        ts: now(),
      }),
  });
  let asked = 0;
  const { onElicitation, onSampling, onServerLog, onResourceUpdated } = options;
  const handlers: ServerRequestHandlers = {
    elicit: onElicitation
      ? (server, form, { signal }) => onElicitation({ id: `elicit-${++asked}`, server, ...form }, { signal })
      : elicitations.ask,
    // The workspace is the one root: a server that works on files works on these.
    roots: () => [{ uri: pathToFileURL(cwd).href, name: basename(cwd) }],
    ...(onSampling ? { sample: onSampling } : {}),
    ...(onServerLog ? { log: onServerLog } : {}),
    ...(onResourceUpdated ? { resourceUpdated: onResourceUpdated } : {}),
  };
  return { handlers, elicitations };
}
