import type { ApprovalDecisions, ApprovalsStore } from '../../model/types.js';
import type { ApprovalMarks } from '../mcp/surfacePins.js';

/**
 * The pin markers of a session's approvals (decision 309): a persisted approval carries
 * `pinned: true` in the approvals file once its server's surface was pinned; a session approval
 * (and every approval until its file is written) keeps the marker in memory.
 */
export function pinMarks(
  approvals: () => ApprovalDecisions | undefined,
  store: ApprovalsStore,
  root: string,
  onWarning: (message: string) => void,
  onWritten: () => Promise<void>,
): ApprovalMarks {
  const marked = new Set<string>();
  const key = (name: string, hash: string): string => `${name}\0${hash}`;
  const persisted = (name: string, hash: string) => {
    const decisions = approvals();
    const record = decisions !== undefined && Object.hasOwn(decisions, name) ? decisions[name] : undefined;
    return record?.hash === hash && record.status === 'approved' ? record : undefined;
  };
  return {
    pinned: (name, hash) => marked.has(key(name, hash)) || persisted(name, hash)?.pinned === true,
    markPinned(name, hash) {
      marked.add(key(name, hash));
      const record = persisted(name, hash);
      if (record === undefined || record.pinned === true || store.markPinned === undefined) return;
      store.markPinned(root, name, hash).then(onWritten).catch((error: unknown) => {
        onWarning(`${store.file}: the approval of "${name}" could not be marked as pinned (${error instanceof Error ? error.message : String(error)}); a later loss of its pin would count as a first sight`);
      });
    },
  };
}
