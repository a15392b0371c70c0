import type { ApprovalChange, ApprovalRecord, ApprovalsRead, ApprovalsStore } from '../../model/types.js';
import { getOwn, isPlainObject, setOwn } from '../../model/ownProperties.js';
import { describeReadError } from '../../files/readJsonc.js';
import { errorCode, ownedJsonFile, type OwnedJsonFileOptions } from './ownedJsonFile.js';
import type { PathKeys } from '../../model/pathKeys.js';
import { systemPathKeys } from '../../platform/systemPathKeys.js';

/** Lock, owner and write options: those of every file mcp-live owns ({@link OwnedJsonFileOptions}). */
export type ApprovalsStoreOptions = OwnedJsonFileOptions;

/**
 * The project root approvals are keyed by (docs/contract.md, "Approvals"): the realpath of the
 * workspace, so the same folder reached through a symlink shares its decisions. Used for reading
 * and writing alike. Where the file system ignores case (macOS, Windows) it is in the folder's real
 * case, with a capital drive letter (decision 283), so `cd /users/x/proj` finds the decisions made
 * in `/Users/x/Proj`; on Linux it is `realpathSync(cwd)` as ever, so every stored key still
 * matches.
 */
export function projectRoot(cwd: string, keys: PathKeys = systemPathKeys): string {
  return keys.projectRoot(cwd);
}

interface Decision extends ApprovalChange {
  root: string;
}

/** Decisions that are written together, never split across writes. */
interface QueuedDecisions {
  decisions: readonly Decision[];
  done: () => void;
  fail: (error: unknown) => void;
}

const isPinDigest = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

/**
 * A well-formed record. Its marker is the digest of the recorded pin (decision 309); a record with
 * `pinned` (the marker of a version that never shipped) or a marker that is not a digest is
 * malformed: counted as undecided, so its server is asked again rather than trusted.
 */
function isRecord(value: unknown): value is ApprovalRecord {
  if (!isPlainObject(value)) return false;
  const hash = getOwn(value, 'hash');
  const status = getOwn(value, 'status');
  const pin = getOwn(value, 'pin');
  return (
    typeof hash === 'string' &&
    hash !== '' &&
    (status === 'approved' || status === 'rejected') &&
    (pin === undefined || isPinDigest(pin)) &&
    getOwn(value, 'pinned') === undefined
  );
}

/** The members of a record that are stored: `pin` only on an approval that has it (decision 309). */
function recordOf(record: ApprovalRecord): ApprovalRecord {
  return record.pin !== undefined && record.status === 'approved' ? { hash: record.hash, status: record.status, pin: record.pin } : { hash: record.hash, status: record.status };
}

/**
 * The approvals file (docs/contract.md, "Approvals"):
 * `{ "<project root>": { "<server>": { hash, status } } }`.
 *
 * Reading never turns anything doubtful into an approval: unreadable or corrupt content, a
 * project entry that is not an object, a malformed record — each reads as "no decision" for
 * what it covers, with a `warning`. Only a regular file of at most 4 MiB that the user owns is
 * read; a symlink is followed (a dotfile manager's link is the user's own), but a file of
 * another owner is not trusted, since whoever owns it could plant approvals. Writing refuses a
 * symlink, a special file or another user's file ({@link assertWritableTarget}): nothing is
 * written, and `decide` rejects. Writing takes a lock (`<file>.lock`, so two sessions never lose
 * each other's decisions), reads the current content, changes the records decided since the
 * last write, and replaces the file atomically with mode 0600. Content it would have to drop (a
 * corrupt file, a project entry that is not an object) is first copied, byte for byte, to
 * `<file>.corrupt-<timestamp>.bak`. Malformed records of other servers are left as they are.
 * Server names and project roots such as `__proto__` are plain keys.
 */
export function createApprovalsStore(file: string, options: ApprovalsStoreOptions = {}): ApprovalsStore {
  const store = ownedJsonFile(file, options);

  async function read(root: string): Promise<ApprovalsRead> {
    const decisions = Object.create(null) as Record<string, ApprovalRecord>;
    let parsed;
    try {
      parsed = await store.read();
    } catch (error) {
      const reason = describeReadError(errorCode(error), error);
      return { decisions, warning: `${file}: ${reason}; every gated server counts as undecided` };
    }
    if (!parsed.ok) {
      return { decisions, warning: `${file}: ${parsed.problem}; every gated server counts as undecided` };
    }
    const entry = getOwn(parsed.root, root);
    if (entry === undefined) return { decisions };
    if (!isPlainObject(entry)) {
      return { decisions, warning: `${file}: the entry for ${root} is not an object; its servers count as undecided` };
    }
    const malformed: string[] = [];
    for (const server of Object.keys(entry)) {
      const record = getOwn(entry, server);
      if (isRecord(record)) setOwn(decisions, server, recordOf(record));
      else malformed.push(server);
    }
    if (malformed.length === 0) return { decisions };
    const names = malformed.map((name) => JSON.stringify(name)).join(', ');
    return { decisions, warning: `${file}: ignored malformed decisions for ${names} in ${root}; they count as undecided` };
  }

  /**
   * One locked read-modify-write for every decision queued meanwhile (group commit): "approve
   * all pending" is one write, and decisions of one store never contend with each other.
   */
  function commit(batch: readonly Decision[]): Promise<void> {
    return store.update(async (content, backUp) => {
      let changed = false;
      for (const { root, server, record } of batch) {
        let entry = getOwn(content, root);
        if (entry !== undefined && !isPlainObject(entry)) {
          await backUp();
          entry = undefined;
        }
        const decisions: Record<string, unknown> = isPlainObject(entry) ? entry : {};
        if (record === undefined) {
          if (!Object.hasOwn(decisions, server)) continue;
          delete decisions[server];
        } else {
          // The same approval again keeps its marker: its server's surface is still pinned (decision 309).
          const before = getOwn(decisions, server);
          const kept = isRecord(before) && before.pin !== undefined && before.hash === record.hash && before.status === record.status ? before.pin : undefined;
          setOwn(decisions, server, recordOf(kept !== undefined ? { ...record, pin: kept } : record));
        }
        if (Object.keys(decisions).length === 0) delete content[root];
        else setOwn(content, root, decisions);
        changed = true;
      }
      return changed;
    });
  }

  let queued: QueuedDecisions[] = [];
  let draining = false;

  async function drain(): Promise<void> {
    draining = true;
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      try {
        await commit(batch.flatMap((group) => group.decisions));
        for (const group of batch) group.done();
      } catch (error) {
        for (const group of batch) group.fail(error);
      }
    }
    draining = false;
  }

  /** Queues `decisions` as one group: they are in the same write, whatever else joins it. */
  function enqueue(decisions: readonly Decision[]): Promise<void> {
    if (decisions.length === 0) return Promise.resolve();
    return new Promise<void>((done, fail) => {
      queued.push({ decisions, done, fail });
      if (!draining) void drain();
    });
  }

  function decide(root: string, server: string, record: ApprovalRecord | undefined): Promise<void> {
    return enqueue([{ root, server, record }]);
  }

  function decideAll(root: string, decisions: readonly ApprovalChange[]): Promise<void> {
    return enqueue(decisions.map(({ server, record }) => ({ root, server, record })));
  }

  /** Sets the pin digest `pin` on the approval of `server` for `hash`, if that is still the decision on disk. */
  function markPinned(root: string, server: string, hash: string, pin: string): Promise<void> {
    if (!isPinDigest(pin)) return Promise.reject(new Error('a pin marker must be a SHA-256 hex digest'));
    return store.update((content) => {
      const entry = getOwn(content, root);
      const record = isPlainObject(entry) ? getOwn(entry, server) : undefined;
      if (!isPlainObject(entry) || !isRecord(record) || record.hash !== hash || record.status !== 'approved' || record.pin === pin) return false;
      setOwn(entry, server, { hash, status: 'approved', pin });
      return true;
    });
  }

  return { file, read, decide, decideAll, markPinned };
}
