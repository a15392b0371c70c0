import { distinctUntilChanged, type Observable } from 'rxjs';
import type { ApprovalDecisions, ApprovalsRead, ApprovalsStore } from '../model/types.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchFile } from './watchFile.js';
import type { WatchDeps } from './watchDirectory.js';

export interface ApprovalsDeps extends WatchDeps {
  /** The store of `file` (`createApprovalsStore(file)`): what a change of the file is read through. */
  store: ApprovalsStore;
}

function decisionsEqual(a: ApprovalDecisions, b: ApprovalDecisions): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every(
    (name) => Object.hasOwn(b, name) && a[name]!.hash === b[name]!.hash && a[name]!.status === b[name]!.status,
  );
}

/**
 * The stored decisions of one project root, live (docs/contract.md, "Approvals"): a decision
 * written by another process (`mcp-live approvals approve NAME`, another session) takes effect
 * here.
 *
 * ```
 * file     {}-------{x:approved}----{x:approved}(rewritten)----{corrupt-----
 * output   {}-------{x:approved}-----------------------------{}+warning----
 * ```
 *
 * Emits when the decisions or the warning change; a corrupt file reads as no decisions with a
 * warning (never as an approval). Cold.
 */
export function fromApprovals(file: string, projectRoot: string, deps: ApprovalsDeps): Observable<ApprovalsRead> {
  const { store } = deps;
  return watchFile(file, deps).pipe(
    rereadOnTick(() => store.read(projectRoot), deps.onActivity),
    distinctUntilChanged((a, b) => a.warning === b.warning && decisionsEqual(a.decisions, b.decisions)),
  );
}
