import type { ApprovalDecisions, ApprovalsStore } from '../../model/types.js';
import type { ApprovalMarks } from '../mcp/surfacePins.js';

/**
 * The pin markers of a session's approvals (decision 309): a persisted approval carries the
 * digest of its recorded pin (`pin`) in the approvals file; a session approval (and every
 * approval until its file is written) keeps it in memory, which is the newer where both are.
 */
export function pinMarks(
  approvals: () => ApprovalDecisions | undefined,
  store: ApprovalsStore,
  root: string,
  onWarning: (message: string) => void,
  onWritten: () => Promise<void>,
): ApprovalMarks & { flush(): Promise<void> } {
  const marked = new Map<string, string>();
  // The writes under way, by `key`: one at a time for each, and a session's dispose() waits for
  // them (flush), so none lands after it.
  const writing = new Map<string, Promise<void>>();
  const key = (name: string, hash: string): string => `${name}\0${hash}`;
  const persisted = (name: string, hash: string) => {
    const decisions = approvals();
    const record = decisions !== undefined && Object.hasOwn(decisions, name) ? decisions[name] : undefined;
    return record?.hash === hash && record.status === 'approved' ? record : undefined;
  };
  return {
    approvedPin: (name, hash) => marked.get(key(name, hash)) ?? persisted(name, hash)?.pin,
    markPinned(name, hash, pin) {
      const at = key(name, hash);
      marked.set(at, pin);
      // Written whenever the approval on disk lacks it — also an approval given again after its
      // file was lost or corrupt, whose marker this session already knew.
      const record = persisted(name, hash);
      if (record === undefined || record.pin === pin || store.markPinned === undefined || writing.has(at)) return;
      const write = store
        .markPinned(root, name, hash, pin)
        .then(onWritten)
        .catch((error: unknown) => {
          onWarning(`${store.file}: the approval of "${name}" could not record its pin (${error instanceof Error ? error.message : String(error)}); a later session goes by the pin recorded there before, if any`);
        })
        .finally(() => writing.delete(at));
      writing.set(at, write);
    },
    /** Settles when every marker write started so far has ended. Never rejects. */
    flush: async () => {
      await Promise.all(writing.values());
    },
  };
}
