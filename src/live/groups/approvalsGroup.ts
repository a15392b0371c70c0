import type { BehaviorSubject, Observer } from 'rxjs';
import { approvalHash } from '../../model/settings/approvalHash.js';
import type { PendingApproval } from '../../model/report/status.js';
import { GATED_SCOPES, type ApprovalRecord, type ApprovalsRead, type ApprovalsStore, type DesiredState } from '../../model/types.js';
import type { Reconciler } from '../reconciler.js';
import type { McpLiveApprovals } from '../types.js';

export interface ApprovalsGroupDeps {
  reconciler: Pick<Reconciler, 'pendingApprovals$' | 'surfaceWaiting' | 'approveSurface' | 'rejectSurface' | 'shownHash' | 'reprompt' | 'reload'>;
  /** The current promptable set (the latest of `pendingApprovals$`). */
  promptable: () => readonly PendingApproval[];
  /** The desired state of the latest inputs. */
  desired: () => DesiredState | undefined;
  /** The approvals file, the project its decisions are under, and where a write is announced. */
  store: Pick<ApprovalsStore, 'decideAll' | 'read'>;
  root: string;
  written: Observer<ApprovalsRead>;
  /** Approvals for this session only. */
  sessionApprovals: BehaviorSubject<Readonly<Record<string, string>>>;
}

/**
 * `live.approvals` (decision 52): every decision is bound to the hash of the entry that was
 * shown; an entry changed since is refused and asked about again.
 */
export function approvalsGroup({ reconciler: r, promptable, desired, store, root, written, sessionApprovals }: ApprovalsGroupDeps): McpLiveApprovals {
  /** The approval hash of a gated server as assembled now, from the latest read of every file. */
  const currentHash = (name: string): string => {
    const server = desired()?.servers[name];
    if (!server) throw new Error(`server "${name}" is not configured`);
    if (!GATED_SCOPES.has(server.scope)) {
      throw new Error(`server "${name}" comes from ${server.scope} settings, which need no approval`);
    }
    return approvalHash(server.config);
  };

  /**
   * The hash a decision about `name` is bound to: the one the user was shown, checked against
   * the file as it is now. A mismatch — the file was rewritten after it was shown — refuses the
   * decision and asks again, so an approval never applies to an entry nobody saw (decision 52).
   */
  const shownHash = (name: string, hash: string | undefined): string => {
    const now = currentHash(name);
    const shown = hash ?? r.shownHash(name);
    if (shown !== now) {
      r.reprompt();
      throw new Error(`${name} changed since it was shown; review it again`);
    }
    return shown;
  };

  /**
   * A changed surface that waits (decision 197) is approved by the hash that was shown with it —
   * or, without one, the one waiting now, which is what the dialog shows. Returns false when what
   * waits for `name` is not a surface (its entry is approved the usual way); throws when the
   * surface changed again since it was shown.
   */
  const approveSurface = (name: string, hash: string | undefined): boolean => {
    const waiting = r.surfaceWaiting(name);
    if (waiting === undefined) return false;
    if (hash !== undefined && hash !== waiting.hash) {
      const entryHash = (() => {
        try {
          return currentHash(name);
        } catch {
          return undefined;
        }
      })();
      // The entry's own hash: a decision about the entry, not about its tools.
      if (hash === entryHash) return false;
      throw new Error(`the tools of ${name} changed since they were shown; review them again`);
    }
    return r.approveSurface(name, waiting.hash);
  };

  const persist = async (decisions: readonly { server: string; record: ApprovalRecord }[]): Promise<void> => {
    if (decisions.length === 0) return;
    await store.decideAll(root, decisions);
    written.next(await store.read(root));
  };

  // The groups are objects of closures (decision 286): a member works destructured.
  return {
    pending$: r.pendingApprovals$,
    pending: promptable,

    approve: async (name, { persist: keep = true, hash } = {}) => {
      if (approveSurface(name, hash)) return;
      const bound = shownHash(name, hash);
      if (keep) await persist([{ server: name, record: { hash: bound, status: 'approved' } }]);
      else sessionApprovals.next({ ...sessionApprovals.getValue(), [name]: bound });
      r.reload('approval');
    },

    approveAll: async (all = promptable()) => {
      // Changed surfaces first, each by the hash that was shown; the entries in one write after.
      const surfacesShown = all.filter((p) => r.surfaceWaiting(p.name)?.hash === p.hash);
      const shown = all.filter((p) => !surfacesShown.includes(p));
      const changed = shown.filter((p) => {
        try {
          return currentHash(p.name) !== p.hash;
        } catch {
          return true;
        }
      });
      if (changed.length > 0) {
        r.reprompt();
        const names = changed.map((p) => p.name).join(', ');
        throw new Error(`${names} changed since ${changed.length === 1 ? 'it was' : 'they were'} shown; review again`);
      }
      for (const p of surfacesShown) approveSurface(p.name, p.hash);
      // One locked write for the whole set, however large.
      await persist(shown.map((p) => ({ server: p.name, record: { hash: p.hash, status: 'approved' as const } })));
      if (shown.length > 0) r.reload('approval');
      return all.map((p) => p.name);
    },

    reject: async (name, { hash } = {}) => {
      const surface = r.surfaceWaiting(name);
      if (surface !== undefined && (hash === undefined || hash === surface.hash)) {
        r.rejectSurface(name, surface.hash);
        return;
      }
      // Rejecting what was shown, even if the file changed since: the newer entry stays pending.
      const now = currentHash(name);
      const bound = hash ?? r.shownHash(name) ?? now;
      await persist([{ server: name, record: { hash: bound, status: 'rejected' } }]);
      const { [name]: _dropped, ...rest } = sessionApprovals.getValue();
      sessionApprovals.next(rest);
      r.reload('approval');
    },
  };
}
