import { reasonText } from '../../model/report/messages.js';
import type { DesiredState } from '../../model/types.js';
import type { StatusView } from '../../sinks/mcp/statusBoard.js';
import type { Reconciler } from '../reconciler.js';
import type { McpLiveServers } from '../types.js';

export interface ServersGroupDeps {
  board: Pick<StatusView, 'servers$' | 'list' | 'status' | 'stderrTail'>;
  reconciler: Pick<Reconciler, 'wake' | 'reconnect'>;
  /** The desired state of the latest inputs: the entries as written. */
  desired: () => DesiredState | undefined;
  warn: (message: string) => void;
}

/** `live.servers` (decision 346): every known server, its entry, its stderr, a reconnect, why it has no tools. */
export function serversGroup({ board, reconciler: r, desired, warn }: ServersGroupDeps): McpLiveServers {
  return {
    list$: board.servers$,
    status: () => board.list(),
    config: (name) => desired()?.servers[name]?.config,
    stderrTail: (name) => board.stderrTail(name),

    // An idle server is started, not reconnected: its record is what a reconnect would list (decision 196).
    reconnect: (name) => {
      const waking = r.wake(name);
      if (waking === undefined) return r.reconnect(name);
      waking.catch((error: unknown) => warn(`${name} did not start: ${error instanceof Error ? error.message : String(error)}`));
      return true;
    },

    unavailable: (name) => {
      const s = board.status(name);
      // An idle server is available: the first call starts it (decision 196).
      if (!s || s.state === 'connected' || s.state === 'idle') return undefined;
      if (s.reason) {
        return { reason: s.reason, notAllowedBy: s.notAllowedBy, message: reasonText(s.reason, s.notAllowedBy, s.detail) };
      }
      if (s.state === 'error') return { reason: 'error', error: s.error, message: s.error ?? 'error' };
      if (s.state === 'needs_auth') return { reason: 'needs_auth', message: s.error ?? 'needs authentication' };
      return { reason: 'connecting', message: s.state };
    },
  };
}
