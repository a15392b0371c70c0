import type { ElicitationQueue } from '../../sinks/mcp/elicitationQueue.js';
import type { McpLiveElicitation } from '../types.js';

/** `live.elicitation`: the forms servers ask the user to fill in, from the session's queue. */
export function elicitationGroup(queue: Pick<ElicitationQueue, 'pending$' | 'answer'>): McpLiveElicitation {
  return {
    pending$: queue.pending$,
    answer: (id, answer) => queue.answer(id, answer),
  };
}
