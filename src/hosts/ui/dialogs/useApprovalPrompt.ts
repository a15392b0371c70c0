import { useMemo, useState } from 'react';
import type { Observable } from 'rxjs';
import type { PendingApproval } from '../../../model/report/status.js';
import { useThrottledObservable } from '../kit/useObservable.js';

/** What the approval dialog needs to know, derived on every render from the latest pending set. */
export interface ApprovalPrompt {
  /** The promptable set, latest emission. */
  pending: readonly PendingApproval[];
  /** Whether the dialog shows: the set is not empty and was not put off with Esc. */
  visible: boolean;
  /** Esc ("later"): hide until the set changes (a server added, removed, or its config edited). */
  later: () => void;
  /**
   * Brings a put-off dialog back (decision 330): `name` given and pending, the dialog asks about
   * that server first — the same dialog, the same decision bound to the hash it shows.
   */
  recall: (name?: string) => void;
}

/** Identity of a pending set: names and approval hashes, so an edited config asks again. */
export function pendingSetKey(pending: readonly PendingApproval[]): string {
  return pending
    .map((p) => `${p.name}@${p.hash}`)
    .sort()
    .join('\n');
}

/**
 * Follows `approvals.pending$` for the whole session, not only at mount: a server that becomes
 * pending mid-session (a `.mcp.json` edited, a repository pulled) brings the dialog up, a decided
 * or removed one takes it away. Visibility is computed during render, never stored.
 */
export function useApprovalPrompt(pending$: Observable<readonly PendingApproval[]>): ApprovalPrompt {
  const latest = useThrottledObservable(pending$, EMPTY);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  // The server asked for by name (`a` in its detail view); once decided it leaves the set, and the order is the set's again.
  const [first, setFirst] = useState<string | undefined>(undefined);
  const key = pendingSetKey(latest);
  const pending = useMemo(() => firstNamed(latest, first), [latest, first]);
  return {
    pending,
    visible: pending.length > 0 && key !== dismissed,
    later: () => setDismissed(key),
    recall: (name) => {
      setFirst(name);
      setDismissed(undefined);
    },
  };
}

/** `pending` with the server `name` first, when it is there; else `pending` itself. */
function firstNamed(pending: readonly PendingApproval[], name: string | undefined): readonly PendingApproval[] {
  const index = name === undefined ? -1 : pending.findIndex((p) => p.name === name);
  return index <= 0 ? pending : [pending[index]!, ...pending.slice(0, index), ...pending.slice(index + 1)];
}

const EMPTY: readonly PendingApproval[] = [];
