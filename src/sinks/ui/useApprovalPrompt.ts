import { useState } from 'react';
import type { Observable } from 'rxjs';
import type { PendingApproval } from '../../model/status.js';
import { useThrottledObservable } from './useObservable.js';

/** What the approval dialog needs to know, derived on every render from the latest pending set. */
export interface ApprovalPrompt {
  /** The promptable set, latest emission. */
  pending: readonly PendingApproval[];
  /** Whether the dialog shows: the set is not empty and was not put off with Esc. */
  visible: boolean;
  /** Esc ("later"): hide until the set changes (a server added, removed, or its config edited). */
  later: () => void;
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
  const pending = useThrottledObservable(pending$, EMPTY);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  const key = pendingSetKey(pending);
  return {
    pending,
    visible: pending.length > 0 && key !== dismissed,
    later: () => setDismissed(key),
  };
}

const EMPTY: readonly PendingApproval[] = [];
