import type { ReviewLine } from './reviewEntry.js';

/**
 * One field of an entry that changed since the user approved it (decision 331): its review label
 * and its value before and now, as the review shows them (`reviewEntry`: references kept, a
 * user-scope entry's literal secrets masked). `before` absent: the field is new; `after` absent:
 * it is gone.
 */
export interface EntryFieldChange {
  label: string;
  before?: string;
  after?: string;
}

/**
 * The review lines of an entry now against those of the entry approved before, as changes of one
 * field each. Lines pair by their key — the label, and for `env`, `header` and `oauth` lines the
 * variable, header or field name too (`env API_URL=…`) — so an edited value reads before → after,
 * and a line that only moved is no change. Several lines of one key (a list of `root`s) pair in
 * order. The order is the review's: the entry now, then what was removed.
 */
export function entryChanges(before: readonly ReviewLine[], after: readonly ReviewLine[]): EntryFieldChange[] {
  const was = byKey(before);
  const now = byKey(after);
  const changes: EntryFieldChange[] = [];
  for (const key of new Set([...now.keys(), ...was.keys()])) {
    const { label, values: old } = was.get(key) ?? { label: now.get(key)!.label, values: [] };
    const fresh = [...(now.get(key)?.values ?? [])];
    // A value on both sides is no change, wherever it stands.
    const left = old.filter((value) => {
      const at = fresh.indexOf(value);
      if (at < 0) return true;
      fresh.splice(at, 1);
      return false;
    });
    for (let i = 0; i < Math.max(left.length, fresh.length); i++) {
      changes.push({ label, ...(left[i] === undefined ? {} : { before: left[i] }), ...(fresh[i] === undefined ? {} : { after: fresh[i] }) });
    }
  }
  return changes;
}

/** The lines' values by key, keys in the order they first come. */
function byKey(lines: readonly ReviewLine[]): Map<string, { label: string; values: string[] }> {
  const keyed = new Map<string, { label: string; values: string[] }>();
  for (const line of lines) {
    const key = keyOf(line);
    const entry = keyed.get(key);
    if (entry === undefined) keyed.set(key, { label: line.label, values: [line.value] });
    else entry.values.push(line.value);
  }
  return keyed;
}

/** A line's key: its label, and the name before `=` / `: ` where the label is a map's (`env`, `header`, `oauth`). */
function keyOf(line: ReviewLine): string {
  const separator = line.label === 'env' ? '=' : line.label === 'header' || line.label === 'oauth' ? ': ' : undefined;
  if (separator === undefined) return line.label;
  const at = line.value.indexOf(separator);
  return `${line.label}\0${at < 0 ? line.value : line.value.slice(0, at)}`;
}
